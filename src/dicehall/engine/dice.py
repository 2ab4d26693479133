"""Dice sources: where the outcomes of chance requests come from."""

from __future__ import annotations

import random
import secrets
from collections.abc import Iterable, Sequence
from typing import Protocol

from dicehall.engine.chance import ChanceRequest, Draw, Outcome, Roll, check_outcome
from dicehall.engine.errors import InvalidOutcome


class DiceSource(Protocol):
    """Anything that can roll dice and draw from a bag."""

    def roll(self, count: int, sides: int = 6) -> tuple[int, ...]:
        """Roll ``count`` fair dice."""
        ...

    def draw(self, count: int, population: Sequence[str]) -> tuple[str, ...]:
        """Draw ``count`` items without replacement, in order."""
        ...


def resolve_request(source: DiceSource, request: ChanceRequest) -> Outcome:
    """Answer a chance request from a dice source."""
    if isinstance(request, Roll):
        return source.roll(request.count, request.sides)
    return source.draw(request.count, request.population)


class Seeded:
    """Reproducible dice for tests and simulations (not for real play)."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def roll(self, count: int, sides: int = 6) -> tuple[int, ...]:
        rand = self._rng.random
        return tuple(int(rand() * sides) + 1 for _ in range(count))

    def draw(self, count: int, population: Sequence[str]) -> tuple[str, ...]:
        return tuple(self._rng.sample(list(population), count))


class System:
    """Dice from the operating system's secure random source."""

    def roll(self, count: int, sides: int = 6) -> tuple[int, ...]:
        return tuple(secrets.randbelow(sides) + 1 for _ in range(count))

    def draw(self, count: int, population: Sequence[str]) -> tuple[str, ...]:
        items = list(population)
        drawn: list[str] = []
        for _ in range(count):
            drawn.append(items.pop(secrets.randbelow(len(items))))
        return tuple(drawn)


class Scripted:
    """Serves outcomes given in advance, in order: crafted dice for tests and replays.

    Each scripted item answers one chance request; it is checked against that request.
    """

    def __init__(self, outcomes: Iterable[Outcome]) -> None:
        self._outcomes = list(outcomes)
        self._next = 0

    @property
    def remaining(self) -> int:
        """How many scripted outcomes have not been served."""
        return len(self._outcomes) - self._next

    def _take(self, request: ChanceRequest) -> Outcome:
        if self._next >= len(self._outcomes):
            raise InvalidOutcome("the scripted dice ran out")
        outcome = self._outcomes[self._next]
        check_outcome(request, outcome)
        self._next += 1
        return outcome

    def roll(self, count: int, sides: int = 6) -> tuple[int, ...]:
        outcome = self._take(Roll(count, sides))
        return tuple(int(x) for x in outcome)

    def draw(self, count: int, population: Sequence[str]) -> tuple[str, ...]:
        outcome = self._take(Draw(count, tuple(population)))
        return tuple(str(x) for x in outcome)
