"""The games: found through the ``dicehall.games`` entry-point group, one entry per game.

Each game package exports ``ENTRY`` (a :class:`GameEntry`) and is listed in its
distribution's entry points::

    [project.entry-points."dicehall.games"]
    pig = "my_pig_package:ENTRY"

so a game in another installed package appears in the CLI, the API and the site alike.
"""

from __future__ import annotations

import importlib.metadata
from functools import cache

from dicehall.engine.errors import InvalidInput
from dicehall.games.entry import GameEntry, LazyBots, load

#: The five games of dicehall itself, in the order they are presented.
NAMES: tuple[str, ...] = ("tenthousand", "boatzee", "boss", "holdem", "bullseye")

_EXTRA: dict[str, GameEntry] = {}
_LOADED: dict[str, GameEntry] = {}


_generation = 0


def generation() -> tuple[object, ...]:
    """A token that changes whenever the installed games may have changed (:func:`register`,
    :func:`refresh`, or the hand-registered games replaced): tables derived from the games
    are rebuilt then."""
    return (_generation, *((name, id(entry)) for name, entry in _EXTRA.items()))


def register(entry: GameEntry) -> None:
    """Add a game by hand, without an entry point (tests and experiments)."""
    global _generation
    _EXTRA[entry.name] = entry
    _generation += 1


@cache
def _references() -> dict[str, str]:
    """Every game's ``module:ENTRY`` reference: dicehall's five, then the entry points."""
    found = {name: f"dicehall.games.{name}:ENTRY" for name in NAMES}
    for point in importlib.metadata.entry_points(group="dicehall.games"):
        found.setdefault(point.name.lower(), point.value)
    return found


def refresh() -> None:
    """Look for installed games again (after installing one into a running process)."""
    global _generation
    _references.cache_clear()
    _LOADED.clear()
    _generation += 1


def available() -> tuple[str, ...]:
    """The names of the games that are installed: dicehall's five first."""
    found = [name for name in _references() if name not in _EXTRA and _installed(name)]
    return (*found, *_EXTRA)


def find(name: str) -> GameEntry | None:
    """The game called ``name`` if it is installed, else None, loading no other game's entry
    (a command line that names one game imports no other game's rules)."""
    key = name.strip().lower()
    if key in _EXTRA:
        return _EXTRA[key]
    if key not in _references() or not _installed(key):
        return None
    return _load(key)


def _installed(name: str) -> bool:
    """Whether the entry point ``name`` loads (it is loaded now)."""
    try:
        _load(name)
    except ModuleNotFoundError as exc:
        module = _references()[name].partition(":")[0]
        if exc.name is None or not module.startswith(exc.name):
            raise  # the game is there but something it needs is missing: say so
        return False  # a partial install, or a plugin whose package has gone
    return True


def get(name: str) -> GameEntry:
    """The game called ``name``; unknown names raise with the list of known ones."""
    key = name.strip().lower()
    if key in _EXTRA:
        return _EXTRA[key]
    if key not in available():
        raise InvalidInput(f"unknown game {name!r} (games: {', '.join(available())})")
    return _load(key)


def _load(name: str) -> GameEntry:
    if name not in _LOADED:
        entry = load(_references()[name])
        if not isinstance(entry, GameEntry) or entry.name != name:
            raise TypeError(f"the entry point {name!r} does not name the GameEntry of {name!r}")
        _LOADED[name] = entry
    return _LOADED[name]


__all__ = ["NAMES", "GameEntry", "LazyBots", "available", "find", "get", "refresh", "register"]
