"""The board's optional odds and hints, for the caller's own seat only."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from dicehall.server import gameservice
from dicehall.server.api.deps import ServicesDep
from dicehall.server.api.errors import ApiError
from dicehall.server.api.games import UserDep, run_db
from dicehall.server.hints import hint_for
from dicehall.server.models import User
from dicehall.server.services import Services

router = APIRouter(prefix="/api/v1", tags=["games"])


def _hint(services: Services, game_id: int, user: User) -> dict[str, Any]:
    with services.read_conn() as conn:
        record = gameservice.fetch_game(conn, game_id)
        seats = gameservice.seats_of(conn, game_id)
    mine = [s.seat for s in seats if s.user_pk == user.id]
    if not mine:
        raise ApiError(403, "not_your_game", "hints are for the players of a game")
    if record.status != "active":
        raise ApiError(409, "not_active", "hints are for games in progress")
    function = hint_for(record.kind)
    if function is None:
        raise ApiError(404, "no_hints", "this game has no hints yet")
    game = gameservice.entry_of(record.kind).game
    state = gameservice.load_state(record)
    return {
        "game": record.kind,
        "version": record.version,
        "hint": function(game.view(state, mine[0]), game.legal(state, mine[0])),
    }


@router.get("/games/{game_id}/hint")
async def hint(game_id: int, user: UserDep, services: ServicesDep) -> dict[str, Any]:
    """Odds and the best choice for my seat, computed from my seat's view only."""
    return await run_db(services, _hint, services, game_id, user)
