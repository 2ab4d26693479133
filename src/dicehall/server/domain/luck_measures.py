"""What a player's luck is measured by, roll by roll: pure functions over game states.

Each measure gives, for one roll of a player's own, what happened and what chance owed
(a mean and a variance), so that counts add up over rolls and games into a z-score:

- Ten Thousand, **zero-outs**: a roll of ``n`` dice that scores nothing (observed 0 or 1),
  against the exact probability of that for ``n`` dice, counted from the game's own scorer
  (and its four-and-a-pair option).
- Boatzee (every form), **Boatzees made by a roll**: five of a kind straight after a roll,
  against its probability given the dice held (a roll that holds two faces cannot make one).
- Boss and Bullseye, **sum of faces**: the faces a player's own roll shows, added up, against
  3.5 a die (variance 35/12 a die).

Hold'em Dice has none: its dice are dealt to pockets and the board, not rolled by a player.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from itertools import product
from typing import Any

from dicehall.games.tenthousand.scoring import set_asides

#: What each game's measure counts; a game not named here has none.
MEASURES = {
    "tenthousand": "zero-outs",
    "boatzee": "Boatzees made by a roll",
    "boss": "sum of faces",
    "bullseye": "sum of faces",
}
#: A fair die's mean face and the variance of one face.
FACE_MEAN = 3.5
FACE_VARIANCE = 35 / 12


@dataclass(frozen=True)
class Seen:
    """One roll under a measure: what happened and what chance owed (mean, variance)."""

    observed: int
    expected: float
    variance: float


@cache
def zero_out_chance(dice: int, four_and_pair: bool) -> float:
    """The exact chance that ``dice`` dice score nothing in Ten Thousand."""
    rolls = list(product(range(1, 7), repeat=dice))
    dead = sum(1 for roll in rolls if not set_asides(tuple(sorted(roll)), four_and_pair))
    return dead / len(rolls)


def boatzee_chance(held: tuple[int, ...]) -> float:
    """The chance a roll of the other dice makes five of a kind with ``held``."""
    if len(set(held)) > 1:
        return 0.0
    rolled = 5 - len(held)
    return (1 / 6) ** rolled * (6 if not held else 1)


def bernoulli(chance: float, happened: bool) -> Seen:
    """An event of probability ``chance`` that did or did not happen."""
    return Seen(int(happened), chance, chance * (1 - chance))


def face_sum(outcome: tuple[int, ...]) -> Seen:
    """The sum of a roll's faces against what fair dice owe."""
    return Seen(sum(outcome), FACE_MEAN * len(outcome), FACE_VARIANCE * len(outcome))


def z_score(observed: float, expected: float, variance: float) -> float | None:
    """How many standard deviations ``observed`` is from ``expected``; None when nothing
    could vary."""
    if variance <= 0:
        return None
    return (observed - expected) / math.sqrt(variance)


def roller(kind: str, state: Any) -> int | None:
    """The seat whose own roll the pending chance request is, for ``kind``'s measure (None:
    not a roll the measure looks at)."""
    if kind == "tenthousand":
        return int(state.current) if state.phase == "roll" else None
    if kind == "boatzee":
        return int(state.current)
    if kind == "boss":
        if state.phase == "first_roll":
            return len(state.first_rolls)
        if state.boss is None:
            return None
        return int(state.boss) if state.phase == "boss_roll" else 1 - int(state.boss)
    if kind == "bullseye":
        rnd = state.round
        return None if state.lead_choice is not None or rnd is None else int(rnd.thrower)
    return None


def observe(kind: str, state: Any, seat: int, outcome: tuple[Any, ...]) -> Seen | None:
    """The measure of this roll when it is ``seat``'s own (``state`` is the state the roll
    resolves), else None."""
    if kind not in MEASURES or roller(kind, state) != seat:
        return None
    faces = tuple(int(f) for f in outcome)
    if kind == "tenthousand":
        four_and_pair = bool(state.options.four_and_pair_is_three_pairs)
        chance = zero_out_chance(len(faces), four_and_pair)
        return bernoulli(chance, not set_asides(tuple(sorted(faces)), four_and_pair))
    if kind == "boatzee":
        held = tuple(d for i, d in enumerate(state.dice) if i not in state.rerolling)
        final = held + faces
        return bernoulli(boatzee_chance(held), len(final) == 5 and len(set(final)) == 1)
    return face_sum(faces)
