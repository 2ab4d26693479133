"""The board's optional odds and hints, for the caller's own seat only."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request

from dicehall import games
from dicehall.server.api.deps import CurrentUser, ServicesDep
from dicehall.server.api.errors import ApiError
from dicehall.server.api.params import GameId
from dicehall.server.api.schemas import Hint, errors
from dicehall.server.core.models import User
from dicehall.server.domain.games.privacy import check_may_watch
from dicehall.server.domain.games.records import GameRecord, fetch_game, seats_of
from dicehall.server.domain.services import Services
from dicehall.server.domain.work import run_db
from dicehall.server.workers.hintwork import HintsBusy, HintService

router = APIRouter(prefix="/api/v1", tags=["games"])

#: Seconds a client is told to wait when the hint workers are busy.
RETRY_AFTER = 2


async def _hints(request: Request) -> HintService:
    service: HintService = request.app.state.hints
    return service


HintsDep = Annotated[HintService, Depends(_hints)]


def _asked(services: Services, game_id: int, user: User) -> tuple[GameRecord, str, int]:
    """The game, its stored state and the caller's seat, or why there is no hint to give."""
    with services.read_conn() as conn:
        record = fetch_game(conn, game_id)
        seats = seats_of(conn, game_id)
        check_may_watch(conn, record, seats, user.id)  # a stranger's private game: a 404
    mine = [s.seat for s in seats if s.user_pk == user.id]
    if not mine:
        raise ApiError(403, "not_your_game", "hints are for the players of a game")
    if record.status != "active" or record.snapshot is None:
        raise ApiError(409, "not_active", "hints are for games in progress")
    if games.get(record.kind).hint is None:
        raise ApiError(404, "no_hints", "this game has no hints yet")
    return record, record.snapshot, mine[0]


@router.get(
    "/games/{game_id}/hint",
    operation_id="games-hint",
    response_model=Hint,
    responses=errors(401, 403, 404, 409, 422, 503),
)
async def hint(
    game_id: GameId, user: CurrentUser, services: ServicesDep, hints: HintsDep
) -> dict[str, Any]:
    """Odds and the best choice for my seat, computed from my seat's view only.

    Worked out in a hint worker process; 503 with Retry-After when none is free in time.
    """
    record, state, seat = await run_db(services, _asked, services, game_id, user)
    try:
        found = await hints.hint(record.kind, state, seat)
    except HintsBusy as exc:
        raise ApiError(503, "hints_busy", str(exc), retry_after=RETRY_AFTER) from exc
    return {"game": record.kind, "version": record.version, "hint": found}
