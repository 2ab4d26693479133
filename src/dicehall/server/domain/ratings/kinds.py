"""Rating kinds: which rating a game counts for, derived from the installed games' entries
(:attr:`dicehall.games.GameEntry.rating_kinds`). Boatzee's columns decide its kind (the
yahtzee ruleset rates as its column count); every other game of dicehall's is its own kind,
and so is a plug-in game that declares none (titled by its title, default constants).

The tables are derived from :func:`dicehall.games.available` again whenever the installed
games change (:func:`dicehall.games.generation`), so a game registered after start-up
(``DICEHALL_PLUGINS``) is rated like the five.
"""

from __future__ import annotations

from typing import Any

from dicehall import games
from dicehall.engine.errors import InvalidInput
from dicehall.games.rating import RatingKindSpec

#: A rating kind's name, as a type (settings name kinds; :func:`names` lists the valid ones).
RatingKind = str
#: The longest name of a rating kind the database holds.
NAME_LENGTH = 24


_derived: tuple[tuple[object, ...], dict[str, tuple[str, RatingKindSpec]]] | None = None


def _owned() -> dict[str, tuple[str, RatingKindSpec]]:
    """Every rating kind, in the site's order, with the game it belongs to (derived again
    when the installed games change: a board reads the kinds on every move)."""
    global _derived
    generation = games.generation()
    if _derived is None or _derived[0] != generation:
        _derived = (generation, _derive())
    return _derived[1]


def _derive() -> dict[str, tuple[str, RatingKindSpec]]:
    found: dict[str, tuple[str, RatingKindSpec]] = {}
    for game in games.available():
        for spec in games.get(game).rated_kinds():
            if not 0 < len(spec.name) <= NAME_LENGTH:
                raise ValueError(
                    f"{game}'s rating kind {spec.name!r} needs a name of 1 to {NAME_LENGTH} "
                    "characters"
                )
            if spec.name in found:
                raise ValueError(
                    f"{game} declares the rating kind {spec.name!r}, which is "
                    f"{found[spec.name][0]}'s already"
                )
            found[spec.name] = (game, spec)
    return found


def specs() -> tuple[RatingKindSpec, ...]:
    """Every rating kind, in the site's order (the games' order, then each game's)."""
    return tuple(spec for _, spec in _owned().values())


def names() -> tuple[str, ...]:
    """Every rating kind's name, in the site's order."""
    return tuple(_owned())


def ladder_names() -> tuple[str, ...]:
    """The kinds with a ladder (played two-handed), in the site's order."""
    return tuple(name for name, (_, spec) in _owned().items() if spec.ladder)


def spec(kind: str) -> RatingKindSpec | None:
    """The rating kind called ``kind``, or None."""
    found = _owned().get(kind)
    return None if found is None else found[1]


def title(kind: str) -> str:
    """The title of rating kind ``kind`` ("Double Boatzee"); an unknown kind's name."""
    found = spec(kind)
    return kind if found is None else found.title


def check(kind: str) -> RatingKind:
    """``kind`` if it is a rating kind; ValueError naming the known ones otherwise."""
    known = names()
    if kind not in known:
        raise ValueError(f"{kind!r} is no rating kind (kinds: {', '.join(known)})")
    return kind


def kind_of(game: str, options: Any) -> str | None:
    """The rating kind of a game of ``game`` with ``options`` (its options object); None
    for a game no rating counts (an unknown game, or one that declares no kinds)."""
    try:
        entry = games.get(game)
    except InvalidInput:
        return None
    return entry.rating_kind(options)


def ladder_game(kind: str) -> tuple[str, dict[str, Any]]:
    """The game and options a ladder of ``kind`` plays."""
    game, found = _owned()[kind]
    return game, dict(found.options)
