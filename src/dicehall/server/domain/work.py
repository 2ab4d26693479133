"""Running the site's database work for a request or a page.

Blocking work runs in the thread pool, never on the event loop (a wait for SQLite's write
lock or a slow PostgreSQL must not stall every other request); a write that finds the dice
pool empty is retried once after topping it up; pushes go out after the commit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import anyio.to_thread
from sqlalchemy import Connection

from dicehall.server.domain.dice.pool import PoolEmpty
from dicehall.server.domain.games.reading import pushes
from dicehall.server.domain.games.records import GameRecord, SeatInfo
from dicehall.server.domain.games.watching import spectator_push
from dicehall.server.domain.services import Services

T = TypeVar("T")


async def run_db(services: Services, fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` in the thread pool (``services`` names the site whose work it is)."""
    del services
    return await anyio.to_thread.run_sync(lambda: fn(*args))


def write(services: Services, work: Callable[[Connection], T]) -> T:
    """Run a write transaction, topping the dice pool up once if it ran dry."""
    for attempt in range(2):
        try:
            with services.write_conn() as conn:
                return work(conn)
        except PoolEmpty:
            if attempt:
                raise
            services.pool.ensure_reserve(services.write_conn)
    raise AssertionError("unreachable")  # pragma: no cover


def read(services: Services, work: Callable[[Connection], T]) -> T:
    """Run a read-only transaction."""
    with services.read_conn() as conn:
        return work(conn)


def notify(services: Services, record: GameRecord, seats: list[SeatInfo]) -> None:
    """Push a game's change to each of its seated users and to its spectators (after the
    commit)."""
    for user_pk, message in pushes(record, seats):
        services.broker.publish(user_pk, message)
    services.broker.publish_game(record.id, spectator_push(record))
