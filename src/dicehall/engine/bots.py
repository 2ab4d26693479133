"""The bot protocol, and the random bot every game gets."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol


class Bot(Protocol):
    """A player program. It sees only what a human at its seat would see."""

    def choose(self, view: Any, legal: Sequence[Any]) -> Any:
        """Pick one of ``legal`` given ``view``."""
        ...


BotFactory = Callable[[random.Random], Bot]
"""Builds a bot; the generator is the bot's own source of randomness (seeded in sims)."""


@dataclass(frozen=True)
class SlowBot:
    """What a game declares about a bot whose decisions can take long.

    Such a bot may need tables that take ``cold_seconds`` to build on first use (measured on
    a 2-core machine), or decisions that cost more than a few milliseconds. A server runs it
    away from its request path and, when it runs out of time, lets ``fallback`` decide.
    """

    fallback: str
    cold_seconds: int


class RandomBot:
    """Chooses uniformly among the legal actions."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng

    def choose(self, view: Any, legal: Sequence[Any]) -> Any:
        return legal[int(self._rng.random() * len(legal))]
