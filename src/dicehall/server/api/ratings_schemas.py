"""The answers of the ratings API: the rating kinds, a leaderboard page, a user's rating
history, and a rating as a profile shows it."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from dicehall.server.api.schemas import _Answer


def _at(description: str) -> Any:
    """A timestamp field: text in RFC 3339 (ISO 8601 with the UTC offset)."""
    return Field(
        description=description,
        json_schema_extra={"format": "date-time", "examples": ["2026-11-21T14:01:27.658510+00:00"]},
    )


class ProfileRating(_Answer):
    """One of a user's ratings as their profile shows it."""

    rating: int = Field(description="1500 + 40 per unit of mu (1500 to start with).")
    provisional: bool = Field(
        description='Fewer than 10 rated games, or still too uncertain to mean much ("1540?").'
    )
    games: int = Field(description="Rated games of this kind.")


class RatingKindOut(_Answer):
    """A rating kind: which games count for it."""

    kind: str = Field(description="E.g. `boatzee-double`.")
    title: str = Field(description='Its name, e.g. "Double Boatzee".')
    games: str = Field(description="Which games count for it, in words.")


class RatingKinds(_Answer):
    """Every rating kind, and who a leaderboard lists."""

    kinds: list[RatingKindOut]
    listed_games: int = Field(
        description="Leaderboards rank players with this many rated games of the kind or more "
        "first, and those with fewer (provisional) after them,"
    )
    active_days: int = Field(
        description="all with a rated game of the kind in this many days (each part ranked "
        "by mu - 2 sigma)."
    )


class LeaderboardPlayer(_Answer):
    """A player on a leaderboard."""

    rank: int = Field(description="1 for the best.")
    user: str = Field(description="Their user id.")
    display_name: str
    rating: int = Field(description="Their rating, as profiles show it.")
    provisional: bool = Field(
        description="Still too uncertain to mean much: fewer than `listed_games` rated games "
        "(such players follow the settled ones), or a sigma still large."
    )
    games: int = Field(description="Rated games of this kind.")
    floor: int = Field(
        description="What the board ranks by, on the rating's scale: the rating they are very "
        "likely above (mu - 2 sigma)."
    )
    last_game_at: str = _at("When their last rated game of this kind ended.")


class Leaderboard(_Answer):
    """A page of a leaderboard, best first."""

    kind: str
    title: str
    players: list[LeaderboardPlayer]
    next: str | None = Field(
        description="Send it as `cursor` for the next page; null on the last page."
    )


class RatingChangeOut(_Answer):
    """What one rated game did to a rating."""

    game: int = Field(description="The game's id.")
    at: str = _at("When the game ended.")
    place: int = Field(description="1 for first; players who tie share a place.")
    players: int = Field(description="How many played it.")
    rating_before: int
    rating_after: int
    change: int = Field(description="rating_after - rating_before.")


class RatingHistory(_Answer):
    """A page of a user's rating history of one kind, newest first."""

    user: str
    kind: str
    title: str
    changes: list[RatingChangeOut]
    next: str | None = Field(
        description="Send it as `cursor` for the next (older) page; null on the last page."
    )
