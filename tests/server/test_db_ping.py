"""Pooled PostgreSQL connections: one that sat idle is pinged before use and replaced when
its server side is gone; a busy one is used without a ping."""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from dicehall.server.core import db
from tests.server.conftest import PG_ADMIN, fresh_postgres_db


@pytest.fixture
def pg_url(postgres_ok: bool) -> Iterator[str]:
    if not postgres_ok:
        pytest.skip("PostgreSQL is not running here")
    url, drop = fresh_postgres_db()
    try:
        yield url
    finally:
        drop()


def test_a_connection_killed_while_idle_is_replaced(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = db.make_engine(pg_url)
    try:
        with engine.connect() as conn:
            pid = conn.execute(text("SELECT pg_backend_pid()")).scalar()
        with psycopg.connect(PG_ADMIN, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        monkeypatch.setattr(db, "PING_AFTER_IDLE_SECONDS", 0.0)
        with engine.connect() as conn:
            assert conn.execute(text("SELECT pg_backend_pid()")).scalar() != pid
    finally:
        engine.dispose()


def test_a_connection_used_lately_is_not_pinged(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = db.make_engine(pg_url)
    try:
        with engine.connect() as conn:
            pid = conn.execute(text("SELECT pg_backend_pid()")).scalar()
        with psycopg.connect(PG_ADMIN, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        monkeypatch.setattr(db, "PING_AFTER_IDLE_SECONDS", 3600.0)
        # No ping: the dead connection is handed out and its first statement fails
        # (SQLAlchemy then discards it; the next checkout is a fresh one).
        with pytest.raises(DBAPIError), engine.connect() as conn:
            conn.execute(text("SELECT 1"))
        with engine.connect() as conn:
            assert conn.execute(text("SELECT 1")).scalar() == 1
    finally:
        engine.dispose()
