"""Spectators: the games in progress I may watch, and the users the players invite to watch a
private game. (A spectator's board follows its game over the push socket, ``?watch=ID``.)

This router is included before the games router: ``/games/live`` would otherwise be taken
for a game id by ``/games/{game_id}``.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query
from pydantic import BaseModel, Field

from dicehall.server.api.deps import CurrentUser, OptionalUser, ServicesDep
from dicehall.server.api.params import GameId, QueryId
from dicehall.server.api.rules import GameName
from dicehall.server.api.schemas import GameSummary, Watchers, errors
from dicehall.server.domain.games import watching
from dicehall.server.domain.services import Services
from dicehall.server.domain.work import read, run_db, write

router = APIRouter(prefix="/api/v1", tags=["games"])

UserId = Annotated[str, Path(min_length=1, max_length=40, description="The user's id.")]


class InviteWatcher(BaseModel):
    """Whom to invite to watch."""

    user: str = Field(min_length=1, max_length=40, description="The user id to invite.")


@router.get(
    "/games/live",
    operation_id="games-live",
    response_model=list[GameSummary],
    responses=errors(401, 422),
)
async def live(
    services: ServicesDep,
    user: OptionalUser,
    game: Annotated[GameName | None, Query(description="Only this game.")] = None,
    limit: Annotated[int, Query(ge=1, le=watching.LIVE_PAGE_MAX)] = watching.LIVE_PAGE,
    before: QueryId = None,
) -> list[dict[str, Any]]:
    """Games in progress that I may watch (public ones, and private ones I play in or was
    invited to watch), newest first; ``before=ID`` (the last id of a page) gives the next
    page."""
    return await run_db(
        services,
        read,
        services,
        lambda conn: watching.live_games(conn, user, game, limit, before),
    )


async def _answer(services: Services, game_id: int, invited: list[str]) -> dict[str, Any]:
    count, _seq = await services.broker.watching(game_id)
    return {"watchers": invited, "watching": count}


@router.get(
    "/games/{game_id}/watchers",
    operation_id="games-watchers",
    response_model=Watchers,
    responses=errors(401, 404, 422),
)
async def watchers(game_id: GameId, services: ServicesDep, user: OptionalUser) -> dict[str, Any]:
    """The users invited to watch the game, and how many spectators watch it now."""
    invited = await run_db(
        services, read, services, lambda conn: watching.watchers(conn, game_id, user)
    )
    return await _answer(services, game_id, invited)


@router.post(
    "/games/{game_id}/watchers",
    operation_id="games-watchers-invite",
    response_model=Watchers,
    responses=errors(400, 401, 403, 404, 422, 503),
)
async def invite(
    game_id: GameId, body: InviteWatcher, user: CurrentUser, services: ServicesDep
) -> dict[str, Any]:
    """Invite a user to watch a game I play in (what lets them watch a private game).
    Inviting twice, or a player of the game, changes nothing."""
    invited = await run_db(
        services, write, services, lambda conn: watching.invite(conn, game_id, user, body.user)
    )
    return await _answer(services, game_id, invited)


@router.delete(
    "/games/{game_id}/watchers/{user_id}",
    operation_id="games-watchers-remove",
    response_model=Watchers,
    responses=errors(401, 403, 404, 422, 503),
)
async def uninvite(
    game_id: GameId, user_id: UserId, user: CurrentUser, services: ServicesDep
) -> dict[str, Any]:
    """Withdraw a user's invitation to watch a game I play in: their boards stop following
    a private game at once. Withdrawing twice changes nothing."""
    invited, shut_out = await run_db(
        services, write, services, lambda conn: watching.uninvite(conn, game_id, user, user_id)
    )
    if shut_out is not None:
        services.broker.end_watch(game_id, shut_out, "you may no longer watch this game")
    return await _answer(services, game_id, invited)
