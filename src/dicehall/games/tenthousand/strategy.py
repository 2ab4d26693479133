"""Exact single-turn strategy: the expected points a turn banks under best play.

``W(n, t)`` is the expected number of points a seat banks this turn when it is about to roll
``n`` dice holding a turn total ``t`` and plays every later choice to maximise that number.
Every set-aside is worth at least 50, so ``W`` at ``t`` depends only on larger totals and one
sweep downwards from a cap computes it; the sweep is vectorised over every roll and every
set-aside with NumPy. Above the cap the seat is assumed to bank (the cap is far above any
total where rolling six dice for more still pays).

Two tables are kept: for a seat that has entered the game (it may bank any total) and for one
that has not (it may bank only at the entry threshold or more).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import combinations_with_replacement
from math import factorial

import numpy as np
import numpy.typing as npt

from dicehall.games.tenthousand.scoring import counts_of, set_asides

STEP = 50
#: The largest single set-aside (six 1s) in steps of 50.
_MAX_GAIN = 4000 // STEP

FloatArray = npt.NDArray[np.float64]


def roll_probabilities(n: int) -> tuple[tuple[tuple[int, ...], float], ...]:
    """Every sorted roll of ``n`` dice with its probability."""
    out = []
    for roll in combinations_with_replacement(range(1, 7), n):
        ways = factorial(n)
        for c in counts_of(roll):
            ways //= factorial(c)
        out.append((roll, ways / 6**n))
    return tuple(out)


def zero_chance(n: int, four_and_pair: bool = False) -> float:
    """The probability that a roll of ``n`` dice has no scoring dice."""
    return sum(p for roll, p in roll_probabilities(n) if not set_asides(roll, four_and_pair))


@dataclass(frozen=True)
class TurnTables:
    """``W`` and the value of each decision ``D`` for one set of rules.

    Both arrays are indexed ``[entered][dice in hand][turn total // 50]``.
    """

    entry_threshold: int
    four_and_pair: bool
    roll_value: FloatArray
    decision_value: FloatArray

    @property
    def cap(self) -> int:
        """The largest turn total the tables hold."""
        return int(self.roll_value.shape[2] - 1) * STEP

    def expected_if_rolling(self, in_hand: int, turn_total: int, entered: bool) -> float:
        """Expected points banked this turn when rolling ``in_hand`` dice holding ``turn_total``."""
        i = turn_total // STEP
        if i >= self.roll_value.shape[2]:
            return float(turn_total)
        return float(self.roll_value[int(entered), in_hand, i])

    def after_set_aside(self, in_hand: int, turn_total: int, entered: bool) -> float:
        """Expected points banked this turn after a set-aside leaves this position."""
        i = turn_total // STEP
        if i >= self.decision_value.shape[2]:
            return float(turn_total)
        return float(self.decision_value[int(entered), in_hand, i])

    def should_bank(self, in_hand: int, turn_total: int, entered: bool) -> bool:
        """True when banking now is worth at least as much as rolling on (if banking is legal)."""
        if not entered and turn_total < self.entry_threshold:
            return False
        return turn_total >= self.expected_if_rolling(in_hand, turn_total, entered)

    def bank_threshold(self, in_hand: int, entered: bool = True) -> int | None:
        """The smallest turn total at which banking is best with ``in_hand`` dice, if any."""
        for i in range(self.roll_value.shape[2]):
            if self.should_bank(in_hand, i * STEP, entered):
                return i * STEP
        return None


@cache
def turn_tables(entry_threshold: int = 1000, four_and_pair: bool = False) -> TurnTables:
    """The single-turn tables for these rules (computed once per process, in well under 1 s)."""
    cap_index = (max(30_000, entry_threshold + 20_000)) // STEP
    size = cap_index + _MAX_GAIN + 1
    opt_hand: list[int] = []
    opt_gain: list[int] = []
    starts: list[int] = []
    roll_hand: list[int] = []
    roll_prob: list[float] = []
    for n in range(1, 7):
        for roll, p in roll_probabilities(n):
            options = set_asides(roll, four_and_pair)
            if not options:
                continue  # a zero-out banks nothing
            starts.append(len(opt_hand))
            roll_hand.append(n)
            roll_prob.append(p)
            for keep, points in options:
                opt_hand.append(n - len(keep) or 6)
                opt_gain.append(points // STEP)
    hand = np.array(opt_hand)
    gain = np.array(opt_gain)
    seg = np.array(starts)
    r_hand = np.array(roll_hand)
    r_prob = np.array(roll_prob)

    totals = np.arange(size, dtype=np.float64) * STEP
    bank = np.stack([np.where(totals >= entry_threshold, totals, -np.inf), totals])
    w = np.zeros((2, 7, size))
    d = np.zeros((2, 7, size))
    w[:, :, cap_index:] = totals[cap_index:]
    d[:, :, cap_index:] = totals[cap_index:]
    for i in range(cap_index - 1, -1, -1):
        values = d[:, hand, i + gain]
        best = np.maximum.reduceat(values, seg, axis=1)
        for flag in (0, 1):
            w[flag, :, i] = np.bincount(r_hand, weights=r_prob * best[flag], minlength=7)
        d[:, :, i] = np.maximum(bank[:, i, None], w[:, :, i])
    w[:, 0, :] = 0.0
    d[:, 0, :] = 0.0
    return TurnTables(
        entry_threshold, four_and_pair, w[:, :, : cap_index + 1], d[:, :, : cap_index + 1]
    )
