"""Database engines: SQLite (WAL, immediate transactions) or PostgreSQL, and migrations."""

from __future__ import annotations

import sqlite3
import time
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import quote

from sqlalchemy import Connection, Engine, create_engine, event, inspect, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, DisconnectionError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

from dicehall.engine.errors import InvalidInput


class DatabaseUnusable(InvalidInput):
    """A database that cannot be used as it is: not a database, damaged, locked, unreachable."""


#: How long the start-up check waits for another process's lock on a SQLite file.
CHECK_LOCK_TIMEOUT = 5.0


def normalise_url(url: str) -> str:
    """Accept ``postgresql://`` and ``postgres://`` and use the psycopg 3 driver for them."""
    if url.startswith("postgres://"):
        url = "postgresql://" + url[len("postgres://") :]
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url[len("postgresql://") :]
    return url


def is_sqlite(engine: Engine) -> bool:
    """True for the embedded SQLite database."""
    return engine.dialect.name == "sqlite"


def make_engine(url: str) -> Engine:
    """An engine for ``url``; SQLite gets WAL, a busy timeout and write-locking transactions."""
    url = normalise_url(url)
    try:
        parsed = make_url(url)
    except Exception as exc:
        raise InvalidInput(f"not a database URL: {url!r}") from exc
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(
            url, connect_args={"check_same_thread": False, "timeout": 30}, pool_size=8
        )

        @event.listens_for(engine, "connect")
        def _on_connect(dbapi_connection: Any, _record: Any) -> None:
            # Let SQLAlchemy, not the driver, start transactions, so each is BEGIN IMMEDIATE:
            # a move takes the write lock up front instead of failing to upgrade later.
            dbapi_connection.isolation_level = None
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA busy_timeout=30000")
            cursor.close()

        @event.listens_for(engine, "begin")
        def _on_begin(connection: Any) -> None:
            # Writers ask for IMMEDIATE (see ``writer_factory``); readers stay DEFERRED.
            mode = connection.get_execution_options().get("sqlite_begin", "DEFERRED")
            connection.exec_driver_sql(f"BEGIN {mode}")

        return engine
    if parsed.get_backend_name() == "postgresql":
        engine = create_engine(url, pool_size=10, max_overflow=20)
        _ping_when_idle(engine)
        return engine
    raise InvalidInput(f"unsupported database {parsed.get_backend_name()!r} (sqlite or postgresql)")


#: A pooled PostgreSQL connection idle longer than this is pinged before use; a busy site's
#: connections are not (a ping per checkout cost each move a round trip).
PING_AFTER_IDLE_SECONDS = 5.0


