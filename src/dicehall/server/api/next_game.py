"""The next game waiting on me (``GET /api/v1/games/next``), for the board's "Next game"
button and key.

This router is included before the games router: ``/games/next`` would otherwise be taken
for a game id by ``/games/{game_id}``.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import Field

from dicehall.server.api.deps import CurrentUser, ServicesDep
from dicehall.server.api.params import Digits
from dicehall.server.api.schemas import _Answer, errors
from dicehall.server.core.ids import DB_ID_MAX
from dicehall.server.domain.games.next_game import next_game
from dicehall.server.domain.work import read, run_db

router = APIRouter(prefix="/api/v1", tags=["games"])


class NextGame(_Answer):
    """The next game where it is my turn, and how many there are."""

    game: int | None = Field(
        description="The game to open: the least time left first, games without a clock "
        "after those with one, then the turn that began first; null: none waits on me."
    )
    waiting: int = Field(ge=0, description="How many games wait on my move (`skip` left out).")


@router.get(
    "/games/next",
    operation_id="games-next",
    response_model=NextGame,
    responses=errors(401, 422),
)
async def waiting_next(
    user: CurrentUser,
    services: ServicesDep,
    skip: Annotated[
        int | None,
        Query(ge=1, le=DB_ID_MAX, description="A game to leave out (the one on screen)."),
        Digits,
    ] = None,
) -> dict[str, int | None]:
    """The next game waiting on my move, least time left first."""
    found: dict[str, int | None] = await run_db(
        services, read, services, lambda conn: next_game(conn, user.id, skip)
    )
    return found


__all__ = ["router"]
