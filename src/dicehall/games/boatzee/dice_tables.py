"""Fixed tables over five dice for turn planning: keeps, roll odds and sub-keeps.

A *hand* is a sorted 5-tuple (252 of them, :data:`scoring.HANDS` order); a *keep* is a sorted
tuple of 0 to 5 dice held back from a re-roll (462 of them).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from itertools import combinations_with_replacement
from math import factorial

import numpy as np
import numpy.typing as npt

from dicehall.games.boatzee.scoring import HAND_INDEX, HANDS, SCORES

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: Every keep, by size then lexicographically.
KEEPS: tuple[tuple[int, ...], ...] = tuple(
    keep for size in range(6) for keep in combinations_with_replacement(range(1, 7), size)
)
KEEP_INDEX: dict[tuple[int, ...], int] = {keep: i for i, keep in enumerate(KEEPS)}


def _multiset_probability(faces: tuple[int, ...]) -> float:
    ways = factorial(len(faces))
    for face in set(faces):
        ways //= factorial(faces.count(face))
    return float(ways) / 6.0 ** len(faces)


@cache
def transitions() -> FloatArray:
    """``T[keep, hand]``: the chance that holding ``keep`` and rolling the rest gives ``hand``."""
    table = np.zeros((len(KEEPS), len(HANDS)))
    for k, keep in enumerate(KEEPS):
        for rolled in combinations_with_replacement(range(1, 7), 5 - len(keep)):
            hand = tuple(sorted(keep + rolled))
            table[k, HAND_INDEX[hand]] += _multiset_probability(rolled)
    table.setflags(write=False)
    return table


def keep_masks() -> range:
    """Bit masks over the five positions of the dice held back (bit i: position i kept)."""
    return range(32)


def keep_of(dice: Sequence[int], mask: int) -> tuple[int, ...]:
    """The sorted dice held back by ``mask``."""
    return tuple(sorted(d for i, d in enumerate(dice) if mask >> i & 1))


@cache
def sub_keeps() -> IntArray:
    """``S[hand, mask]``: the keep index of holding ``mask``'s positions of the sorted hand."""
    table = np.array(
        [[KEEP_INDEX[keep_of(hand, mask)] for mask in keep_masks()] for hand in HANDS],
        dtype=np.int64,
    )
    table.setflags(write=False)
    return table


@cache
def score_table() -> FloatArray:
    """``SCORES`` as an array: ``[hand, box index]`` unmultiplied points, no joker."""
    table = np.array(SCORES, dtype=np.float64)
    table.setflags(write=False)
    return table


#: Hand indices of the six five-of-a-kind hands, face 1..6.
FIVE_OF_A_KIND: tuple[int, ...] = tuple(HAND_INDEX[(face,) * 5] for face in range(1, 7))
