"""Singularity, the site's pulse: live counts and the latest moments worth a look from
finished public games and tournaments (see ``domain.singularity``). A page or program
following the push socket with ``?singularity=1`` hears when to ask again."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import Field

from dicehall.server.api.deps import OptionalUser, ServicesDep
from dicehall.server.api.schemas import _Answer, _moment, errors
from dicehall.server.domain.singularity import feed, pulse
from dicehall.server.domain.work import read, run_db

router = APIRouter(prefix="/api/v1", tags=["games"])


class PulsePlaying(_Answer):
    """Games in progress of one game and variant."""

    game: str = Field(description="The game's kind (`boatzee`, ...).")
    title: str = Field(description='Its name as the options make it ("Double Boatzee").')
    games: int


class PulseCounts(_Answer):
    """The site's pulse in numbers (kept for up to 10 seconds)."""

    online: int = Field(description="Members online now (members who hide are not counted).")
    in_progress: int = Field(description="Games in progress, of every kind.")
    playing: list[PulsePlaying] = Field(
        description="Games in progress by game and variant, in the site's order of games."
    )
    moves_last_hour: int = Field(description="Moves made (by people and bots) in the last hour.")
    finished_today: int = Field(
        description="Games finished since midnight in my time zone (UTC for a visitor)."
    )
    tournaments_running: int


class PulsePlayer(_Answer):
    """Whom a moment is about."""

    name: str = Field(description="The member's user id, or the bot's name.")
    user_id: str | None = Field(description="The member's user id; null for a bot.")


class PulseMoment(_Answer):
    """One moment worth a look."""

    id: int = Field(description="Larger for later moments.")
    what: str = Field(
        description="`boatzee`, `turn` (a big Ten Thousand turn), `pot`, `flush`, "
        "`bullseye`, `record` (a score that beat the site's record for its kind), "
        "`tournament` (a tournament's winner), or another game's own kind."
    )
    player: PulsePlayer
    text: str = Field(description='What they did, after their name ("rolled 2 Boatzees").')
    sentence: str = Field(description="The player's name and the text.")
    title: str = Field(description="The game's name as its options make it, or the tournament's.")
    game: int | None = Field(description="The finished game's id (null for a tournament).")
    tournament: int | None = Field(description="The tournament's id (null for a game).")
    value: int = Field(description="The moment's figure: how many, how big.")
    at: str = _moment()


class Singularity(_Answer):
    """Singularity: the counts now and the latest moments, newest first."""

    counts: PulseCounts
    moments: list[PulseMoment] = Field(
        description="From finished public games (no game of a member who hides from Who is "
        "here, nor of anyone across an ignore with me) and finished tournaments."
    )


@router.get(
    "/singularity",
    operation_id="singularity",
    response_model=Singularity,
    responses=errors(401, 422),
)
async def singularity_now(
    services: ServicesDep,
    user: OptionalUser,
    limit: Annotated[int, Query(ge=1, le=feed.MOST, description="Moments wanted.")] = feed.SHOWN,
) -> dict[str, Any]:
    """The site's pulse: members online, games in progress by variant, moves in the last
    hour, games finished today, tournaments running, and the latest moments worth a look."""
    found: pulse.Pulse = await run_db(
        services, read, services, lambda conn: pulse.pulse(conn, services, user, limit)
    )
    return found.as_json()


__all__ = ["router"]
