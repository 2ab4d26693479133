"""One golden playthrough's spec: a game, its options, seats, dice seed and a bot per seat.

Each game's specs are ``SPECS`` in its tests' ``golden`` module (``tests/games/<game>/golden.py``);
:mod:`tests.golden.record` gathers those of every installed game.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Spec:
    """One playthrough: a game, its options, seats, dice seed and a bot name per seat."""

    game: str
    seed: int
    bots: tuple[str, ...]
    options: Mapping[str, object] = field(default_factory=dict)

    @property
    def seats(self) -> int:
        """One seat per bot."""
        return len(self.bots)

    @property
    def file_name(self) -> str:
        """The golden file's name, e.g. ``boss-seed1.json``."""
        return f"{self.game}-seed{self.seed}.json"
