"""The scoring rules as the solver's arrays, and the odds of the first roll (no Numba here).

Shared by the solver's kernels, the final-score distributions and the hint's evaluation of
one turn (:mod:`turn`), which must not load Numba when it answers a single hint.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

from dicehall.games.boatzee.card import Ruleset
from dicehall.games.boatzee.dice_tables import FloatArray, IntArray
from dicehall.games.boatzee.scoring import BOATZEE, BOXES, HAND_INDEX, HANDS, SCORES, joker_score

ClassArray = npt.NDArray[np.int8]


@dataclass(frozen=True)
class Rules:
    """``points[b, h]``: hand h in box b (multiplied); ``classes[b, h]``: the outcome class of
    scoring it there (the count of the face for an upper box, 50 or not for the yahtzee
    Boatzee box, else 0), used only where ``varied[b]``; ``joker[h, b]`` and ``plain[h, b]``
    the unmultiplied points as a joker and without one; ``five_hands`` the hands 11111..66666.
    """

    points: FloatArray
    classes: ClassArray
    varied: IntArray
    joker: IntArray
    plain: IntArray
    five_hands: IntArray


@cache
def rules(ruleset: Ruleset, multiplier: int) -> Rules:
    """The rules' arrays for ``ruleset`` with boxes counting ``multiplier`` times (read-only)."""
    scores = np.array(SCORES, dtype=np.int64)
    classes = np.zeros((len(BOXES), len(HANDS)), dtype=np.int64)
    varied = np.zeros(len(BOXES), dtype=np.int64)
    for face in range(1, 7):
        classes[face - 1] = scores[:, face - 1] // face
        varied[face - 1] = 1
    five_hands = np.array([HAND_INDEX[(face,) * 5] for face in range(1, 7)], dtype=np.int64)
    joker = scores.copy()
    for h in five_hands:
        joker[h] = [joker_score(b, HANDS[h]) for b in range(len(BOXES))]
        if ruleset == "yahtzee":
            classes[BOATZEE, h] = 1
            varied[BOATZEE] = 1
    points = np.ascontiguousarray(multiplier * scores.T, dtype=np.float64)
    plain = np.ascontiguousarray(scores)
    out = Rules(points, classes.astype(np.int8), varied, joker, plain, five_hands)
    for array in (out.points, out.classes, varied, joker, plain, five_hands):
        array.setflags(write=False)
    return out


@cache
def first_roll() -> FloatArray:
    """The chance of each hand from five fresh dice: 5! / prod(count!) / 6^5."""
    ways = [
        math.factorial(5) / math.prod(math.factorial(hand.count(f)) for f in set(hand))
        for hand in HANDS
    ]
    chance = np.array(ways, dtype=np.float64) / 6.0**5
    chance.setflags(write=False)
    return chance
