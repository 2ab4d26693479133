"""The timeout ban: who ran out of time in a tournament game sits out of new tournaments.

A player who timed out of tournament games may not join another tournament until they have
finished more games than they timed out of: counted since their latest tournament timeout,
any finished game in which their seat played to the end (not resigned, not timed out, not
left to the autopilot). Two indexed reads: the player's timeouts (``seat_timeouts`` by
user, joined to the tournament tables by game) and their games since.
"""

from __future__ import annotations

from typing import cast

from sqlalchemy import Connection, Table, func, select

from dicehall.server.core.clock import aware
from dicehall.server.core.models import SeatTimeout
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.games.records import GAMES, SEATS
from dicehall.server.domain.tournaments.rows import TABLES

SEAT_TIMEOUTS = cast(Table, SeatTimeout.__table__)


def games_to_finish(conn: Connection, user_pk: int) -> int:
    """How many more games ``user_pk`` must finish before joining a tournament (0: none)."""
    timeouts = conn.execute(
        select(func.count(func.distinct(SEAT_TIMEOUTS.c.game_id)), func.max(SEAT_TIMEOUTS.c.at))
        .select_from(SEAT_TIMEOUTS.join(TABLES, TABLES.c.game_id == SEAT_TIMEOUTS.c.game_id))
        .where(SEAT_TIMEOUTS.c.user_pk == user_pk)
    ).one()
    count, latest = int(timeouts[0] or 0), timeouts[1]
    if not count or latest is None:
        return 0
    needed = count + 1
    finished = conn.execute(
        select(func.count()).select_from(
            select(SEATS.c.game_id)
            .join(GAMES, GAMES.c.id == SEATS.c.game_id)
            .where(
                SEATS.c.user_pk == user_pk,
                SEATS.c.status == "playing",
                GAMES.c.status == "finished",
                GAMES.c.ended_at > aware(latest),
            )
            .limit(needed)
            .subquery()
        )
    ).scalar_one()
    return max(0, needed - int(finished))


def ban_of(conn: Connection, user_pk: int) -> Refused | None:
    """The refusal a banned player gets (403 ``tournament_ban``), or None."""
    left = games_to_finish(conn, user_pk)
    if not left:
        return None
    games = "game" if left == 1 else "games"
    return Refused(
        "forbidden",
        "tournament_ban",
        f"you ran out of time in a tournament game: finish {left} more {games} before "
        "joining another tournament",
        games_left=left,
    )
