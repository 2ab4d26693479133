"""Rating kinds: which rating a game counts for. Boatzee's columns decide its kind (the
yahtzee ruleset rates as its column count); every other game is its own kind."""

from __future__ import annotations

from typing import Any, Literal, get_args

#: A rating kind, as a type (settings name kinds; :data:`KINDS` lists the same).
RatingKind = Literal[
    "tenthousand", "boatzee", "boatzee-double", "boatzee-triple", "boss", "holdem", "bullseye"
]
#: Every rating kind, in the site's order.
KINDS: tuple[str, ...] = (
    "tenthousand",
    "boatzee",
    "boatzee-double",
    "boatzee-triple",
    "boss",
    "holdem",
    "bullseye",
)
#: The kinds with a ladder (played two-handed).
LADDER_KINDS: tuple[str, ...] = (
    "tenthousand",
    "boatzee",
    "boatzee-double",
    "boatzee-triple",
    "boss",
    "holdem",
)
TITLES: dict[str, str] = {
    "tenthousand": "Ten Thousand",
    "boatzee": "Boatzee",
    "boatzee-double": "Double Boatzee",
    "boatzee-triple": "Triple Boatzee",
    "boss": "Boss Dice",
    "holdem": "Hold'em Dice",
    "bullseye": "Bull's Eye",
}
assert get_args(RatingKind) == KINDS
_BOATZEE_COLUMNS = {1: "boatzee", 2: "boatzee-double", 3: "boatzee-triple"}


def kind_of(game: str, options: Any) -> str | None:
    """The rating kind of a game of ``game`` with ``options`` (its options object); None
    for a game no rating counts (a plug-in game)."""
    if game == "boatzee":
        return _BOATZEE_COLUMNS.get(int(getattr(options, "columns", 1)))
    return game if game in KINDS else None


def ladder_game(kind: str) -> tuple[str, dict[str, Any]]:
    """The game and options a ladder of ``kind`` plays."""
    if kind.startswith("boatzee"):
        columns = {value: key for key, value in _BOATZEE_COLUMNS.items()}[kind]
        return "boatzee", {"columns": columns}
    return kind, {}
