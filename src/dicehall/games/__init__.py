"""The registry of games: name -> the Game, its bots and its rules text."""

from __future__ import annotations

import importlib
import random
from dataclasses import dataclass
from importlib import resources
from typing import Any

from dicehall.engine.bots import Bot, BotFactory, RandomBot
from dicehall.engine.errors import InvalidInput
from dicehall.engine.game import Game

#: Every game dicehall knows, in the order they are presented.
NAMES: tuple[str, ...] = ("tenthousand", "boatzee", "boss", "holdem", "bullseye")


_EXTRA: dict[str, GameEntry] = {}


@dataclass(frozen=True)
class GameEntry:
    """A game with what surrounds it: bots by name and the rules as implemented."""

    name: str
    game: Game[Any, Any, Any, Any]
    bots: dict[str, BotFactory]

    rules_text: str | None = None

    @property
    def rules(self) -> str:
        """The rules as dicehall implements them, in Markdown."""
        if self.rules_text is not None:
            return self.rules_text
        return resources.files(f"dicehall.games.{self.name}").joinpath("rules.md").read_text()

    def bot(self, name: str, rng: random.Random) -> Bot:
        """A bot by name; unknown names raise with the list of known ones."""
        factory = self.bots.get(name)
        if factory is None:
            known = ", ".join(sorted(self.bots))
            raise InvalidInput(f"{self.game.title} has no bot {name!r} (bots: {known})")
        return factory(rng)


def register(entry: GameEntry) -> None:
    """Add a game that is not one of the five (tests and experiments)."""
    _EXTRA[entry.name] = entry


def available() -> tuple[str, ...]:
    """The names of the games that are installed."""
    found = list(_EXTRA)
    for name in NAMES:
        try:
            importlib.import_module(f"dicehall.games.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"dicehall.games.{name}":
                raise
            continue
        found.append(name)
    return tuple(found)


def get(name: str) -> GameEntry:
    """The game called ``name``; unknown names raise with the list of known ones."""
    key = name.strip().lower()
    if key in _EXTRA:
        return _EXTRA[key]
    if key not in available():
        raise InvalidInput(f"unknown game {name!r} (games: {', '.join(available())})")
    module = importlib.import_module(f"dicehall.games.{key}")
    bots: dict[str, BotFactory] = {"random": RandomBot, **getattr(module, "BOTS", {})}
    return GameEntry(key, module.GAME, bots)
