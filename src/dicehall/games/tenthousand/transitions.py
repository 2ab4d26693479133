"""What a roll can lead to, as flat NumPy arrays for the exact solvers.

A roll of ``n`` dice either zeroes out or offers set-asides; each set-aside leaves some dice
in hand (six after hot dice) and adds some points. For a solver only the pair (dice in hand
next, points in steps of 50) matters, so rolls of ``n`` dice that offer the same set of such
pairs are merged into one *group* whose probability is the sum of theirs. Under the default
rules the 2,986 (roll, set-aside) pairs of one to six dice shrink to 1,091 entries in 228
groups; nothing is lost, since the best choice of a roll depends only on those pairs.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

from dicehall.games.tenthousand.scoring import set_asides
from dicehall.games.tenthousand.strategy import STEP, roll_probabilities

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Transitions:
    """Merged roll outcomes for rolls of 1 to 6 dice, laid out for Numba kernels.

    Groups of ``n`` dice are ``group_start[n]`` to ``group_start[n + 1]`` (exclusive) in
    ``group_prob``; the entries of group ``k`` are ``entry_start[k]`` to
    ``entry_start[k + 1]`` in ``entry_hand`` (dice in hand after the set-aside, 1 to 6) and
    ``entry_gain`` (points in steps of 50). ``zero_prob[n]`` is the chance that a roll of
    ``n`` dice zeroes out.
    """

    four_and_pair: bool
    group_start: IntArray
    group_prob: FloatArray
    entry_start: IntArray
    entry_hand: IntArray
    entry_gain: IntArray
    zero_prob: FloatArray

    @property
    def groups(self) -> int:
        """How many groups there are, over every number of dice."""
        return len(self.group_prob)

    @property
    def entries(self) -> int:
        """How many (dice in hand, points) entries there are, over every group."""
        return len(self.entry_hand)


@cache
def transitions(four_and_pair: bool = False) -> Transitions:
    """The merged outcomes under these rules (built once per process, in milliseconds)."""
    group_start = [0] * 8
    group_prob: list[float] = []
    entry_start: list[int] = [0]
    entry_hand: list[int] = []
    entry_gain: list[int] = []
    zero_prob = [0.0] * 7
    for n in range(1, 7):
        merged: dict[tuple[tuple[int, int], ...], float] = {}
        for roll, p in roll_probabilities(n):
            options = set_asides(roll, four_and_pair)
            if not options:
                zero_prob[n] += p
                continue
            key = tuple(sorted({(n - len(keep) or 6, points // STEP) for keep, points in options}))
            merged[key] = merged.get(key, 0.0) + p
        group_start[n] = len(group_prob)
        for key in sorted(merged):
            group_prob.append(merged[key])
            for hand, gain in key:
                entry_hand.append(hand)
                entry_gain.append(gain)
            entry_start.append(len(entry_hand))
        group_start[n + 1] = len(group_prob)
    return Transitions(
        four_and_pair,
        np.array(group_start, dtype=np.int64),
        np.array(group_prob, dtype=np.float64),
        np.array(entry_start, dtype=np.int64),
        np.array(entry_hand, dtype=np.int64),
        np.array(entry_gain, dtype=np.int64),
        np.array(zero_prob, dtype=np.float64),
    )
