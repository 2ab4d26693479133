"""Everything a request handler needs, built once per application."""

from __future__ import annotations

from dataclasses import dataclass

from argon2 import PasswordHasher
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from dicehall.server.config import Settings
from dicehall.server.db import make_engine, migrate, session_factory, writer_factory
from dicehall.server.pool import DicePool
from dicehall.server.push import Broker, make_broker


@dataclass
class Services:
    """The application's long-lived parts."""

    settings: Settings
    engine: Engine
    sessions: sessionmaker[Session]
    writers: sessionmaker[Session]
    pool: DicePool
    broker: Broker
    hasher: PasswordHasher


def build_services(settings: Settings) -> Services:
    """Connect, migrate, fill the dice pool and start the push broker."""
    engine = make_engine(settings.db_url)
    migrate(engine)
    sessions = session_factory(engine)
    pool = DicePool(settings.dice_batch_size)
    pool.ensure_reserve(sessions)
    hasher = PasswordHasher(
        time_cost=settings.argon2_time_cost, memory_cost=settings.argon2_memory_kib
    )
    return Services(
        settings,
        engine,
        sessions,
        writer_factory(engine),
        pool,
        make_broker(settings.redis_url),
        hasher,
    )
