"""``dicehall backup DEST`` and ``dicehall restore SOURCE``: a consistent copy of the site's
database while it runs, and a restore that never serves published dice again."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from dicehall.cli.apps import Groups
from dicehall.cli.commands.site import SiteDb
from dicehall.cli.common import (
    JsonText,
    console,
    err_console,
    fail,
    print_json,
    printable,
    require_extra,
    site_settings_or_fail,
)
from dicehall.cli.datadir import usable_data_dir


def _url(db: str | None) -> str:
    from dicehall.server.core.config import default_db_url

    if db is None:
        usable_data_dir()
    return db or default_db_url()


def _say(quiet: bool) -> Any:
    def progress(message: str) -> None:
        if not quiet:
            err_console.print(f"{message}...", markup=False, soft_wrap=True, style="dim")

    return progress


def backup(
    dest: Annotated[Path, typer.Argument(help="The backup file to write (must not exist).")],
    db: SiteDb = None,
    as_json: JsonText = False,
) -> None:
    """Write a consistent copy of the site's database to DEST, while the site runs.

    SQLite: its online backup API (one self-contained file). PostgreSQL: pg_dump
    --format=custom (needs pg_dump of the server's major version or newer). Exit 0 when the
    backup is written, 2 when it cannot be.
    """
    require_extra("sqlalchemy", "site", "dicehall backup")
    from dicehall.engine.errors import DicehallError
    from dicehall.server.infra.backup import backup as take_backup

    url = _url(db)
    try:
        written = take_backup(url, dest, _say(as_json))
    except DicehallError as exc:
        fail(printable(str(exc)))
    if as_json:
        print_json({"format": written.format, "path": str(written.path), "bytes": written.size})
    else:
        console.print(
            f"backed up the {written.format} database to {written.path} ({written.size} bytes)",
            markup=False,
            soft_wrap=True,
        )


def _read_text(path: Path, what: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        fail(printable(f"cannot read {what} {path}: {exc.strerror or exc}"))
    except UnicodeDecodeError:
        fail(printable(f"{what} {path} is not UTF-8 text"))


def restore(
    source: Annotated[Path, typer.Argument(help="A backup written by `dicehall backup`.")],
    db: SiteDb = None,
    log: Annotated[
        Path | None,
        typer.Option(
            "--log",
            help="The newest saved copy of the public log (GET /api/v1/fairness/log pages, "
            'concatenated, or {"records": [...]}).',
        ),
    ] = None,
    checkpoint: Annotated[
        Path | None,
        typer.Option("--checkpoint", help="The latest checkpoint of the log (a signed note)."),
    ] = None,
    nothing_published_since: Annotated[
        bool,
        typer.Option(
            "--nothing-published-since-backup",
            help="Restore without a saved log: you are sure the site published nothing "
            "after this backup was taken.",
        ),
    ] = False,
    id_margin: Annotated[
        int,
        typer.Option(
            "--id-margin",
            min=1,
            help="How far ids move that the log does not name (games before decks, tokens, "
            "messages...).",
        ),
    ] = 100_000,
    yes: Annotated[
        bool, typer.Option("--yes", help="Replace a target database that holds data.")
    ] = False,
    as_json: JsonText = False,
) -> None:
    """Restore SOURCE into the site's database (stop the site first).

    The restored site serves no die, bag or deck that the published log may have used since
    the backup, continues the log without a fork (records the backup lacks are re-imported
    from --log), and hands out no game id twice. Exit 0 when restored, 1 when the backup,
    the saved log and the checkpoint tell two histories, 2 when refused otherwise (the
    target is left as it was either way).
    """
    require_extra("sqlalchemy", "site", "dicehall restore")
    from dicehall.engine.errors import DicehallError
    from dicehall.server.domain.backups import restore as run_restore
    from dicehall.server.domain.saved_log import TwoHistories, read_checkpoint, read_saved_log

    url = _url(db)
    try:
        saved = None if log is None else read_saved_log(_read_text(log, "the saved log"))
        point = (
            None if checkpoint is None else read_checkpoint(_read_text(checkpoint, "checkpoint"))
        )
        settings = site_settings_or_fail()
        report = run_restore(
            source,
            url,
            saved_log=saved,
            checkpoint=point,
            nothing_published_since=nothing_published_since,
            overwrite=yes,
            dice_batch_size=settings.dice_batch_size,
            bag_batch_size=settings.bag_batch_size,
            id_margin=id_margin,
            progress=_say(as_json),
        )
    except TwoHistories as exc:
        err_console.print(f"FAILED: {printable(str(exc))}", markup=False, soft_wrap=True)
        raise typer.Exit(1) from exc
    except DicehallError as exc:
        fail(printable(str(exc)))
    if as_json:
        print_json(report.as_json())
        return
    lines = [
        f"restored {source.name}: the log holds {report.log_size} records "
        f"({report.backup_log_size} in the backup, {report.imported_records} imported)",
        f"dice sets from {report.dice_cursor[1]} on ({report.retired_sets} retired), "
        f"bag shuffles from {report.shuffle_cursor[1]} on ({report.retired_shuffles} retired), "
        f"{report.retired_decks} decks retired",
    ]
    if "games" in report.ids:
        lines.append(f"new games get ids above {report.ids['games'][1]}")
    lines += [f"note: {warning}" for warning in report.warnings]
    for line in lines:
        console.print(line, markup=False, soft_wrap=True)


def register(groups: Groups) -> None:
    """Add ``backup`` and ``restore`` to the root command."""
    groups.root.command()(backup)
    groups.root.command()(restore)
