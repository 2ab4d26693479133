"""Slow, independent reference solvers to check the exact Ten Thousand solvers against.

They share nothing with the solvers but the rules (``scoring.set_asides``) and the dice
(``strategy.roll_probabilities``): every roll is kept apart (no merging of outcomes), turns
are valued by plain backward sweeps vectorised over every banked-total position at once, and
the positions are tied together by plain value iteration until nothing moves (no ordering of
positions, no Newton steps).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

from dicehall.games.tenthousand.scoring import set_asides
from dicehall.games.tenthousand.strategy import roll_probabilities

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
GAIN = 80  # six 1s, in steps of 50


@dataclass(frozen=True)
class RawRolls:
    """Every roll of ``n`` dice that scores: options laid end to end, roll by roll."""

    starts: IntArray
    probs: FloatArray
    hand: IntArray
    gain: IntArray
    zero: float


@cache
def raw_rolls(n: int) -> RawRolls:
    """The rolls of ``n`` dice with every set-aside as (dice in hand next, steps gained)."""
    starts: list[int] = []
    probs: list[float] = []
    hand: list[int] = []
    gain: list[int] = []
    zero = 0.0
    for roll, p in roll_probabilities(n):
        options = set_asides(roll)
        if not options:
            zero += p
            continue
        starts.append(len(hand))
        probs.append(p)
        for keep, points in options:
            hand.append(n - len(keep) if len(keep) < n else 6)
            gain.append(points // 50)
    return RawRolls(np.array(starts), np.array(probs), np.array(hand), np.array(gain), zero)


def sweep_positions(bank: FloatArray, zero: FloatArray, cap: IntArray) -> FloatArray:
    """Each position's turn value from six fresh dice (maximising); one row per position.

    ``bank[i, t]``: banking turn total ``t`` (steps), ``-inf`` when not allowed; at ``t >=
    cap[i]`` position ``i`` banks; ``zero[i]``: a zero-out.
    """
    positions, width = bank.shape
    top = int(cap.max())
    assert width >= top + GAIN + 1
    after = np.repeat(bank[:, None, :], 7, axis=1)  # right wherever the seat must bank
    rows = np.arange(positions)[:, None]
    start = np.zeros(positions)
    for t in range(top - 1, -1, -1):
        live = t < cap
        for n in range(1, 7):
            rolls = raw_rolls(n)
            values = after[rows, rolls.hand[None, :], t + rolls.gain[None, :]]
            best = np.maximum.reduceat(values, rolls.starts, axis=1)
            rolling = best @ rolls.probs + rolls.zero * zero
            if t == 0 and n == 6:
                start = rolling
            after[:, n, t] = np.where(live, np.maximum(bank[:, t], rolling), bank[:, t])
    return start


def last_turn_reference(deficits: int) -> FloatArray:
    """A last turn's chance from six fresh dice, by deficit: finish above, level counts half."""
    positions = deficits + 1
    width = deficits + 2 + GAIN
    t = np.arange(width)[None, :]
    need = np.arange(positions)[:, None]
    bank = np.where(t > need, 1.0, np.where(t == need, 0.5, 0.0))
    bank[:, 0] = -np.inf
    return sweep_positions(bank, np.zeros(positions), np.arange(positions) + 1)


def duel_reference(n_target: int, entry: int, cap: int, tol: float = 1e-13) -> FloatArray:
    """``win[a, b]`` of the two-seat game with the solver's cap rule, by value iteration."""
    last = last_turn_reference(2 * n_target + cap + GAIN + 2)
    pairs = [(a, b) for a in range(n_target) for b in range(n_target)]
    caps = np.array([max(n_target, b + cap) - a for a, b in pairs])
    width = int(caps.max()) + GAIN + 1
    win = np.full((n_target, n_target), 0.5)
    for _ in range(10_000):
        bank = np.empty((len(pairs), width))
        for i, (a, b) in enumerate(pairs):
            for t in range(width):
                total = a + t
                bank[i, t] = 1 - (win[b, total] if total < n_target else last[total - b])
            bank[i, 0] = -np.inf
            if a == 0:
                bank[i, :entry] = -np.inf
        zero = np.array([1 - win[b, a] for a, b in pairs])
        new = sweep_positions(bank, zero, caps).reshape(n_target, n_target)
        change = float(np.abs(new - win).max())
        win = new
        if change <= tol:
            return win
    raise AssertionError("the reference duel did not converge")


def solitaire_reference(n_target: int, entry: int, tol: float = 1e-12) -> FloatArray:
    """The fewest expected turns to the target from each banked total, by value iteration."""
    caps = np.array([n_target - b for b in range(n_target)])
    width = n_target + GAIN + 1
    turns = np.zeros(n_target)
    for _ in range(100_000):
        bank = np.empty((n_target, width))
        for b in range(n_target):
            for t in range(width):
                bank[b, t] = -turns[b + t] if b + t < n_target else 0.0
            bank[b, 0] = -np.inf
            if b == 0:
                bank[b, :entry] = -np.inf
        new = 1 - sweep_positions(bank, -turns, caps)
        change = float(np.abs(new - turns).max())
        turns = new
        if change <= tol * max(1.0, float(turns.max())):
            return turns
    raise AssertionError("the reference solitaire did not converge")
