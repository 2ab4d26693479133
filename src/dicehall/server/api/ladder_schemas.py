"""The answers of the ladders API."""

from __future__ import annotations

from pydantic import Field

from dicehall.server.api.schemas import _Answer, _moment


class LadderSummary(_Answer):
    """A ladder in the list of ladders."""

    kind: str = Field(description="The rating kind the ladder plays, e.g. `boatzee-double`.")
    title: str
    players: int
    my_position: int | None = Field(description="My position (null: not on it, or anonymous).")


class LadderStanding(_Answer):
    """My place on one ladder."""

    kind: str
    title: str
    position: int | None = Field(description="My position, 1 at the top (null: not on it).")
    players: int = Field(description="How many players the ladder holds.")
    open_challenges: int = Field(description="My challenges whose games are not over.")
    vacation_until: str | None = Field(
        description="My ladder vacation runs until then (null: none running).",
        json_schema_extra={"format": "date-time"},
    )
    vacation_days_left: int = Field(description="Days of ladder vacation left this year.")
    drop_due_at: str | None = Field(
        description="When inactivity drops me 5 places unless I play a ladder game first "
        "(null: not on the ladder, or a ladder game of mine is in progress).",
        json_schema_extra={"format": "date-time"},
    )


class LadderChallengeOut(_Answer):
    """A ladder challenge and its game (started when the challenge was made)."""

    id: int
    kind: str
    challenger: str = Field(description="The user id of the player who challenged.")
    opponent: str = Field(description="The user id of the player challenged.")
    game_id: int = Field(description="The ladder game (rated, at the ladder's pace).")
    open: bool = Field(description="Its game is not over yet.")
    created_at: str = _moment()


class LadderPlace(_Answer):
    """One position on a ladder."""

    position: int
    user_id: str
    display_name: str
    rating: int = Field(description="The player's rating of the ladder's kind, as shown.")
    provisional: bool = Field(description="The rating is still provisional (shown with `?`).")
    rated_games: int
    open_challenges: int = Field(description="Their own challenges whose games are not over.")
    in_game: bool = Field(description="A ladder game of theirs on this ladder is in progress.")
    challenged_by_me: bool = Field(description="A challenge of mine to them is open.")
    challenges_me: bool = Field(description="A challenge of theirs to me is open.")
    can_challenge: bool = Field(
        description="I may challenge them now as far as places and my open challenges go "
        "(their settings may still refuse)."
    )
    active_at: str = Field(
        description="Inactivity counts from then: their last ladder game started or ended "
        "(moved later by ladder vacation).",
        json_schema_extra={"format": "date-time"},
    )
    vacation_until: str | None = Field(
        description="On ladder vacation until then (null: not now).",
        json_schema_extra={"format": "date-time"},
    )


class LadderBoard(_Answer):
    """A ladder: a page of its positions, my standing and my ladder games in progress."""

    kind: str
    title: str
    players: int
    pace: str = Field(description="The pace of every ladder game.")
    reach: int = Field(description="How many places above or below a challenge may reach.")
    most_open: int = Field(description="How many challenges of mine may be open at once.")
    start: int = Field(description="The first position on this page.")
    next_start: int | None = Field(description="`start` of the next page; null: the last.")
    positions: list[LadderPlace]
    me: LadderStanding | None = Field(description="My standing (null: not signed in).")
    my_games: list[LadderChallengeOut] = Field(
        description="Open challenges on this ladder I made or received."
    )


class LadderMoveOut(_Answer):
    """One change of one position."""

    id: int
    user_id: str
    display_name: str
    old_position: int | None = Field(description="Null: joined the ladder.")
    new_position: int | None = Field(description="Null: left the ladder.")
    reason: str = Field(
        description="`joined`, `left`, `won` (took the place of a higher player they beat), "
        "`passed` (moved down one by such a win), `inactive` (dropped 5 places for "
        "inactivity) or `moved_up` (someone above left or dropped past them)."
    )
    game_id: int | None = Field(description="The ladder game that made the move, if any.")
    at: str = _moment()


class LadderHistory(_Answer):
    """A ladder's moves, newest first, a page at a time."""

    kind: str
    moves: list[LadderMoveOut]
    next: str | None = Field(description="Send it as `cursor` for the next page; null: the last.")
