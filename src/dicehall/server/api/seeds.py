"""A seat's seed for a game's dice (scheme 3): the player's own entropy, after the site
committed to the game's deck. The board sends one on its own; API clients may send theirs."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from dicehall.server.api.deps import CurrentUser, ServicesDep
from dicehall.server.api.params import GameId
from dicehall.server.api.schemas import _Answer, errors
from dicehall.server.domain.games import seeds
from dicehall.server.domain.work import run_db, write

router = APIRouter(prefix="/api/v1", tags=["games"])


class SeedIn(BaseModel):
    """A seed: 2 to 128 hexadecimal digits (1 to 64 bytes); 32 random bytes is plenty."""

    model_config = ConfigDict(extra="forbid")

    seed: str = Field(min_length=2, max_length=128, pattern="^([0-9a-fA-F]{2})+$")


class SeedOut(_Answer):
    """A seed recorded, and the first roll and hand it counts for."""

    game: int
    seat: int = Field(description="The caller's seat, from 0.")
    seed: str = Field(description="The seed as recorded (lower-case hex).")
    from_key: int = Field(description="The game's first roll (key) it is mixed into.")
    from_shuffle: int = Field(description="The game's first hand (shuffle) it is mixed into.")


@router.post(
    "/games/{game_id}/seed",
    operation_id="games-seed",
    response_model=SeedOut,
    responses=errors(400, 401, 403, 404, 409, 422, 503),
)
async def give_seed(
    game_id: GameId, body: SeedIn, user: CurrentUser, services: ServicesDep
) -> dict[str, Any]:
    """Send my seat's seed for this game, once: it is mixed into every roll and hand from
    the next on, so that no one, the site included, could have chosen them (the game's deck
    was committed before). 409 `seed_set` when my seat has one; 409 `no_deck` for a game
    from before decks; 409 `finished` once the game is over."""
    return await run_db(
        services, write, services, lambda conn: seeds.give_seed(conn, user, game_id, body.seed)
    )
