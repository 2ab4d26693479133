"""Alembic environment: runs on the connection dicehall hands it (see ``db.migrate``)."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from dicehall.server.core.models import Base

config = context.config
target_metadata = Base.metadata


def run_migrations() -> None:
    """Run on the given connection, or on ``sqlalchemy.url`` for the alembic command line."""
    connection = config.attributes.get("connection")
    if connection is None:
        # ``alembic -x url=...`` names the database; else alembic.ini's sqlalchemy.url.
        url = context.get_x_argument(as_dictionary=True).get("url")
        engine = create_engine(url or config.get_main_option("sqlalchemy.url") or "sqlite://")
        with engine.begin() as own:
            context.configure(connection=own, target_metadata=target_metadata, render_as_batch=True)
            context.run_migrations()
        return
    context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True)
    context.run_migrations()


run_migrations()
