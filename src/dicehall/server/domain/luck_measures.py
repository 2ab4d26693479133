"""What a player's luck is measured by, roll by roll: each game's measure, found on its entry.

A game's measure (:class:`~dicehall.games.luck.LuckMeasure`, named by its entry's ``luck``)
gives, for one roll of a player's own, what happened and what chance owed (a mean and a
variance), so that counts add up over rolls and games into a z-score. dicehall's own: Ten
Thousand's zero-outs, Boatzee's Boatzees made by a roll (every form), Boss Dice's and Bull's
Eye's sums of faces; Hold'em Dice has none (its dice are dealt, not rolled by a player).
"""

from __future__ import annotations

import math
from typing import Any

from dicehall import games
from dicehall.engine.errors import InvalidInput
from dicehall.games.luck import FACE_MEAN, FACE_VARIANCE, LuckMeasure, Seen, bernoulli, face_sum

__all__ = [
    "FACE_MEAN",
    "FACE_VARIANCE",
    "LuckMeasure",
    "Seen",
    "bernoulli",
    "face_sum",
    "measure_of",
    "measured_games",
    "observe",
    "roller",
    "z_score",
]


def measure_of(game: str) -> LuckMeasure | None:
    """The measure of ``game`` (imported now); None for a game without one, or no game."""
    try:
        entry = games.get(game)
    except InvalidInput:
        return None
    return entry.luck_measure()


def measured_games() -> tuple[str, ...]:
    """The installed games that have a measure, in the site's order."""
    return tuple(name for name in games.available() if games.get(name).luck is not None)


def z_score(observed: float, expected: float, variance: float) -> float | None:
    """How many standard deviations ``observed`` is from ``expected``; None when nothing
    could vary."""
    if variance <= 0:
        return None
    return (observed - expected) / math.sqrt(variance)


def roller(kind: str, state: Any) -> int | None:
    """The seat whose own roll the pending chance request is, for ``kind``'s measure (None:
    not a roll the measure looks at, or no measure)."""
    measure = measure_of(kind)
    return None if measure is None else measure.roller(state)


def observe(kind: str, state: Any, seat: int, outcome: tuple[Any, ...]) -> Seen | None:
    """The measure of this roll when it is ``seat``'s own (``state`` is the state the roll
    resolves), else None."""
    measure = measure_of(kind)
    return None if measure is None else measure.observe(state, seat, outcome)
