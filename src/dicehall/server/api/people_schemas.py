"""The answers of user search and of the fuller public profile."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from dicehall.server.api.ratings_schemas import ProfileRating
from dicehall.server.api.schemas import GameSummary, PublicProfile, _Answer


class FoundUser(_Answer):
    """A user a search found."""

    user_id: str
    display_name: str
    relation: Literal["buddy", "ignore"] | None = Field(
        description="What I said about them (null: nothing, or I am not signed in)."
    )
    online: bool | None = Field(
        description="Shown as here now on Who is here (null: presence is not known)."
    )


class UserSearch(_Answer):
    """A page of users whose user id or display name starts with the query."""

    users: list[FoundUser]
    next: str | None = Field(
        description="Send it as `cursor` (with the same `q` and `online`) for the next page; "
        "null on the last page."
    )
    fuzzy: bool = Field(
        description="No name starts with `q`: these are the closest names instead (one page)."
    )


class HeadToHead(_Answer):
    """My record against this user over the finished games we both sat in."""

    games: int
    win: int = Field(description="Games I placed above them in.")
    loss: int = Field(description="Games they placed above me in.")
    draw: int = Field(description="Games we placed equal in (a shared win, equal scores).")


class MyRelation(_Answer):
    """What I said about this user; only I see it."""

    kind: Literal["buddy", "ignore"]
    note: str = Field(description="My private note.")


class FullProfile(PublicProfile):
    """A user's public profile with their reliability, the day they were last here, their
    current public games, and for a signed-in viewer my head-to-head record and relation."""

    last_seen: str | None = Field(
        description="The day (UTC, YYYY-MM-DD) they were last here; null: not recorded yet.",
        json_schema_extra={"format": "date"},
    )
    current_games: list[GameSummary] = Field(
        description="Their games in progress that anyone may watch, newest first (at most 20)."
    )
    head_to_head: HeadToHead | None = Field(
        description="My record against them; null for a visitor or on my own profile."
    )
    relation: MyRelation | None = Field(
        description="What I said about them; null when nothing (or for a visitor)."
    )
    ratings: dict[str, ProfileRating] = Field(
        description="Their ratings by rating kind (`boatzee-double`, ...): those with a rated "
        "game, of the kinds they chose to show (setting `ratings_shown`)."
    )
