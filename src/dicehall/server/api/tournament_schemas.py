"""The tournaments API's request body and answers."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt

from dicehall.server.api.rules import FORMATS, GameName, Rule, tidied_line, words
from dicehall.server.api.schemas import _Answer
from dicehall.server.domain.games.pace import LONGEST
from dicehall.server.domain.tournaments import paces
from dicehall.server.domain.tournaments.create import NAME_MAX

OptionValue = str | StrictInt | StrictBool | None
_DATE_TIME: Any = {"format": "date-time"}
Pace = (
    Annotated[str, Field(max_length=20), Rule(pattern=words(*paces.PRESETS))]
    | Annotated[
        dict[str, StrictInt],
        Rule(
            properties={"bank": {"type": "integer", "minimum": 1, "maximum": LONGEST}},
            required=["bank"],
            additionalProperties=False,
        ),
    ]
)


class CreateTournament(BaseModel):
    """A new tournament (see docs/site-tournaments.md)."""

    model_config = ConfigDict(extra="forbid")

    name: Annotated[str, Rule(pattern=tidied_line(NAME_MAX, never=FORMATS))] = Field(
        min_length=1, max_length=NAME_MAX
    )
    game: GameName = Field(description="The game, e.g. `bullseye`.")
    options: dict[str, OptionValue] = Field(
        default_factory=dict, max_length=20, description="The game's options, as for a game."
    )
    format: Literal["cup", "swiss", "knockout"]
    size: StrictInt | None = Field(
        default=None,
        ge=2,
        le=256,
        description="Players: a cup's exact size; for a Swiss or a knockout, the most that "
        "may join (required when there is no start time: it starts when full).",
    )
    rounds: StrictInt | None = Field(default=None, ge=1, le=20, description="A Swiss's rounds.")
    table: StrictInt | None = Field(
        default=None,
        ge=1,
        le=8,
        description="Seats per table (default: 2 when the game allows two, else its fewest).",
    )
    pace: Pace = Field(
        default="live",
        description="Each player's time bank for a whole game: `live` (20 min), `brisk` (2 "
        'days), `daily` (7 days), `relaxed` (14 days), or `{"bank": seconds}`.',
    )
    rated: StrictBool = Field(default=True, description="Its games count for the players' ratings.")
    starts_at: str | None = Field(
        default=None,
        max_length=40,
        description="When it starts (ISO 8601), with whoever joined; null: when full.",
        json_schema_extra=_DATE_TIME,
    )
    buddies_only: StrictBool = Field(
        default=False, description="Only the creator and those they name buddies may join."
    )


class TournamentSummary(_Answer):
    """A tournament in a list."""

    id: int
    name: str
    game: str
    title: str = Field(description='The game\'s name as its options make it ("Triple Boatzee").')
    format: str = Field(description="`cup`, `swiss` or `knockout`.")
    status: str = Field(description="`open`, `running`, `finished` or `cancelled`.")
    players: int
    size: int | None
    table_seats: int
    starts_at: str | None = Field(json_schema_extra=_DATE_TIME)
    round: int = Field(description="The round being played (0 before the start).")
    rounds_planned: int | None = Field(description="How many rounds (null until known).")
    pace: Pace
    rated: bool
    buddies_only: bool
    scheduled: bool = Field(description="Created by the site's schedule.")


class TournamentList(_Answer):
    """Tournaments, newest first."""

    tournaments: list[TournamentSummary]


class StandingLine(_Answer):
    """One player's line in the standings."""

    place: int
    user_id: str
    display_name: str
    points: float
    tiebreak: float = Field(description="Sonneborn-Berger generalised to tables.")
    status: str = Field(description="`active`, `withdrawn`, `timed_out` or `out`.")
    games: int = Field(description="Games played to their end or abort (byes not counted).")


class TableOut(_Answer):
    """One table of a round."""

    number: int
    seats: list[str] = Field(description="The players' user ids, by seat.")
    game_id: int | None = Field(description="Its game (null: a bye, or no game played).")
    points: list[float] | None = Field(description="Points by seat, once done.")
    done: bool


class RoundOut(_Answer):
    """A round's tables."""

    number: int
    tables: list[TableOut]


class TournamentDetail(TournamentSummary):
    """A tournament: its settings, the live standings and every round's tables."""

    options: dict[str, Any]
    bank_s: int = Field(description="Each player's time bank for a whole game, in seconds.")
    created_by: str | None
    round_deadline: str | None = Field(
        description="When the current round must be over.", json_schema_extra=_DATE_TIME
    )
    version: int = Field(description="Bumped by every change (live pages compare it).")
    joined: bool = Field(description="I am one of its players.")
    can_join: bool
    why_not: str | None = Field(description="Why I may not join (null: I may).")
    standings: list[StandingLine]
    rounds: list[RoundOut]
