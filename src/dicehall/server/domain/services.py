"""Everything a request handler needs, built once per application."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from argon2 import PasswordHasher
from sqlalchemy import Connection, Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from dicehall.server.core import txn
from dicehall.server.core.config import Settings
from dicehall.server.core.db import is_sqlite, make_engine, migrate, session_factory
from dicehall.server.core.writelock import WriteLock
from dicehall.server.domain.dice.decks import DeckPool
from dicehall.server.domain.dice.pool import DicePool
from dicehall.server.domain.people import search
from dicehall.server.infra.login_throttle import AccountThrottle, MemoryThrottle, make_throttle
from dicehall.server.infra.presence import MemoryPresence, Presence, make_presence
from dicehall.server.infra.push import Broker, make_broker
from dicehall.server.infra.ratelimit import RateLimiter, make_limiter


@dataclass
class Services:
    """The application's long-lived parts."""

    settings: Settings
    engine: Engine
    write_engine: Engine
    sessions: sessionmaker[Session]
    writers: sessionmaker[Session]
    pool: DicePool
    broker: Broker
    hasher: PasswordHasher
    limiter: RateLimiter
    write_lock: AbstractContextManager[Any] = field(default_factory=nullcontext)
    #: Who is here (in memory, or shared through Redis).
    presence: Presence = field(default_factory=MemoryPresence)
    #: The per-account delay between log-in tries (in memory, or shared through Redis).
    throttle: AccountThrottle = field(default_factory=MemoryThrottle)

    @contextmanager
    def write_conn(self) -> Iterator[Connection]:
        """Like :meth:`write`, as a Core connection (the games' hot path).

        Callbacks registered with :func:`dicehall.server.core.txn.after_commit` run once the
        transaction has committed, and are dropped if it rolls back.
        """
        with self.write_lock, self.write_engine.connect() as conn:
            txn.bind_publisher(conn, self.broker.publish)
            txn.bind_tournament_publisher(conn, self.broker.publish_tournament)
            txn.bind_site_publisher(conn, self.broker.publish_site)
            try:
                with conn.begin():
                    yield conn
            except BaseException:
                # A connection that dropped is invalidated: its callbacks went with it (a
                # record's info is cleared when it reconnects), and touching ``conn.info``
                # now would connect again, or fail again and hide the first error.
                if not conn.invalidated:
                    txn.rolled_back(conn)
                raise
            txn.committed(conn)

    @contextmanager
    def read_conn(self) -> Iterator[Connection]:
        """A Core connection for reads."""
        with self.engine.connect() as conn:
            yield conn

    @contextmanager
    def write(self) -> Iterator[Session]:
        """A read-modify-write transaction, committed on success.

        On SQLite, writers of this process queue on a lock instead of polling SQLite's busy
        handler, which would otherwise sleep in steps of milliseconds under contention.
        """
        with self.write_lock, self.writers() as db, db.begin():
            yield db


def build_services(settings: Settings) -> Services:
    """Connect, migrate, fill the dice pool and start the push broker."""
    engine = make_engine(settings.db_url)
    migrate(engine)
    sessions = session_factory(engine)
    decks = DeckPool(settings.deck_keys, settings.deck_shuffles, settings.deck_reserve)
    pool = DicePool(settings.dice_batch_size, settings.bag_batch_size, decks)
    write_engine = engine.execution_options(sqlite_begin="IMMEDIATE")
    writers = sessionmaker(write_engine, expire_on_commit=False)
    database = engine.url.database
    lock: AbstractContextManager[Any] = (
        WriteLock(
            Path(database) if database and database != ":memory:" else None,
            settings.write_lock_timeout,
        )
        if is_sqlite(engine)
        else nullcontext()
    )
    hasher = PasswordHasher(
        time_cost=settings.argon2_time_cost, memory_cost=settings.argon2_memory_kib
    )
    broker = make_broker(settings)
    services = Services(
        settings,
        engine,
        write_engine,
        sessions,
        writers,
        pool,
        broker,
        hasher,
        make_limiter(settings),
        lock,
        make_presence(settings),
        make_throttle(settings),
    )
    pool.ensure_reserve(services.write_conn)
    _give_search_terms(services)
    return services


def _give_search_terms(services: Services) -> None:
    """Accounts from before search get their terms (one indexed probe per user when none
    is missing)."""
    try:
        with services.write_conn() as conn:
            search.ensure_terms(conn)
    except IntegrityError:
        pass  # another process starting at the same moment gave the same terms
