"""A player's luck: their own shown rolls in finished games against what chance owed."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import Field

from dicehall.server.api.deps import ServicesDep
from dicehall.server.api.schemas import _Answer, errors
from dicehall.server.domain import luck
from dicehall.server.domain.work import read, run_db

router = APIRouter(prefix="/api/v1", tags=["people"])


class GameLuck(_Answer):
    """One finished game's count of the measure, for the player's own shown rolls."""

    game_id: int
    game: str
    ended_at: str | None = Field(description="When it ended (ISO 8601).")
    measure: str | None = Field(
        description='What is counted ("zero-outs", "Boatzees made by a roll", "sum of faces"); '
        "null for a game without a per-roll measure (Hold'em Dice: its dice are dealt)."
    )
    rolls: int = Field(description="The player's own shown rolls the measure looked at.")
    observed: int = Field(
        description="How many of them made the event (for sum of faces: the faces' sum)."
    )
    expected: float = Field(
        description="What chance owed: the sum of their probabilities (for sum of faces: "
        "3.5 a die)."
    )


class LuckTotal(_Answer):
    """One game's totals over the games shown, with a z-score."""

    game: str
    measure: str
    games: int
    rolls: int
    observed: int
    expected: float
    z: float | None = Field(
        description="(observed - expected) / standard deviation; null when nothing could vary."
    )


class LuckReport(_Answer):
    """A player's luck over their latest finished public games (at most 50)."""

    user: str
    games: list[GameLuck] = Field(description="Newest first.")
    totals: list[LuckTotal]
    note: str = Field(description="What chance alone explains, in words.")


@router.get(
    "/users/{user_id}/luck",
    operation_id="users-luck",
    response_model=LuckReport,
    responses=errors(404, 422),
)
async def user_luck(user_id: str, services: ServicesDep) -> dict[str, Any]:
    """How a player's own shown rolls in their latest finished public games compared with
    chance: Ten Thousand zero-outs and Boatzees made by a roll, each against its exact
    probability, and Boss Dice and Bull's Eye sums of faces against 3.5 a die, with totals and a
    z-score. Hidden dice (a folded pocket) never count.
    404 ``no_such_user``."""
    return await run_db(services, read, services, lambda conn: luck.luck_report(conn, user_id))
