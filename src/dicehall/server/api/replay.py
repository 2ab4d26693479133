"""The replay of a game that is over: every event, the position and the scores after it."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from dicehall.server.api.deps import OptionalUser, ServicesDep
from dicehall.server.api.params import GameId
from dicehall.server.api.schemas import Replay, errors
from dicehall.server.domain.games import replay as replays
from dicehall.server.domain.work import read, run_db

router = APIRouter(prefix="/api/v1", tags=["games"])


@router.get(
    "/games/{game_id}/replay",
    operation_id="games-replay",
    response_model=Replay,
    responses=errors(401, 404, 409, 422),
)
async def replay(game_id: GameId, services: ServicesDep, user: OptionalUser) -> dict[str, Any]:
    """A finished or aborted game, one frame per event of its log: the event and its
    sentences as a spectator may know them (dice never shown to the table stay hidden), a
    spectator's view of the position after it, and each seat's score then. A game still in
    play is a 409 ``in_progress``; a private game is a 404 to all but its players and
    watchers."""
    return await run_db(services, read, services, lambda conn: replays.replay(conn, game_id, user))
