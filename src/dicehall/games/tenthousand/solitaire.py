"""One seat, exact: the play that needs the fewest turns on average to reach the target.

``expected_turns[B]`` is the expected number of turns still needed from a banked total ``B``
(steps of 50), counting the turn that reaches the target, with the entry threshold in force
while nothing is banked. A turn from ``B`` banks (moving to a larger total) or zeroes out
(staying at ``B``), so totals are solved from the target down, each one a fixed point in its
own value (see :func:`.kernels.solitaire_solve`). Turn totals never need to pass the target:
a bank that reaches it ends the game, and nothing beats that.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from dicehall.games.tenthousand.duel import steps_up
from dicehall.games.tenthousand.kernels import (
    MAX_GAIN,
    entry_offsets,
    solitaire_bank_values,
    solitaire_solve,
)
from dicehall.games.tenthousand.plans import TurnPlan, sweep
from dicehall.games.tenthousand.strategy import STEP
from dicehall.games.tenthousand.transitions import Transitions

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, eq=False)
class SolitaireTables:
    """The fewest expected turns to the target from every banked total below it."""

    rules: Transitions
    target_steps: int
    entry_steps: int
    expected_turns: FloatArray

    def turns_to_target(self, banked: int = 0) -> float:
        """The expected turns still needed from ``banked`` points (0 once at the target)."""
        b = banked // STEP
        return 0.0 if b >= self.target_steps else float(self.expected_turns[b])

    def plan(self, banked: int, reach: int = 0) -> TurnPlan:
        """Every choice of a turn from ``banked`` points, valued as minus the turns still needed
        after this one; ``reach``: the plan holds rolling values at least up to this total."""
        b = banked // STEP
        if not 0 <= b < self.target_steps:
            raise ValueError("the banked total must be below the target")
        cap = max(self.target_steps - b, reach // STEP + 1)
        bank = solitaire_bank_values(self.expected_turns, b, self.entry_steps, cap + MAX_GAIN + 1)
        return sweep(self.rules, bank, cap, -float(self.expected_turns[b]))


def solve_solitaire(rules: Transitions, target: int, entry_threshold: int) -> SolitaireTables:
    """Solve the one-seat race to ``target`` points with this entry threshold."""
    if target < STEP or not 0 <= entry_threshold <= target:
        raise ValueError("the target must be at least 50 and the entry threshold 0 to target")
    n_target = steps_up(target)
    entry = steps_up(entry_threshold)
    turns = solitaire_solve(
        rules.group_start,
        rules.group_prob,
        rules.entry_start,
        entry_offsets(rules.entry_hand, rules.entry_gain, n_target + MAX_GAIN + 1),
        rules.zero_prob,
        n_target,
        entry,
    )
    return SolitaireTables(rules, n_target, entry, np.asarray(turns, dtype=np.float64))
