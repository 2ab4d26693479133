"""Database engines: SQLite (WAL, immediate transactions) or PostgreSQL, and migrations."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

from dicehall.engine.errors import InvalidInput


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
        return create_engine(url, pool_size=10, max_overflow=20, pool_pre_ping=True)
    raise InvalidInput(f"unsupported database {parsed.get_backend_name()!r} (sqlite or postgresql)")


def session_factory(engine: Engine) -> sessionmaker[Session]:
    """Sessions that keep loaded objects usable after commit."""
    return sessionmaker(engine, expire_on_commit=False)


def migrate(engine: Engine) -> None:
    """Bring the database schema up to date with Alembic."""
    config = Config()
    config.set_main_option(
        "script_location", str(resources.files("dicehall.server").joinpath("migrations"))
    )
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")
