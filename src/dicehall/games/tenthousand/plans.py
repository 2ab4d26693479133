"""One turn solved for fixed banked totals: the value of every choice a seat can make in it.

A :class:`TurnPlan` is what the solvers' turn sweep leaves behind (see :mod:`.kernels`): for
each turn total and each number of dice in hand, what banking, rolling on, and arriving there
after a set-aside are worth, in the plan's own measure (a chance to win for two seats, minus
the expected turns still needed for one). Bots and hints read their choices from it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from dicehall.games.tenthousand.kernels import MAX_GAIN, entry_offsets, turn_sweep
from dicehall.games.tenthousand.strategy import STEP
from dicehall.games.tenthousand.transitions import Transitions

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, eq=False)
class TurnPlan:
    """The values of one turn: ``bank[t]``, and ``after``/``rolling`` flat by dice and total.

    Turn totals are in steps of 50 inside the arrays and in points in the methods. At ``cap``
    steps or more the seat banks.
    """

    bank: FloatArray
    after: FloatArray
    rolling: FloatArray
    cap: int
    stride: int
    zero: float

    @property
    def start(self) -> float:
        """The value of the turn before its first roll (six dice, nothing set aside)."""
        return float(self.rolling[6 * self.stride])

    @property
    def max_turn_total(self) -> int:
        """The largest turn total (points) whose choices the plan holds."""
        return (self.cap + MAX_GAIN) * STEP

    def _index(self, turn_total: int) -> int:
        t = turn_total // STEP
        if not 0 <= t <= self.cap + MAX_GAIN:
            raise ValueError(f"turn total {turn_total} is outside this plan")
        return t

    def bank_value(self, turn_total: int) -> float | None:
        """What banking ``turn_total`` is worth, or None when banking it is not allowed."""
        value = float(self.bank[self._index(turn_total)])
        return None if math.isinf(value) else value

    def roll_value(self, in_hand: int, turn_total: int) -> float:
        """What rolling ``in_hand`` dice at ``turn_total`` is worth, playing on as planned.

        Only below the cap: at the cap the plan banks and holds no value for rolling on.
        """
        t = self._index(turn_total)
        if t >= self.cap:
            raise ValueError(
                f"turn total {turn_total} is at or past this plan's cap ({self.cap * STEP}); "
                "build the plan with a larger reach"
            )
        return float(self.rolling[in_hand * self.stride + t])

    def after_set_aside(self, in_hand: int, turn_total: int) -> float:
        """What a set-aside leaving ``in_hand`` dice (6 on hot dice) at ``turn_total`` is worth."""
        return float(self.after[in_hand * self.stride + self._index(turn_total)])

    def should_bank(self, in_hand: int, turn_total: int) -> bool:
        """True when banking is allowed and worth at least as much as rolling on."""
        bank = self.bank_value(turn_total)
        if bank is None:
            return False
        t = self._index(turn_total)
        return t >= self.cap or bank >= self.rolling[in_hand * self.stride + t]


def sweep(
    rules: Transitions, bank: FloatArray, cap: int, zero: float, stride: int | None = None
) -> TurnPlan:
    """Solve one turn with these bank values (steps), cap and zero-out value."""
    if stride is None:
        stride = cap + MAX_GAIN + 1
    if len(bank) < cap + MAX_GAIN + 1 or stride < cap + MAX_GAIN + 1 or cap < 1:
        raise ValueError("bank values must reach past the cap by the largest set-aside")
    after = np.empty(7 * stride)
    slopes = np.empty_like(after)
    rolling = np.empty_like(after)
    turn_sweep(
        rules.group_start,
        rules.group_prob,
        rules.entry_start,
        entry_offsets(rules.entry_hand, rules.entry_gain, stride),
        rules.zero_prob,
        bank,
        cap,
        zero,
        after,
        slopes,
        rolling,
    )
    return TurnPlan(bank, after, rolling, cap, stride, zero)
