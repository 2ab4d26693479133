"""The ratings API: the rating kinds, each kind's leaderboard, and a user's rating history.

A rating shows as 1500 + 40 per unit of openskill's mu, provisional ("1540?") below 10 rated
games or while its sigma is large. A leaderboard lists the players with a rated game in the
last 30 days: those with 10 rated games or more first, then those with fewer (provisional),
each part ranked by mu - 2 sigma (from the stored values; see
:mod:`dicehall.server.domain.ratings.leaderboard`), a page at a time. A user's ratings
are on their profile (``GET /api/v1/users/{user_id}``, ``ratings``).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from sqlalchemy import Connection

from dicehall.server.api.deps import ServicesDep
from dicehall.server.api.ratings_schemas import Leaderboard, RatingHistory, RatingKinds
from dicehall.server.api.rules import Rule
from dicehall.server.api.schemas import errors
from dicehall.server.domain import history as users
from dicehall.server.domain.ratings import history, leaderboard
from dicehall.server.domain.work import read, run_db

router = APIRouter(prefix="/api/v1", tags=["ratings"])

Cursor = Annotated[str | None, Query(max_length=200, description="`next` of the previous page.")]


@router.get(
    "/ratings",
    operation_id="ratings-kinds",
    response_model=RatingKinds,
    responses=errors(),
)
async def kinds() -> dict[str, Any]:
    """Every rating kind (which games count for it), and who leaderboards list."""
    return {
        "kinds": leaderboard.kinds_listing(),
        "listed_games": leaderboard.LISTED_GAMES,
        "active_days": leaderboard.ACTIVE_DAYS,
    }


@router.get(
    "/ratings/{kind}",
    operation_id="ratings-leaderboard",
    response_model=Leaderboard,
    responses=errors(404, 422),
)
async def board(
    kind: str,
    services: ServicesDep,
    cursor: Cursor = None,
    limit: Annotated[
        int,
        Query(description=f"Players per page, 1 to {leaderboard.PAGE_MAX}."),
        Rule(minimum=1, maximum=leaderboard.PAGE_MAX),
    ] = leaderboard.PAGE,
) -> dict[str, Any]:
    """The leaderboard of one rating kind, best first, a page at a time: follow ``next``
    until it is null. 404 ``no_such_rating`` for an unknown kind; 422 ``invalid_cursor``,
    ``invalid_limit``."""
    return await run_db(
        services,
        read,
        services,
        lambda conn: leaderboard.leaderboard(conn, kind, cursor, limit),
    )


@router.get(
    "/users/{user_id}/ratings/{kind}/history",
    operation_id="users-rating-history",
    response_model=RatingHistory,
    responses=errors(404, 422),
)
async def rating_history(
    user_id: str,
    kind: str,
    services: ServicesDep,
    cursor: Cursor = None,
    limit: Annotated[
        int,
        Query(description=f"Games per page, 1 to {leaderboard.PAGE_MAX}."),
        Rule(minimum=1, maximum=leaderboard.PAGE_MAX),
    ] = history.PAGE,
) -> dict[str, Any]:
    """What each rated game of ``kind`` did to the user's rating, newest first, a page at a
    time: follow ``next`` until it is null. 404 ``no_such_user``, ``no_such_rating``; 422
    ``invalid_cursor``, ``invalid_limit``."""

    def work(conn: Connection) -> dict[str, Any]:
        player = users.find_player(conn, user_id)
        return {
            "user": player.user_id,
            **history.history(conn, player.pk, kind, cursor, limit),
        }

    return await run_db(services, read, services, work)


__all__ = ["router"]
