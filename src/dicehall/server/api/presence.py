"""Who is here: the members online now and those here in the last minutes, with what each is
doing (see ``domain.people.here`` for what counts), and the counts anyone may read."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter
from pydantic import Field

from dicehall.server.api.deps import CurrentUser, ServicesDep
from dicehall.server.api.schemas import _Answer, _moment, errors
from dicehall.server.domain.people import here
from dicehall.server.domain.work import read, run_db

router = APIRouter(prefix="/api/v1", tags=["people"])


class PresenceDoing(_Answer):
    """What a listed member is doing."""

    what: Literal["playing", "looking", "idle"] = Field(
        description="`playing` a game in progress they sit in, `looking` for a game (the "
        "waiting room, a new-game page, or a seat in a game waiting for players), else `idle`."
    )
    game: int | None = Field(
        description="The game they play, when I may watch it (null otherwise)."
    )
    kind: str | None = Field(description="Its kind (`boatzee`, ...), when I may watch it.")


class PresenceEntry(_Answer):
    """A member on Who is here."""

    user_id: str
    display_name: str
    doing: PresenceDoing
    buddy: bool = Field(description="I name them a buddy (buddies come first).")
    seen_at: str = _moment()


class PresenceCounts(_Answer):
    """How many members are online, and how many more were here recently."""

    online: int = Field(description="Seen in the last 2 minutes.")
    recent: int = Field(description="Seen in the last 15 minutes, and not online.")


class PresenceList(_Answer):
    """Who is here as I see it (each list at most 200 long; the counts are of everyone I
    may see)."""

    online: list[PresenceEntry] = Field(
        description="Seen in the last 2 minutes: my buddies first, then by display name."
    )
    recent: list[PresenceEntry] = Field(
        description="Seen in the last 15 minutes, not online: my buddies first, then the "
        "most recently seen."
    )
    counts: PresenceCounts


@router.get(
    "/presence",
    operation_id="presence-list",
    response_model=PresenceList,
    responses=errors(401),
)
async def presence_list(user: CurrentUser, services: ServicesDep) -> dict[str, Any]:
    """Who is here: members online (an open page or API use in the last 2 minutes) and
    recently here (the last 15 minutes), with what each is doing. Members who hide from the
    list, and anyone across an ignore with me, are left out."""
    found: here.Here = await run_db(
        services, read, services, lambda conn: here.who_is_here(conn, services, user.id)
    )
    return found.as_json()


@router.get(
    "/presence/counts",
    operation_id="presence-counts",
    response_model=PresenceCounts,
)
async def presence_counts(services: ServicesDep) -> dict[str, int]:
    """How many members are here now and recently (anyone may ask; no names)."""
    online, recent = await run_db(services, here.counts, services)
    return {"online": online, "recent": recent}


__all__ = ["router"]
