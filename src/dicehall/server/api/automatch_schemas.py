"""The answers of the auto-match API."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from dicehall.server.api.schemas import PaceOut, _Answer, _moment


class AutomatchTicketOut(_Answer):
    """An auto-match ticket: what it asks for, and where it stands."""

    id: int
    game: str = Field(description="The game, e.g. `boatzee`.")
    title: str = Field(description='The game as its options make it, e.g. "Double Boatzee".')
    options: dict[str, Any] = Field(description="The game's options (game-specific).")
    seats: list[int] = Field(
        description="The table sizes accepted: [smallest, largest].", min_length=2, max_length=2
    )
    pace: PaceOut | None = Field(description="The matched game's pace.")
    rated: bool = Field(description="Matched with people only, the game is rated.")
    bots_after: int | None = Field(
        description="Minutes after which bots take the missing seats (the game is then "
        "unrated); null: never."
    )
    status: Literal["waiting", "matched", "cancelled"]
    game_id: int | None = Field(description="The game it found (null until matched).")
    created_at: str = _moment()
    matched_at: str | None = Field(
        description="When it found its game (null until then).",
        json_schema_extra={"format": "date-time"},
    )
    waited_s: int = Field(description="Seconds it waited (so far, or until matched).")
    estimated_wait_s: int | None = Field(
        description="Seconds a waiting ticket can still expect to wait, from the game's "
        "recent matches and its bots (null: not known, or not waiting)."
    )


class AutomatchVariantQueue(_Answer):
    """One variant's queue: tickets wait for, and are matched with, the same options only."""

    key: str = Field(
        description="The variant's name (`boatzee-double`, or the game's name for a game "
        "offered once); the auto-match page's buttons name it."
    )
    title: str = Field(description='Its name, e.g. "Double Boatzee".')
    options: dict[str, Any] = Field(description="The options a ticket for it carries.")
    waiting: int = Field(description="Tickets waiting with these options.")
    by_seats: dict[str, int] = Field(
        description="For each table size (as text), how many of them accept it."
    )
    estimated_wait_s: int | None = Field(
        description="The median wait of its tickets matched in the last week (null: none)."
    )


class AutomatchQueue(_Answer):
    """One game's queue: how many wait for it, in all and for each variant offered."""

    game: str
    title: str
    waiting: int = Field(description="Tickets waiting for this game (any options).")
    by_seats: dict[str, int] = Field(
        description="For each table size (as text), how many waiting tickets accept it."
    )
    estimated_wait_s: int | None = Field(
        description="The median wait of the game's tickets matched in the last week (null: none)."
    )
    variants: list[AutomatchVariantQueue] = Field(
        description="The variants auto-match offers (Boatzee, Double and Triple Boatzee; one "
        "with the default options for most games), each with its own queue."
    )


class AutomatchList(_Answer):
    """My tickets (waiting, and matched in the last day) and every game's queue."""

    tickets: list[AutomatchTicketOut]
    queues: list[AutomatchQueue]
