"""One turn planned exactly: the best re-rolls and box for a given value of each final choice.

Given ``values[hand, choice]`` (what scoring ``hand`` in each choice is worth to a bot), the
planner maximises the expected value of the turn over the two re-rolls (expectimax).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from dicehall.games.boatzee.dice_tables import (
    KEEP_INDEX,
    FloatArray,
    keep_masks,
    keep_of,
    sub_keeps,
    transitions,
)
from dicehall.games.boatzee.scoring import HAND_INDEX, hand_of

FULL_MASK = 31


@dataclass(frozen=True)
class Decision:
    """A planned move: re-roll ``reroll`` (0-based positions), or score choice ``choice``."""

    reroll: tuple[int, ...]
    choice: int
    value: float


class TurnPlan:
    """Expected values of every hand and keep for one scorecard position."""

    def __init__(self, values: FloatArray) -> None:
        if values.ndim != 2 or values.shape[1] == 0:
            raise ValueError("a turn plan needs at least one choice per hand")
        t = transitions()
        sub = sub_keeps()
        self.values = values
        self.best_choice = values.argmax(axis=1)
        self.stop = values.max(axis=1)
        # keep_value[r][k]: expected value of holding keep k with r re-rolls left after it.
        after_one = t @ self.stop
        with_one_left = np.maximum(self.stop, after_one[sub].max(axis=1))
        after_two = t @ with_one_left
        self.keep_value = (after_one, after_two)

    def decide(self, dice: Sequence[int], rerolls_left: int) -> Decision:
        """The best move for ``dice`` (in position order) with ``rerolls_left`` re-rolls."""
        hand = HAND_INDEX[hand_of(dice)]
        stop = float(self.stop[hand])
        best = Decision((), int(self.best_choice[hand]), stop)
        if rerolls_left <= 0:
            return best
        table = self.keep_value[min(rerolls_left, 2) - 1]
        for mask in keep_masks():
            if mask == FULL_MASK:
                continue
            value = float(table[KEEP_INDEX[keep_of(dice, mask)]])
            # Re-roll only for a real gain, so ties keep the dice (and the rounding quiet).
            if value > best.value + 1e-9:
                positions = tuple(i for i in range(len(dice)) if not mask >> i & 1)
                best = Decision(positions, -1, value)
        return best
