"""``dicehall serve``, ``dicehall worker``, ``dicehall check`` and ``dicehall verify-dice``:
the site, its background work and its audits."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from dicehall.cli.apps import Groups
from dicehall.cli.common import (
    JsonText,
    console,
    fail,
    print_json,
    printable,
    require_extra,
    site_settings_or_fail,
)
from dicehall.cli.datadir import usable_data_dir

if TYPE_CHECKING:
    pass


#: ``--db`` of the commands that run the site (``serve``, ``worker``).
SiteDb = Annotated[
    str | None,
    typer.Option("--db", help="Database URL (default: SQLite in the user data directory)."),
]


def serve(
    db: SiteDb = None,
    redis: Annotated[
        str | None,
        typer.Option("--redis", help="Redis URL: share pushes and rate limits between processes."),
    ] = None,
    host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[
        int, typer.Option("--port", min=1, max=65535, help="Port to listen on.")
    ] = 8000,
    workers: Annotated[int, typer.Option("--workers", min=1, max=32, help="Server processes.")] = 1,
    background: Annotated[
        bool,
        typer.Option(
            "--background/--no-background",
            help="Play bots' turns, apply clocks and run the site jobs in these processes; "
            "--no-background leaves them to `dicehall worker` processes.",
        ),
    ] = True,
    forwarded_allow_ips: Annotated[
        str | None,
        typer.Option(
            "--forwarded-allow-ips",
            envvar="DICEHALL_TRUSTED_PROXIES",
            help="Proxy addresses (comma-separated) whose X-Forwarded-For and "
            "X-Forwarded-Proto are believed; default none: the client address is the "
            "connection's.",
        ),
    ] = None,
) -> None:
    """Run the site: migrations are applied and the dice pool filled at start."""
    require_extra("fastapi", "site", "dicehall serve")
    from dicehall.server.core import startup_gc

    startup_gc.pause()  # the application's start-up resumes it
    import uvicorn

    from dicehall.server.domain.services import build_services

    url = _use_database(db, redis)
    if not background:
        os.environ["DICEHALL_BACKGROUND"] = "false"
    # Migrate and fill the pool once here, so workers never race to do it.
    settings = site_settings_or_fail()
    services = build_services(settings)
    services.engine.dispose()
    console.print(f"dicehall on http://{host}:{port}  database: {url}", soft_wrap=True)
    from dicehall.server.http.accesslog import serve_log_config
    from dicehall.server.http.limits import server_options
    from dicehall.server.workers.procpool import SUPERVISOR_ENV

    if workers > 1:
        os.environ[SUPERVISOR_ENV] = str(os.getpid())  # its workers die with this process
    else:
        os.environ.pop(SUPERVISOR_ENV, None)

    uvicorn.run(
        "dicehall.server.asgi:app_from_env",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        # The levels are serve_log_config's (a log_level would hide uvicorn's INFO lines,
        # "Child process [pid] died" among them); JSON lines on stderr.
        log_config=serve_log_config(),
        **server_options(settings, forwarded_allow_ips),
    )


def worker(
    db: SiteDb = None,
    redis: Annotated[
        str | None,
        typer.Option("--redis", help="Redis URL: pushes reach players on every web process."),
    ] = None,
    bot_workers: Annotated[
        int | None,
        typer.Option(
            "--bot-workers", min=1, max=64, help="Processes for slow bots (default: settings)."
        ),
    ] = None,
) -> None:
    """Run only the site's background work: bots' turns, clocks, reminders, site jobs.

    Start any number, on this machine or others, beside `dicehall serve --no-background`;
    they share the work through the database. Stops on SIGTERM or Ctrl-C.
    """
    require_extra("sqlalchemy", "site", "dicehall worker")
    import logging.config

    from dicehall.server.http.accesslog import serve_log_config
    from dicehall.server.workers import node

    url = _use_database(db, redis)
    if bot_workers is not None:
        os.environ["DICEHALL_BOT_WORKERS"] = str(bot_workers)
    os.environ["DICEHALL_BACKGROUND"] = "true"
    settings = site_settings_or_fail()
    if settings.redis_url is None and not url.startswith("sqlite"):
        console.print(
            "no Redis: players see the bots' moves when their pages ask, not at once",
            style="yellow",
        )
    logging.config.dictConfig(serve_log_config())
    console.print(f"dicehall worker  database: {url}", soft_wrap=True)
    node.main(settings)


def check(
    db: Annotated[
        str | None, typer.Option("--db", help="Database URL (default: the site's SQLite file).")
    ] = None,
    as_json: JsonText = False,
) -> None:
    """Replay every stored game from its event log and compare it with its snapshot.

    Reads only: nothing is migrated or written. Exit 0 when every game agrees, 1 when some
    do not, 2 when the database cannot be read.
    """
    require_extra("sqlalchemy", "site", "dicehall check")
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn
    from sqlalchemy.exc import SQLAlchemyError

    from dicehall.engine.errors import DicehallError
    from dicehall.server.asgi import load_plugins
    from dicehall.server.core.config import default_db_url
    from dicehall.server.core.db import check_database, read_only_engine
    from dicehall.server.domain.integrity import check_games, game_ids, require_schema

    url = db or default_db_url()
    try:
        load_plugins()
    except Exception as exc:
        fail(printable(f"DICEHALL_PLUGINS: {type(exc).__name__}: {exc}"))
    try:
        engine = read_only_engine(url)
    except DicehallError as exc:
        fail(printable(str(exc)))
    try:
        check_database(engine)
        with engine.connect() as conn:
            require_schema(conn)
            ids = game_ids(conn)
            with Progress(
                "[progress.description]{task.description}",
                BarColumn(),
                MofNCompleteColumn(),
                TimeRemainingColumn(),
                console=console,
                disable=as_json or not console.is_terminal,
                transient=True,
            ) as bar:
                task = bar.add_task("replaying games", total=len(ids))
                report = check_games(conn, ids, lambda: bar.advance(task))
    except DicehallError as exc:
        fail(printable(str(exc)))
    except SQLAlchemyError as exc:
        fail(printable(f"cannot read the database: {str(exc).strip().splitlines()[0]}"))
    finally:
        engine.dispose()
    if as_json:
        print_json(report.as_json())
    else:
        for found in report.discrepancies:
            console.print(
                f"game {found.game_id} ({found.kind}): {found.problem}",
                markup=False,
                soft_wrap=True,
            )
        console.print(report.summary(), markup=False, soft_wrap=True)
    raise typer.Exit(0 if report.ok else 1)


def verify_dice(
    file: Annotated[
        Path, typer.Argument(help="A revealed batch (GET /api/v1/fairness/batches/ID).")
    ],
    as_json: JsonText = False,
) -> None:
    """Check a revealed dice batch against the commitment published before it was used."""
    require_extra("sqlalchemy", "site", "dicehall verify-dice")
    from dicehall.engine.errors import InvalidInput
    from dicehall.server.domain.dice.fairness import check_batch

    try:
        data = json.loads(file.read_bytes())
    except OSError as exc:
        fail(printable(f"cannot read {file}: {exc.strerror or exc}"))
    except ValueError as exc:
        fail(printable(f"{file} is not JSON: {exc}"))
    except RecursionError:
        fail(printable(f"{file} is nested too deeply to be a revealed batch"))
    try:
        check = check_batch(data)
    except InvalidInput as exc:
        fail(printable(f"{file}: {exc}"))
    if as_json:
        print_json(check.as_json())
    else:
        console.print(check.summary(), markup=False, soft_wrap=True)
        for line in check.checked:
            console.print(f"checked: {line}", markup=False, soft_wrap=True)
        for line in check.not_checked:
            console.print(f"not checked: {line}", markup=False, soft_wrap=True)
    raise typer.Exit(0 if check.ok else 1)


def register(groups: Groups) -> None:
    """Add ``serve``, ``worker``, ``check`` and ``verify-dice`` to the root command."""
    groups.root.command()(serve)
    groups.root.command()(worker)
    groups.root.command()(check)
    groups.root.command(name="verify-dice")(verify_dice)


def _use_database(db: str | None, redis: str | None) -> str:
    """The site's database URL (the embedded SQLite file by default), checked usable, and it
    and ``redis`` put where the site's settings read them."""
    from dicehall.server.core.config import default_db_url

    if db is None:
        usable_data_dir()  # the embedded database lives there
    url = db or default_db_url()
    _require_usable_database(url)
    os.environ["DICEHALL_DB_URL"] = url
    if redis:
        os.environ["DICEHALL_REDIS_URL"] = redis
    return url


def _require_usable_database(url: str) -> None:
    # One line and exit 2 for a damaged, locked or unreachable database, before any
    # migration or server start could fail on it with a traceback.
    from dicehall.engine.errors import DicehallError
    from dicehall.server.core.db import check_database, make_engine

    try:
        engine = make_engine(url)
    except DicehallError as exc:
        fail(printable(str(exc)))
    try:
        check_database(engine)
    except DicehallError as exc:
        fail(printable(str(exc)))
    finally:
        engine.dispose()
