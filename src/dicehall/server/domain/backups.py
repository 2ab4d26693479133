"""``dicehall restore``'s steps: stage the backup, bring it up to date, move it past what
the world has seen (:mod:`.restore`), then put it in place; any failure before the last step
leaves the target as it was."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import Any

from sqlalchemy import inspect
from sqlalchemy.exc import SQLAlchemyError

from dicehall.fairness.checkpoint import Checkpoint
from dicehall.server.core.db import make_engine, migrate
from dicehall.server.domain.restore import RestoreReport, move_past
from dicehall.server.infra import backup as files
from dicehall.server.infra.backup import BackupFailed

Progress = Callable[[str], None]


def _quiet(_message: str) -> None:
    pass


def restore(
    source: Path,
    target_url: str,
    *,
    saved_log: list[dict[str, Any]] | None,
    checkpoint: Checkpoint | None,
    nothing_published_since: bool,
    overwrite: bool,
    dice_batch_size: int,
    bag_batch_size: int,
    id_margin: int,
    progress: Progress = _quiet,
) -> RestoreReport:
    """Restore the backup file ``source`` into the database at ``target_url``.

    Refuses (:class:`~dicehall.server.infra.backup.BackupFailed`) a target that holds data
    unless ``overwrite``, and a backup of the other kind of database."""
    kind = files.database_kind(target_url)
    found = files.file_format(source)
    if found != kind:
        raise BackupFailed(
            f"{source} is a {found} backup, but the target is a {kind} database "
            "(a backup restores into the kind of database it was taken from)"
        )
    if not overwrite and files.holds_data(target_url):
        raise BackupFailed(
            "the target database holds data already: give --yes to replace it with the backup"
        )
    if kind == "sqlite":
        target = files.sqlite_path(target_url)
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=target.parent, prefix=".restore-") as folder:
            staged = Path(folder) / "staged.sqlite3"
            progress(f"copying {source} to a staging file")
            files.copy_sqlite(source, staged)
            report = _prepare(
                f"sqlite:///{staged}",
                source,
                saved_log,
                checkpoint,
                nothing_published_since,
                dice_batch_size,
                bag_batch_size,
                id_margin,
                progress,
            )
            progress(f"writing {target}")
            aside = files.install_sqlite(staged, target)
            if aside is not None:
                report.warnings.append(f"the unusable database was moved to {aside}")
        return report
    staged_url = files.stage_postgres(source, target_url, progress)
    try:
        report = _prepare(
            staged_url,
            source,
            saved_log,
            checkpoint,
            nothing_published_since,
            dice_batch_size,
            bag_batch_size,
            id_margin,
            progress,
        )
        progress("putting the restored database in place")
        files.install_postgres(staged_url, target_url)
    except BaseException:
        with suppress(Exception):
            files.drop_postgres(staged_url)
        raise
    return report


def _prepare(
    url: str,
    source: Path,
    saved_log: list[dict[str, Any]] | None,
    checkpoint: Checkpoint | None,
    nothing_published_since: bool,
    dice_batch_size: int,
    bag_batch_size: int,
    id_margin: int,
    progress: Progress,
) -> RestoreReport:
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            tables = set(inspect(conn).get_table_names())
        if not {"alembic_version", "games", "fairness_log"} <= tables:
            raise BackupFailed(f"{source} is not a backup of a dicehall site's database")
        progress("bringing the backup's schema up to date")
        migrate(engine)
        progress("moving past what the published log names")
        with engine.begin() as conn:
            return move_past(
                conn,
                source=source.name,
                saved_log=saved_log,
                checkpoint=checkpoint,
                nothing_published_since=nothing_published_since,
                dice_batch_size=dice_batch_size,
                bag_batch_size=bag_batch_size,
                id_margin=id_margin,
            )
    except SQLAlchemyError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise BackupFailed(f"cannot prepare {source}: {first}") from exc
    finally:
        engine.dispose()