def _ping_when_idle(engine: Engine) -> None:
    """Pessimistic disconnect handling for connections that sat idle: a dead one (the server
    restarted) is replaced before use, as ``pool_pre_ping`` would, without its round trip
    on every checkout."""

    @event.listens_for(engine, "checkin")
    def _on_checkin(dbapi_connection: Any, record: Any) -> None:
        record.info["idle_since"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _on_checkout(dbapi_connection: Any, record: Any, proxy: Any) -> None:
        since = record.info.get("idle_since")
        if since is None or time.monotonic() - since < PING_AFTER_IDLE_SECONDS:
            return
        try:
            with dbapi_connection.cursor() as cursor:
                cursor.execute("SELECT 1")
            dbapi_connection.rollback()
        except Exception as exc:
            # The pool discards this connection and checks out a fresh one.
            raise DisconnectionError(str(exc)) from exc


#: PostgreSQL's SQLSTATEs for a connection that is gone or cannot be had: class 08
#: (connection exception) and the server shutting down, crashed or still starting (57P0x;
#: ``pg_terminate_backend`` ends a session with 57P01).
_PG_GONE = ("08", "57P01", "57P02", "57P03")

#: SQLite's primary result codes for a database file that cannot be reached: it cannot be
#: opened (the disk or its folder went away) or read or written (an I/O error).
_SQLITE_GONE = frozenset({sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_IOERR})


#: What a dropped connection is raised as (:func:`is_disconnect` tells which of these are
#: one): for the error handlers to catch.
DATABASE_ERRORS = (DBAPIError, DisconnectionError)


def is_disconnect(exc: BaseException) -> bool:
    """True when ``exc`` says the database connection dropped or could not be made (the
    server restarted, the session was terminated, the file went away), not that a statement
    was wrong or lost a race (a lock timeout, a serialization failure, a constraint).

    SQLAlchemy marks a drop it noticed on a live connection (``connection_invalidated``:
    it has then invalidated the pool, so the next checkout connects afresh); a connection
    refused at connect, or a SQLite file that cannot be opened, it does not mark.
    """
    if isinstance(exc, DisconnectionError):
        return True
    if not isinstance(exc, DBAPIError):
        return False
    if exc.connection_invalidated:
        return True
    if not isinstance(exc, OperationalError):
        return False
    orig = exc.orig
    if isinstance(orig, sqlite3.Error):
        code = getattr(orig, "sqlite_errorcode", None)
        return code is not None and code & 0xFF in _SQLITE_GONE
    # psycopg: an OperationalError with no SQLSTATE is the client's own (connection refused,
    # server closed the connection, connection is closed); one with a SQLSTATE came from
    # the server, which only the states above make a connection problem.
    sqlstate: str | None = getattr(orig, "sqlstate", None)
    return sqlstate is None or sqlstate.startswith(_PG_GONE)


def read_only_engine(url: str) -> Engine:
    """An engine that only reads: it makes no file, and changes no schema or journal mode."""
    url = normalise_url(url)
    try:
        parsed = make_url(url)
    except Exception as exc:
        raise InvalidInput(f"not a database URL: {url!r}") from exc
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        if not parsed.database or parsed.database == ":memory:":
            raise InvalidInput("an in-memory SQLite database holds nothing to read")
        path = Path(parsed.database)
        if not path.is_file():
            raise DatabaseUnusable(f"there is no database at {path}")
        # mode=rw with query_only, not mode=ro: a read-only connection to a WAL database
        # leaves its -wal and -shm files behind when it closes.
        uri = f"file:{quote(str(path))}?mode=rw"

        def connect() -> sqlite3.Connection:
            connection = sqlite3.connect(uri, uri=True, timeout=30, check_same_thread=False)
            connection.execute("PRAGMA query_only=ON")
            return connection

        return create_engine(url, creator=connect, isolation_level="AUTOCOMMIT")
    if backend == "postgresql":
        # Autocommit, so that a long check never holds one transaction open.
        return create_engine(
            url,
            connect_args={"options": "-c default_transaction_read_only=on"},
            isolation_level="AUTOCOMMIT",
        )
    raise InvalidInput(f"unsupported database {backend!r} (sqlite or postgresql)")


def session_factory(engine: Engine) -> sessionmaker[Session]:
    """Sessions that keep loaded objects usable after commit."""
    return sessionmaker(engine, expire_on_commit=False)


def head_revision() -> str:
    """The newest migration's revision: each ``versions/vNNNN_*.py`` is revision ``NNNN``
    (a test checks this against Alembic's own script directory)."""
    versions = resources.files("dicehall.server.core").joinpath("migrations", "versions")
    names = [entry.name for entry in versions.iterdir()]
    return max(name[1:5] for name in names if name.startswith("v") and name.endswith(".py"))


#: The PostgreSQL advisory lock that migrations are applied under ("dicehall" in ASCII).
_MIGRATE_LOCK = 0x6469636568616C6C


def _stored_revision(connection: Connection) -> list[str]:
    if not inspect(connection).has_table("alembic_version"):
        return []
    return [row[0] for row in connection.execute(text("SELECT version_num FROM alembic_version"))]


def at_head(engine: Engine) -> bool:
    """True when the database's schema is already the newest (nothing to migrate)."""
    with engine.connect() as connection:
        return _stored_revision(connection) == [head_revision()]


def migrate(engine: Engine) -> None:
    """Bring the database schema up to date with Alembic (imported only when there is
    something to do: it costs a server's start a fifth of a second)."""
    if at_head(engine):
        return
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option(
        "script_location", str(resources.files("dicehall.server.core").joinpath("migrations"))
    )
    with engine.connect() as connection:
        sqlite = is_sqlite(engine)
        if sqlite:
            # Rebuilding a table drops the old one; with foreign keys on, SQLite would delete
            # every child row through ON DELETE CASCADE. The pragma is a no-op inside a
            # transaction, so it is set on the driver's connection before one begins.
            _driver_pragma(connection, "PRAGMA foreign_keys=OFF")
        try:
            with connection.begin():
                if not sqlite:
                    # Several processes may start at once (web nodes, workers): one migrates,
                    # the others wait for it here and then find nothing left to do.
                    connection.execute(
                        text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MIGRATE_LOCK}
                    )
                    if _stored_revision(connection) == [head_revision()]:
                        return
                config.attributes["connection"] = connection
                command.upgrade(config, "head")
                if sqlite:
                    broken = connection.exec_driver_sql("PRAGMA foreign_key_check").first()
                    if broken is not None:
                        raise InvalidInput(f"the migration broke a foreign key: {tuple(broken)}")
        finally:
            if sqlite:
                _driver_pragma(connection, "PRAGMA foreign_keys=ON")


