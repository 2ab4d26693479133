"""How reliable a player is, as a profile shows it: games finished, timeouts, and the median
time the player takes over a turn."""

from __future__ import annotations

import statistics
from typing import Any, cast

from sqlalchemy import Connection, Table, func, select

from dicehall.server.core.config import Settings
from dicehall.server.core.models import SeatTimeout, TurnTime
from dicehall.server.domain.games.ending import time_left
from dicehall.server.domain.games.quotas import GameLimits
from dicehall.server.domain.games.seat_results import SEAT_RECORDS

TIMEOUTS = cast(Table, SeatTimeout.__table__)
TURN_TIMES = cast(Table, TurnTime.__table__)

#: The median time per turn is taken over a player's most recent turns, at most this many.
RECENT_TURNS = 200


def games_finished(conn: Connection, user_pk: int) -> int:
    """How many games ``user_pk`` had a seat in that finished (with a result)."""
    return int(
        conn.execute(
            select(func.coalesce(func.sum(SEAT_RECORDS.c.games), 0)).where(
                SEAT_RECORDS.c.user_pk == user_pk
            )
        ).scalar_one()
    )


def timeouts(conn: Connection, user_pk: int) -> int:
    """How many times a seat of ``user_pk`` ran out of time."""
    return int(
        conn.execute(
            select(func.count()).select_from(TIMEOUTS).where(TIMEOUTS.c.user_pk == user_pk)
        ).scalar_one()
    )


def recent_turns(conn: Connection, user_pk: int, limit: int = RECENT_TURNS) -> list[float]:
    """The seconds ``user_pk`` took over each of their last ``limit`` turns, newest first."""
    rows = conn.execute(
        select(TURN_TIMES.c.seconds)
        .where(TURN_TIMES.c.user_pk == user_pk)
        .order_by(TURN_TIMES.c.id.desc())
        .limit(limit)
    ).scalars()
    return [float(seconds) for seconds in rows]


def median_turn(conn: Connection, user_pk: int) -> float | None:
    """The median seconds per turn over the last :data:`RECENT_TURNS` turns (None: no turn
    was timed yet)."""
    seconds = recent_turns(conn, user_pk)
    return statistics.median(seconds) if seconds else None


def reliability(conn: Connection, user_pk: int) -> dict[str, Any]:
    """A player's reliability as the API and the profile page show it."""
    median = median_turn(conn, user_pk)
    return {
        "games_finished": games_finished(conn, user_pk),
        "timeouts": timeouts(conn, user_pk),
        "median_turn_seconds": None if median is None else round(median, 1),
        "median_turn": None if median is None else time_left(median),
    }


def limits_of(settings: Settings) -> GameLimits:
    """The site's limits on games per player (settings ``max_active_games`` and
    ``max_open_games``)."""
    return GameLimits(settings.max_active_games, settings.max_open_games)
