"""What a player's luck is measured by, roll by roll: a game's :class:`LuckMeasure`.

A measure gives, for one roll of a player's own, what happened and what chance owed (a mean
and a variance), so that counts add up over rolls and games into a z-score (the site's
``dicehall.server.domain.luck``). A game declares its measure on its entry
(:attr:`GameEntry.luck`, ``"module:attribute"``); a game without one (Hold'em Dice, whose dice
are dealt rather than rolled by a player) has no luck report.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

#: A fair die's mean face and the variance of one face.
FACE_MEAN = 3.5
FACE_VARIANCE = 35 / 12


@dataclass(frozen=True)
class Seen:
    """One roll under a measure: what happened and what chance owed (mean, variance)."""

    observed: int
    expected: float
    variance: float


@dataclass(frozen=True)
class LuckMeasure:
    """A game's measure of luck: what it counts, whose roll a chance request is, and what
    one roll of that player's shows against what chance owed."""

    #: What the measure counts, in words ("zero-outs", "sum of faces").
    counts: str
    #: ``state -> seat`` whose own roll the pending chance request is (None: a roll the
    #: measure does not look at).
    roller: Callable[[Any], int | None]
    #: ``(state, faces) -> Seen``: the roll's faces measured (``state`` is the state the roll
    #: resolves).
    measure: Callable[[Any, tuple[int, ...]], Seen]

    def observe(self, state: Any, seat: int, outcome: tuple[Any, ...]) -> Seen | None:
        """The measure of this roll when it is ``seat``'s own, else None."""
        if self.roller(state) != seat:
            return None
        return self.measure(state, tuple(int(face) for face in outcome))


def bernoulli(chance: float, happened: bool) -> Seen:
    """An event of probability ``chance`` that did or did not happen."""
    return Seen(int(happened), chance, chance * (1 - chance))


def face_sum(outcome: tuple[int, ...]) -> Seen:
    """The sum of a roll's faces against what fair dice owe."""
    return Seen(sum(outcome), FACE_MEAN * len(outcome), FACE_VARIANCE * len(outcome))


def sum_of_faces(state: Any, faces: tuple[int, ...]) -> Seen:
    """:func:`face_sum` as a measure (the state does not matter)."""
    return face_sum(faces)


#: What a sum-of-faces measure counts.
SUM_OF_FACES = "sum of faces"
