"""``dicehall ratings rebuild``: replay every rated game from scratch, and check the stored
ratings against the replay (``--check``, read only) or rewrite them from it."""

from __future__ import annotations

from typing import Annotated

import typer

from dicehall.cli.apps import Groups
from dicehall.cli.common import (
    JsonText,
    console,
    fail,
    print_json,
    printable,
    require_extra,
)


def rebuild(
    check: Annotated[
        bool,
        typer.Option(
            "--check",
            help="Only compare the stored ratings and rating changes with the replay; write "
            "nothing (exit 1 when some differ).",
        ),
    ] = False,
    db: Annotated[
        str | None, typer.Option("--db", help="Database URL (default: the site's SQLite file).")
    ] = None,
    as_json: JsonText = False,
) -> None:
    """Replay every rated finished game from scratch, in the order the site rated them.

    With --check, read only: name each stored rating or rating change the replay does not
    make exactly; exit 0 when all agree, 1 when some differ. Without it, rewrite the ratings
    and rating changes to the replay's in one transaction (game ends wait meanwhile). Exit 2
    when the database cannot be used.
    """
    require_extra("sqlalchemy", "site", "dicehall ratings rebuild")
    from sqlalchemy.exc import SQLAlchemyError

    from dicehall.engine.errors import DicehallError
    from dicehall.server.core.config import default_db_url
    from dicehall.server.core.db import check_database, make_engine, read_only_engine
    from dicehall.server.domain.errors import Refused
    from dicehall.server.domain.ratings.rebuild import RebuildReport, rebuild, snapshot

    url = db or default_db_url()
    report: RebuildReport
    try:
        # A read-only engine first: it refuses a SQLite file that is not there (a writer
        # would make an empty one).
        reader = read_only_engine(url)
        try:
            check_database(reader)
            if check:
                with snapshot(reader) as conn:
                    report = rebuild(conn, write=False)
        finally:
            reader.dispose()
        if not check:
            writer = make_engine(url).execution_options(sqlite_begin="IMMEDIATE")
            try:
                with writer.begin() as conn:
                    report = rebuild(conn, write=True)
            finally:
                writer.engine.dispose()
    except (DicehallError, Refused) as exc:
        fail(printable(str(exc)))
    except SQLAlchemyError as exc:
        fail(printable(f"cannot use the database: {str(exc).strip().splitlines()[0]}"))
    if as_json:
        print_json(report.as_json())
    else:
        for found in report.differences:
            console.print(found.line(), markup=False, soft_wrap=True)
        console.print(report.summary(), markup=False, soft_wrap=True)
    raise typer.Exit(0 if report.ok else 1)


def register(groups: Groups) -> None:
    """Add the ``ratings`` group and its ``rebuild`` command to the root command."""
    ratings = typer.Typer(
        help="The site's ratings.",
        add_completion=False,
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        context_settings={"help_option_names": ["-h", "--help"]},
    )
    ratings.command()(rebuild)
    groups.root.add_typer(ratings, name="ratings")