def _driver_pragma(connection: Connection, statement: str) -> None:
    cursor = connection.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
    try:
        cursor.execute(statement)
    finally:
        cursor.close()


def sqlite_file(engine: Engine) -> Path | None:
    """The file behind a SQLite engine; None for an in-memory one or another database."""
    database = engine.url.database if is_sqlite(engine) else None
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database)


def check_database(engine: Engine, lock_timeout: float | None = None) -> None:
    """Raise :class:`DatabaseUnusable` with one line when ``engine``'s database is unusable.

    A SQLite file is opened on its own (not through ``engine``, which would turn on WAL)
    and must pass ``PRAGMA quick_check``; a file that does not exist yet is fine (it is
    made at start). Other databases must accept a connection.
    """
    if is_sqlite(engine):
        path = sqlite_file(engine)
        if path is not None and path.exists():
            _check_sqlite_file(path, CHECK_LOCK_TIMEOUT if lock_timeout is None else lock_timeout)
        return
    try:
        with engine.connect() as connection:
            connection.exec_driver_sql("SELECT 1")
    except DBAPIError as exc:
        where = engine.url.render_as_string(hide_password=True)
        raise DatabaseUnusable(f"cannot use the database {where}: {_first_line(exc.orig)}") from exc


def _check_sqlite_file(path: Path, lock_timeout: float) -> None:
    # mode=rw: never create a file here, and never open it read-only behind our back.
    uri = f"file:{quote(str(path))}?mode=rw"
    try:
        connection = sqlite3.connect(uri, uri=True, timeout=lock_timeout)
        try:
            rows = connection.execute("PRAGMA quick_check").fetchall()
        finally:
            connection.close()
    except sqlite3.Error as exc:
        raise DatabaseUnusable(_sqlite_problem(path, exc)) from exc
    if rows != [("ok",)]:
        first = _first_line(rows[0][0] if rows else "no answer")
        raise DatabaseUnusable(f"{path} failed its integrity check: {first}")


def _sqlite_problem(path: Path, exc: sqlite3.Error) -> str:
    name = getattr(exc, "sqlite_errorname", "")
    if name == "SQLITE_NOTADB":
        return f"{path} is not a SQLite database"
    if name.startswith("SQLITE_CORRUPT"):
        return f"{path} failed its integrity check: {_first_line(exc)}"
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
        return f"{path} is locked by another process"
    return f"{path} cannot be opened: {_first_line(exc)}"


def _first_line(problem: object) -> str:
    lines = str(problem).strip().splitlines()
    return lines[0].strip() if lines else type(problem).__name__
