"""Games open in a tab: a player's push socket that follows their game is noted in
``game_views`` (every process and machine of the site reads the same rows), refreshed while
it lives and marked closed when it ends. Notices about a game open in a tab are not sent to
its player's channels (they are looking at it), and an e-mail waits until the game has not
been open for a while."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, cast

import anyio.to_thread
from sqlalchemy import Connection, Table, delete, func, insert, select, update

from dicehall.server.core.clock import aware, now
from dicehall.server.core.models import GameView

if TYPE_CHECKING:
    from dicehall.server.domain.services import Services

log = logging.getLogger(__name__)

VIEWS = cast(Table, GameView.__table__)
#: Seconds between two refreshes of an open socket's row.
REFRESH_SECONDS = 30.0
#: A row not refreshed for this long belongs to a socket whose process died.
STALE_SECONDS = 3 * REFRESH_SECONDS
#: Closed rows older than this are removed (nothing asks about them any more).
FORGET_SECONDS = 86400.0


def opened(conn: Connection, socket: str, user_pk: int, game_id: int, at: datetime) -> None:
    """Note that ``user_pk`` has game ``game_id`` open through ``socket``."""
    conn.execute(insert(VIEWS).values(socket=socket, user_pk=user_pk, game_id=game_id, seen_at=at))


def refreshed(conn: Connection, socket: str, at: datetime) -> None:
    """The socket is still open at ``at``."""
    conn.execute(update(VIEWS).where(VIEWS.c.socket == socket).values(seen_at=at))


def closed(conn: Connection, socket: str, at: datetime) -> None:
    """The socket closed at ``at``; closed rows of a day ago go."""
    conn.execute(update(VIEWS).where(VIEWS.c.socket == socket).values(seen_at=at, closed_at=at))
    conn.execute(delete(VIEWS).where(VIEWS.c.closed_at < at - timedelta(seconds=FORGET_SECONDS)))


@dataclass(frozen=True)
class Seen:
    """Whether a player has a game open in a tab now, and when they last had it open."""

    open: bool
    last: datetime | None


def seen(conn: Connection, user_pk: int, game_id: int, at: datetime) -> Seen:
    """Whether ``user_pk`` has game ``game_id`` open at ``at``, and when one of their tabs
    last had it (None: not in the last day)."""
    rows = conn.execute(
        select(VIEWS.c.seen_at, VIEWS.c.closed_at).where(
            VIEWS.c.user_pk == user_pk, VIEWS.c.game_id == game_id
        )
    ).all()
    latest: datetime | None = None
    for row in rows:
        moment = aware(row.seen_at)
        if row.closed_at is None and (at - moment).total_seconds() < STALE_SECONDS:
            return Seen(True, at)
        latest = moment if latest is None else max(latest, moment)
    return Seen(False, latest)


def open_count(conn: Connection) -> int:
    """How many game tabs are open now (for metrics and tests)."""
    fresh = now() - timedelta(seconds=STALE_SECONDS)
    return int(
        conn.execute(
            select(func.count())
            .select_from(VIEWS)
            .where(VIEWS.c.closed_at.is_(None), VIEWS.c.seen_at >= fresh)
        ).scalar_one()
    )


def _write(services: Services, work: str, socket: str, user_pk: int, game_id: int) -> None:
    try:
        with services.write_conn() as conn:
            if work == "open":
                opened(conn, socket, user_pk, game_id, now())
            elif work == "refresh":
                refreshed(conn, socket, now())
            else:
                closed(conn, socket, now())
    except Exception:
        # A busy or unreachable database must not close the player's socket: at worst a
        # notice reaches a channel while the game is open.
        log.warning("could not note game %s %s for user %s", game_id, work, user_pk)


@contextlib.asynccontextmanager
async def kept_open(services: Services, user_pk: int, game_id: int) -> AsyncIterator[None]:
    """While the context is open (a player's socket following their game), the game counts
    as open in their tab."""
    socket = secrets.token_hex(16)

    async def beat() -> None:
        while True:
            await asyncio.sleep(REFRESH_SECONDS)
            await anyio.to_thread.run_sync(_write, services, "refresh", socket, user_pk, game_id)

    await anyio.to_thread.run_sync(_write, services, "open", socket, user_pk, game_id)
    task = asyncio.create_task(beat())
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(_write, services, "close", socket, user_pk, game_id)
