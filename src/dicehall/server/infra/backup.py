"""Copies of the site's database: taking a backup, staging one, and putting it in place.

SQLite uses its online backup API: one step under one read transaction gives a consistent
snapshot while the site writes (WAL lets writers go on). PostgreSQL uses ``pg_dump
--format=custom`` and ``pg_restore``. A restore is staged first (a new file, a new database),
checked and prepared there, and only then put in place in one step, so a restore that fails
leaves the target as it was.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import uuid
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import quote

import psycopg
from sqlalchemy import URL, inspect, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import SQLAlchemyError

from dicehall.engine.errors import InvalidInput
from dicehall.server.core.db import make_engine, normalise_url

Progress = Callable[[str], None]
Format = Literal["sqlite", "postgresql"]

#: The first bytes of each kind of backup file.
_MAGIC: dict[bytes, Format] = {b"SQLite format 3\x00": "sqlite", b"PGDMP": "postgresql"}


class BackupFailed(InvalidInput):
    """A backup or restore that could not be done, said in one line."""


@dataclass(frozen=True)
class BackupFile:
    """A backup written: which database it came from, where it is, how big."""

    format: Format
    path: Path
    size: int


def _quiet(_message: str) -> None:
    pass


def database_kind(url: str) -> Format:
    """``sqlite`` or ``postgresql`` for a database URL (anything else is refused)."""
    backend = _parse(url).get_backend_name()
    if backend == "sqlite":
        return "sqlite"
    if backend == "postgresql":
        return "postgresql"
    raise BackupFailed(f"unsupported database {backend!r} (sqlite or postgresql)")


def _parse(url: str) -> URL:
    try:
        return make_url(normalise_url(url))
    except Exception as exc:
        raise BackupFailed(f"not a database URL: {url!r}") from exc


def sqlite_path(url: str) -> Path:
    """The file of a SQLite URL (an in-memory database has none to copy)."""
    database = _parse(url).database
    if not database or database == ":memory:" or database.startswith("file:"):
        raise BackupFailed("an in-memory SQLite database has no file to back up or restore")
    return Path(database)


def file_format(path: Path) -> Format:
    """What kind of backup ``path`` is, by its first bytes."""
    try:
        with path.open("rb") as handle:
            head = handle.read(16)
    except OSError as exc:
        raise BackupFailed(f"cannot read {path}: {exc.strerror or exc}") from exc
    for magic, kind in _MAGIC.items():
        if head.startswith(magic):
            return kind
    raise BackupFailed(
        f"{path} is not a dicehall backup (neither a SQLite database nor a pg_dump custom archive)"
    )


def _partial(dest: Path) -> Path:
    return dest.with_name(f".{dest.name}.{uuid.uuid4().hex[:8]}.partial")


def backup(url: str, dest: Path, progress: Progress = _quiet) -> BackupFile:
    """Write a consistent copy of the database at ``url`` to ``dest`` (a new file)."""
    if dest.exists():
        raise BackupFailed(f"{dest} exists already: give a new file name")
    if not dest.parent.is_dir():
        raise BackupFailed(f"there is no folder {dest.parent}")
    kind = database_kind(url)
    partial = _partial(dest)
    try:
        if kind == "sqlite":
            source = sqlite_path(url)
            if not source.is_file():
                raise BackupFailed(f"there is no database at {source}")
            progress(f"copying {source} with SQLite's backup API")
            copy_sqlite(source, partial, source_is_live=True)
        else:
            progress("running pg_dump --format=custom")
            _run([pg_tool("pg_dump"), "--format=custom", f"--file={partial}"], url)
        os.replace(partial, dest)
    finally:
        with suppress(FileNotFoundError):
            partial.unlink()
    return BackupFile(kind, dest, dest.stat().st_size)


def copy_sqlite(source: Path, dest: Path, *, source_is_live: bool = False) -> None:
    """Copy the SQLite database ``source`` into the new file ``dest`` and check the copy.

    One backup step copies every page under one read transaction: a consistent snapshot even
    while another process writes (stepping in parts would start over after each write).
    """
    mode = "rw" if source_is_live else "ro"
    try:
        src = sqlite3.connect(f"file:{quote(str(source))}?mode={mode}", uri=True, timeout=30)
    except sqlite3.Error as exc:
        raise BackupFailed(f"cannot open {source}: {exc}") from exc
    try:
        if source_is_live:
            src.execute("PRAGMA query_only=ON")
        dst = sqlite3.connect(str(dest))
        try:
            src.backup(dst, pages=-1)
            # One self-contained file: a WAL header would make every reader leave -wal and
            # -shm files beside the backup.
            dst.execute("PRAGMA journal_mode=DELETE")
            rows = dst.execute("PRAGMA quick_check").fetchall()
        finally:
            dst.close()
    except sqlite3.DatabaseError as exc:
        raise BackupFailed(f"{source} is not a usable SQLite database: {exc}") from exc
    finally:
        src.close()
    if rows != [("ok",)]:
        raise BackupFailed(f"{source} failed its integrity check: {rows[0][0] if rows else '?'}")


def install_sqlite(staged: Path, target: Path) -> Path | None:
    """Replace the database at ``target`` with ``staged``, in one transaction of the target's
    (SQLite's backup API writes into a live WAL database safely; a failure changes nothing).
    Fails when the site holds the target's write lock for 30 s: stop the site first.

    A target that is no database (damaged beyond opening) is moved aside first, with its
    ``-wal`` and ``-shm`` files; returns where it went (None when it was not)."""
    aside = _move_aside_if_unusable(target)
    try:
        src = sqlite3.connect(f"file:{quote(str(staged))}?mode=ro", uri=True)
        try:
            dst = sqlite3.connect(str(target), timeout=30)
            try:
                src.backup(dst, pages=-1)
                dst.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                dst.close()
        finally:
            src.close()
    except sqlite3.Error as exc:
        if aside is not None:  # put the old file back as it was
            for suffix in ("", "-wal", "-shm", "-journal"):
                with suppress(FileNotFoundError):
                    os.unlink(f"{target}{suffix}")
            for suffix in ("-wal", "-shm"):
                with suppress(FileNotFoundError):
                    os.replace(f"{aside}{suffix}", f"{target}{suffix}")
            os.replace(aside, target)
        raise BackupFailed(f"cannot write {target} (is the site still running?): {exc}") from exc
    return aside


def _move_aside_if_unusable(target: Path) -> Path | None:
    if not target.exists():
        return None
    try:
        con = sqlite3.connect(f"file:{quote(str(target))}?mode=rw", uri=True, timeout=30)
        try:
            con.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return None
        finally:
            con.close()
    except sqlite3.DatabaseError:
        pass
    aside = target.with_name(f"{target.name}.unusable-{uuid.uuid4().hex[:8]}")
    for suffix in ("-wal", "-shm"):
        with suppress(FileNotFoundError):
            os.replace(f"{target}{suffix}", f"{aside}{suffix}")
    os.replace(target, aside)
    return aside


def pg_tool(name: str) -> str:
    """The path of PostgreSQL's ``pg_dump`` or ``pg_restore``, or a clear error."""
    found = shutil.which(name)
    if found is None:
        raise BackupFailed(
            f"{name} is not installed (or not on PATH): install PostgreSQL's client tools "
            "(Debian/Ubuntu: postgresql-client, of the server's major version or newer)"
        )
    return found


def libpq_url(url: str) -> str:
    """``url`` as libpq (``pg_dump``, ``psycopg``) reads it: no SQLAlchemy driver name."""
    parsed = _parse(url).set(drivername="postgresql")
    return parsed.render_as_string(hide_password=False)


def _run(command: list[str], url: str) -> None:
    """Run a PostgreSQL tool on the database at ``url``; its password goes in the
    environment (``PGPASSWORD``), never on a command line that ``ps`` shows."""
    parsed = _parse(url).set(drivername="postgresql")
    env = dict(os.environ)
    if parsed.password is not None:
        env["PGPASSWORD"] = str(parsed.password)
    target = parsed.set(password=None).render_as_string(hide_password=False)
    done = subprocess.run(
        [*command, f"--dbname={target}"], capture_output=True, text=True, check=False, env=env
    )
    if done.returncode != 0:
        lines = [line for line in done.stderr.strip().splitlines() if line.strip()]
        problem = lines[0] if lines else f"exit status {done.returncode}"
        raise BackupFailed(f"{Path(command[0]).name} failed: {problem}")


def _admin_url(url: str) -> str:
    return libpq_url(_parse(url).set(database="postgres").render_as_string(hide_password=False))


def _database_name(url: str) -> str:
    name = _parse(url).database
    if not name:
        raise BackupFailed("the PostgreSQL URL names no database")
    return name


def _admin(url: str, statement: str) -> None:
    try:
        with psycopg.connect(_admin_url(url), autocommit=True) as conn:
            conn.execute(statement.encode())
    except psycopg.Error as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise BackupFailed(f"PostgreSQL refused: {first}") from exc


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def stage_postgres(archive: Path, url: str, progress: Progress = _quiet) -> str:
    """Restore ``archive`` into a new database beside ``url``'s; return the new one's URL
    (the role needs CREATEDB)."""
    name = f"{_database_name(url)[:40]}_restore_{uuid.uuid4().hex[:8]}"
    _admin(url, f"CREATE DATABASE {_quoted(name)}")
    staged = _parse(url).set(database=name).render_as_string(hide_password=False)
    try:
        progress(f"running pg_restore into a new database {name}")
        _run(
            [
                pg_tool("pg_restore"),
                "--no-owner",
                "--no-privileges",
                "--exit-on-error",
                str(archive),
            ],
            staged,
        )
    except BaseException:
        drop_postgres(staged)
        raise
    return staged


def drop_postgres(url: str) -> None:
    """Drop the database of ``url`` (a staged restore that is not wanted)."""
    with suppress(BackupFailed):
        _admin(url, f"DROP DATABASE IF EXISTS {_quoted(_database_name(url))} WITH (FORCE)")


def install_postgres(staged: str, target: str) -> None:
    """Put the staged database in the target's place by renaming (the old one is dropped).
    Fails, changing nothing, while anything is connected to the target: stop the site."""
    name, new = _database_name(target), _database_name(staged)
    old = f"{name[:40]}_replaced_{uuid.uuid4().hex[:8]}"
    exists = _pg_database_exists(target, name)
    if exists:
        _admin(target, f"ALTER DATABASE {_quoted(name)} RENAME TO {_quoted(old)}")
    try:
        _admin(target, f"ALTER DATABASE {_quoted(new)} RENAME TO {_quoted(name)}")
    except BackupFailed:
        if exists:
            _admin(target, f"ALTER DATABASE {_quoted(old)} RENAME TO {_quoted(name)}")
        raise
    if exists:
        _admin(target, f"DROP DATABASE IF EXISTS {_quoted(old)} WITH (FORCE)")


def _pg_database_exists(url: str, name: str) -> bool:
    try:
        with psycopg.connect(_admin_url(url), autocommit=True) as conn:
            row = conn.execute(b"SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
    except psycopg.Error as exc:
        raise BackupFailed(f"cannot reach PostgreSQL: {str(exc).strip()[:200]}") from exc
    return row is not None


def holds_data(url: str) -> bool:
    """Whether the database at ``url`` exists and holds anything a restore would lose
    (a user, a game or a record of the public log)."""
    if database_kind(url) == "sqlite":
        path = sqlite_path(url)
        if not path.exists() or path.stat().st_size == 0:
            return False
    elif not _pg_database_exists(url, _database_name(url)):
        return False
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            tables = set(inspect(conn).get_table_names())
            for table in ("users", "games", "fairness_log"):
                if table in tables and conn.execute(text(f"SELECT 1 FROM {table} LIMIT 1")).first():
                    return True
            return False
    except SQLAlchemyError as exc:
        raise BackupFailed(
            f"cannot read the target database ({_first_line(exc)}): give --yes to replace it"
        ) from exc
    finally:
        engine.dispose()


def _first_line(problem: object) -> str:
    lines = str(problem).strip().splitlines()
    return lines[0] if lines else type(problem).__name__
