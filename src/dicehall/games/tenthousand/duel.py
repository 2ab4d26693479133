"""Two seats, exact: the policy that maximises the chance to win (a shared win counts half).

The game between turns is a pair of banked totals ``(a, b)``, the seat to move holding ``a``,
both below the target; ``win[a, b]`` is that seat's chance under best play by both. A turn
ends in one of three ways: a zero-out hands the opponent the move at ``(b, a)``; a bank below
the target hands it over at ``(b, a + t)``; a bank at or above the target starts the final
round, where the opponent has one last turn to finish above ``a + t`` (level counts half).

Banked totals only grow, so pairs are solved by decreasing sum ``a + b``: a bank always
lands on a larger sum, already solved, and a zero-out lands on the mirror pair of the same
sum. Each pair and its mirror are one fixed point ``x = F(1 - G(1 - x))`` in the mover's
chance ``x``, solved by safeguarded Newton steps (see :mod:`.kernels`); the pairs of one sum
are independent of each other and are solved in parallel.

Turn totals above the target are capped: a seat whose total reaches ``b + cap`` banks. The
cap is the smallest deficit at which a last turn's chance (``last_roll[6]``) is at most
``epsilon``; banking there gives the opponent at most ``epsilon``, so the forced bank costs at
most ``epsilon``, and it can happen at most once a game (the bank starts the final round).
Every chance in the tables is therefore within ``epsilon`` of the uncapped game's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from dicehall.games.tenthousand.kernels import (
    MAX_GAIN,
    duel_bank_values,
    duel_cap,
    duel_diagonal,
    duel_stride,
    entry_offsets,
    last_turn,
    last_turn_bank_values,
)
from dicehall.games.tenthousand.plans import TurnPlan, sweep
from dicehall.games.tenthousand.strategy import STEP
from dicehall.games.tenthousand.transitions import Transitions

FloatArray = npt.NDArray[np.float64]
Progress = Callable[[int, int], None]
"""Called with (work done, work in all) as a solve goes on."""

#: The default bound on how far the capped game's chances may be from the exact game's.
DEFAULT_EPSILON = 1e-7


def steps_up(points: int) -> int:
    """A threshold in points as steps of 50, rounded up (totals are always multiples of 50)."""
    return -(-points // STEP)


def _steps(points: int, what: str) -> int:
    if points < 0 or points % STEP:
        raise ValueError(f"{what} must be a multiple of {STEP} and at least 0, not {points}")
    return points // STEP


def last_turn_tables(rules: Transitions, deficits: int) -> tuple[FloatArray, FloatArray]:
    """``(last_roll, last_after)`` for deficits 0 to ``deficits`` steps (see kernels)."""
    return last_turn(
        rules.group_start,
        rules.group_prob,
        rules.entry_start,
        rules.entry_hand,
        rules.entry_gain,
        deficits,
    )


def cap_for(rules: Transitions, epsilon: float) -> int:
    """The smallest deficit (steps, at least 1) at which a last turn's chance is ``epsilon``."""
    if not 0 < epsilon < 0.5:
        raise ValueError(f"epsilon must be between 0 and 0.5, not {epsilon}")
    deficits = 256
    while True:
        roll = last_turn_tables(rules, deficits)[0][6]
        below = np.nonzero(roll[1:] <= epsilon)[0]
        if len(below):
            return int(below[0]) + 1
        deficits *= 2


