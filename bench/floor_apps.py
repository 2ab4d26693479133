"""The floor of the site's stack, for bench/floor.py: FastAPI apps that do (almost) nothing.

``noop``: a POST that reads a small JSON body and answers ``{}``. ``insert``: a POST that
runs one INSERT in its own transaction (``FLOOR_DB_URL``) in FastAPI's thread pool, as a
synchronous endpoint is, on the site's own engine (:func:`dicehall.server.core.db.make_engine`:
the same pool sizes, SQLite pragmas and PostgreSQL idle ping) and begun the way the site's
writers begin theirs (``sqlite_begin="IMMEDIATE"``: BEGIN IMMEDIATE on SQLite; the site's
process-wide write lock is left out).

Run one as ``dicehall serve`` runs the site (one uvicorn worker, the site's
:func:`~dicehall.server.http.limits.server_options` and log configuration, so the same HTTP
protocol class and event loop)::

    python -m bench.floor_apps noop|insert --port PORT
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from fastapi import FastAPI
from pydantic import BaseModel
from sqlalchemy import Column, Integer, MetaData, String, Table

from dicehall.server.core.config import Settings
from dicehall.server.core.db import make_engine

APPS = ("noop", "insert")


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
    """A POST that inserts one row in a transaction of its own, as the site's writers do."""
    engine = make_engine(os.environ["FLOOR_DB_URL"])
    # ``Services.write_conn``: a connection of the write engine, then its transaction.
    writer = engine.execution_options(sqlite_begin="IMMEDIATE")
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
        with writer.connect() as connection, connection.begin():
            connection.execute(
                moves.insert().values(version=body.expected_version, action=str(body.action))
            )
        return {}

    return app


def uvicorn_options() -> dict[str, Any]:
    """What ``dicehall serve`` gives ``uvicorn.run`` besides the app, host, port and workers:
    the site's log configuration and server options (its HTTP protocol class, limits and
    keep-alive; the event loop is uvicorn's default, ``auto``)."""
    from dicehall.server.http.accesslog import serve_log_config
    from dicehall.server.http.limits import server_options

    settings = Settings(db_url=os.environ.get("FLOOR_DB_URL") or "sqlite://")
    return {
        "log_level": "warning",
        "log_config": serve_log_config(),
        **server_options(settings),
    }


def main() -> None:
    """One floor app on 127.0.0.1, one worker, under the site's uvicorn options."""
    parser = argparse.ArgumentParser(description="a floor app under the site's uvicorn options")
    parser.add_argument("app", choices=APPS)
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    import uvicorn

    uvicorn.run(
        f"bench.floor_apps:{args.app}",
        factory=True,
        host="127.0.0.1",
        port=args.port,
        workers=1,
        **uvicorn_options(),
    )


if __name__ == "__main__":
    main()
