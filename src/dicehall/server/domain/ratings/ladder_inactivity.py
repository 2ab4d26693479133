"""Inactivity on a ladder, and ladder vacation.

A player with no ladder game finished or in progress for 14 days drops 5 places (those
passed move up one each), and again every 7 days after that, until they play. The schedule
is kept in two columns: ``active_at`` (the last ladder game started or finished) and
``dropped_at`` (when the last drop was due); the next drop is due at the later of
``active_at + 14 days`` and ``dropped_at + 7 days``. A run applies every drop due by its
moment (several for a player when no run happened for weeks) and writes ``dropped_at``, so
running it again, or in two processes at once, drops nobody twice.

Ladder vacation, up to 30 days per calendar year (UTC), pauses that clock: taking ``n``
days applies any drop already due, then moves ``active_at`` and ``dropped_at`` ``n`` days
later, so the next drop comes ``n`` days later than it would have.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, select, update

from dicehall.server.core.clock import aware
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.ratings import kinds, ladder_moves
from dicehall.server.domain.ratings.ladder_moves import POSITIONS

#: Idle this long before the first drop, then a drop every week, of this many places.
IDLE_DAYS = 14
DROP_EVERY_DAYS = 7
DROP_PLACES = 5
#: Ladder vacation a player may take in one calendar year, per ladder.
VACATION_DAYS_A_YEAR = 30
#: The most drops one run applies (the rest wait for the next run).
MOST_DROPS_A_RUN = 500


def drop_due(active_at: datetime, dropped_at: datetime | None) -> datetime:
    """When a player last active at ``active_at`` and last dropped at ``dropped_at`` drops
    next (if they have no ladder game in progress by then)."""
    first = aware(active_at) + timedelta(days=IDLE_DAYS)
    if dropped_at is None:
        return first
    return max(first, aware(dropped_at) + timedelta(days=DROP_EVERY_DAYS))


def vacation_left(row: Any, at: datetime) -> int:
    """Days of ladder vacation a position row has left in ``at``'s year."""
    used = int(row.vacation_days) if int(row.vacation_year) == at.year else 0
    return max(0, VACATION_DAYS_A_YEAR - used)


def _due_rows(conn: Connection, kind: str | None, at: datetime, limit: int) -> list[Any]:
    # Exactly the players whose next drop is due by ``at`` (see drop_due), not in a game.
    query = select(
        POSITIONS.c.kind,
        POSITIONS.c.user_pk,
        POSITIONS.c.position,
        POSITIONS.c.active_at,
        POSITIONS.c.dropped_at,
    ).where(
        POSITIONS.c.active_at <= at - timedelta(days=IDLE_DAYS),
        POSITIONS.c.dropped_at.is_(None)
        | (POSITIONS.c.dropped_at <= at - timedelta(days=DROP_EVERY_DAYS)),
        ~ladder_moves.in_open_game(),
    )
    if kind is not None:
        query = query.where(POSITIONS.c.kind == kind)
    return list(conn.execute(query.order_by(POSITIONS.c.position).limit(limit)).all())


def work_due(conn: Connection, at: datetime) -> bool:
    """Whether some drop is due by ``at`` (a cheap read before the job's write)."""
    return bool(_due_rows(conn, None, at, 1))


def apply_inactivity(conn: Connection, at: datetime, limit: int = MOST_DROPS_A_RUN) -> int:
    """Apply every inactivity drop due by ``at`` (up to ``limit``); how many were applied.

    Safe with several processes on several machines: on PostgreSQL one run at a time holds
    the job's lock (another skips its turn), each ladder is changed under its lock, and who
    is due is read under it; SQLite's writers take turns. A drop writes ``dropped_at``, so
    nothing is applied twice."""
    if not ladder_moves.try_job_lock(conn):
        return 0
    applied = 0
    for kind in kinds.ladder_names():
        if applied >= limit or not _due_rows(conn, kind, at, 1):
            continue
        ladder_moves.lock(conn, kind)
        applied += _drop_due(conn, kind, _due_rows(conn, kind, at, limit), at, limit - applied)
    return applied


def _drop_due(conn: Connection, kind: str, rows: list[Any], at: datetime, limit: int) -> int:
    # In the order the drops fell due (then from the top), each player as often as due.
    queue = [(drop_due(r.active_at, r.dropped_at), r.position, r.user_pk) for r in rows]
    heapq.heapify(queue)
    applied = 0
    while queue and applied < limit:
        due, position, user_pk = heapq.heappop(queue)
        ladder_moves.drop(conn, kind, user_pk, DROP_PLACES, at)
        conn.execute(
            update(POSITIONS)
            .where(POSITIONS.c.kind == kind, POSITIONS.c.user_pk == user_pk)
            .values(dropped_at=due)
        )
        applied += 1
        following = due + timedelta(days=DROP_EVERY_DAYS)
        if following <= at:
            heapq.heappush(queue, (following, position, user_pk))
    return applied


@dataclass(frozen=True)
class Vacation:
    """A player's ladder vacation after taking some."""

    until: datetime
    days_left: int


def take_vacation(conn: Connection, kind: str, user_pk: int, days: int, at: datetime) -> Vacation:
    """Pause ``user_pk``'s inactivity clock on ladder ``kind`` for ``days`` days (added to
    a vacation still running). Refused: not on the ladder (409), 1 to 30 days and no more
    than are left this year (422)."""
    if not 1 <= days <= VACATION_DAYS_A_YEAR:
        raise Refused(
            "invalid", "invalid_days", f"ladder vacation is 1 to {VACATION_DAYS_A_YEAR} days"
        )
    ladder_moves.lock(conn, kind)
    if ladder_moves.position_of(conn, kind, user_pk) is None:
        raise not_on_ladder(kind)
    mine = POSITIONS.c.kind == kind, POSITIONS.c.user_pk == user_pk
    # A drop already due is not undone by going away afterwards.
    due = [r for r in _due_rows(conn, kind, at, MOST_DROPS_A_RUN) if r.user_pk == user_pk]
    _drop_due(conn, kind, due, at, MOST_DROPS_A_RUN)
    row = conn.execute(select(POSITIONS).where(*mine)).one()
    left = vacation_left(row, at)
    if days > left:
        raise Refused(
            "invalid",
            "not_enough_ladder_vacation",
            f"you have {left} days of ladder vacation left this year on this ladder",
        )
    pause = timedelta(days=days)
    running = None if row.vacation_until is None else aware(row.vacation_until)
    until = max(at, running or at) + pause
    conn.execute(
        update(POSITIONS)
        .where(*mine)
        .values(
            active_at=aware(row.active_at) + pause,
            dropped_at=None if row.dropped_at is None else aware(row.dropped_at) + pause,
            vacation_until=until,
            vacation_days=VACATION_DAYS_A_YEAR - left + days,
            vacation_year=at.year,
        )
    )
    return Vacation(until, left - days)


def not_on_ladder(kind: str) -> Refused:
    """The refusal for a player not on ladder ``kind``."""
    return Refused("conflict", "not_on_ladder", f"you are not on the {kinds.title(kind)} ladder")