@dataclass(frozen=True, eq=False)
class DuelTables:
    """The exact two-seat solution for one set of rules (steps of 50 inside the arrays)."""

    rules: Transitions
    target_steps: int
    entry_steps: int
    cap_steps: int
    epsilon: float
    #: ``win[a, b]``: the chance of the seat about to roll with ``a`` against ``b`` banked.
    win: FloatArray
    #: ``last_roll[n, d]``: a last turn's chance rolling ``n`` dice ``d`` steps behind.
    last_roll: FloatArray
    #: ``last_after[n, d]``: the same after a set-aside (level: bank for 1/2 if better).
    last_after: FloatArray

    @property
    def first_seat_win(self) -> float:
        """The first seat's chance to win a fresh game under best play by both seats."""
        return float(self.win[0, 0])

    def win_chance(self, banked: int, opponent: int) -> float:
        """The chance of the seat about to start a turn with ``banked`` against ``opponent``."""
        a, b = self._pair(banked, opponent)
        return float(self.win[a, b])

    def last_turn_chance(self, banked: int, to_beat: int) -> float:
        """A last turn's chance from its first roll: finish above ``to_beat``, level half."""
        deficit = _steps(to_beat, "the total to beat") - _steps(banked, "banked")
        if deficit < 0:
            raise ValueError("a last turn starts behind the total to beat")
        if deficit >= self.last_roll.shape[1]:
            return 0.0  # below epsilon: see the module notes
        return float(self.last_roll[6, deficit])

    def plan(self, banked: int, opponent: int, reach: int = 0) -> TurnPlan:
        """Every choice of the turn of a seat with ``banked`` against ``opponent`` (points).

        ``reach``: the plan holds rolling values at least up to this turn total.
        """
        a, b = self._pair(banked, opponent)
        cap = max(duel_cap(self.target_steps, self.cap_steps, a, b), _steps(reach, "reach") + 1)
        bank = duel_bank_values(
            self.win, self.last_roll[6], a, b, self.entry_steps, cap + MAX_GAIN + 1
        )
        return sweep(self.rules, bank, cap, 1.0 - float(self.win[b, a]))

    def last_turn_plan(self, banked: int, to_beat: int, reach: int = 0) -> TurnPlan:
        """Every choice of a last turn in the final round: beat ``to_beat``, level counts half."""
        deficit = _steps(to_beat, "the total to beat") - _steps(banked, "banked")
        cap = max(deficit + 1, _steps(reach, "reach") + 1, 1)
        a = _steps(banked, "banked")
        bank = last_turn_bank_values(a, deficit, self.entry_steps, cap + MAX_GAIN + 1)
        return sweep(self.rules, bank, cap, 0.0)

    def _pair(self, banked: int, opponent: int) -> tuple[int, int]:
        a, b = _steps(banked, "banked"), _steps(opponent, "opponent")
        if a >= self.target_steps or b >= self.target_steps:
            raise ValueError("both banked totals must be below the target between turns")
        return a, b


def solve_duel(
    rules: Transitions,
    target: int,
    entry_threshold: int,
    epsilon: float = DEFAULT_EPSILON,
    progress: Progress | None = None,
) -> DuelTables:
    """Solve the two-seat game for a target and entry threshold in points (see module notes)."""
    if target < STEP or not 0 <= entry_threshold <= target:
        raise ValueError("the target must be at least 50 and the entry threshold 0 to target")
    n_target = steps_up(target)
    entry = steps_up(entry_threshold)
    cap = cap_for(rules, epsilon)
    last_roll, last_after = last_turn_tables(rules, n_target + cap + MAX_GAIN + 1)
    win = np.zeros((n_target, n_target))
    offsets = entry_offsets(rules.entry_hand, rules.entry_gain, duel_stride(n_target, cap))
    pairs = n_target * (n_target + 1) // 2
    done = 0
    for total in range(2 * (n_target - 1), -1, -1):
        duel_diagonal(
            rules.group_start,
            rules.group_prob,
            rules.entry_start,
            offsets,
            rules.zero_prob,
            win,
            last_roll[6],
            entry,
            cap,
            total,
        )
        done += min(total, 2 * (n_target - 1) - total) // 2 + 1
        if progress is not None:
            progress(done, pairs)
    if not np.all(np.isfinite(win)):
        raise ArithmeticError("the two-seat solve did not converge")
    return DuelTables(rules, n_target, entry, cap, epsilon, win, last_roll, last_after)
