"""The floor of the site's stack, for bench/floor.py: FastAPI apps that do (almost) nothing.

``noop``: a POST that reads a small JSON body and answers ``{}``. ``insert``: a POST that
runs one INSERT in its own SQLAlchemy transaction (``FLOOR_DB_URL``, SQLite with the site's
pragmas, or PostgreSQL) in FastAPI's thread pool, as a synchronous endpoint is. Run with
``uvicorn --factory bench.floor_apps:noop`` (or ``:insert``).
"""

from __future__ import annotations

import os
from typing import Any

from fastapi import FastAPI
from pydantic import BaseModel
from sqlalchemy import Column, Integer, MetaData, String, Table, create_engine, event


class Move(BaseModel):
    """The shape of a move's body."""

    action: dict[str, Any]
    expected_version: int


def noop() -> FastAPI:
    """A POST that parses its body and does nothing."""
    app = FastAPI()

    @app.post("/move")
    async def move(body: Move) -> dict[str, int]:
        return {}

    return app


def insert() -> FastAPI:
    """A POST that inserts one row in a transaction of its own."""
    url = os.environ["FLOOR_DB_URL"]
    engine = create_engine(url)
    if url.startswith("sqlite"):

        @event.listens_for(engine, "connect")
        def _pragmas(connection: Any, _record: Any) -> None:
            cursor = connection.cursor()
            for pragma in ("journal_mode=WAL", "synchronous=NORMAL", "busy_timeout=30000"):
                cursor.execute(f"PRAGMA {pragma}")
            cursor.close()

    metadata = MetaData()
    moves = Table(
        "floor_moves",
        metadata,
        Column("id", Integer, primary_key=True),
        Column("version", Integer, nullable=False),
        Column("action", String, nullable=False),
    )
    metadata.create_all(engine)
    app = FastAPI()

    @app.post("/move")
    def move(body: Move) -> dict[str, int]:
        with engine.begin() as connection:
            connection.execute(
                moves.insert().values(version=body.expected_version, action=str(body.action))
            )
        return {}

    return app
