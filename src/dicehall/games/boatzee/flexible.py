"""Valuing Double and Triple cards by columns that may wait for their rolls.

The solitaire tables value a column as if it took every roll it is given: in Double and
Triple a column is filled only by the rolls that suit it best, and the others go to the
other columns. :mod:`relaxed` solves a column's game with turns to spare (it may pass); a
column with ``n`` open boxes, in a game with ``t`` turns left after this one, is valued
here with ``SPARE_SHARE * (t - n)`` turns to spare: with a share of 0 this is the
solitaire decomposition, with 1 every column believes it has every roll to itself. The
shares were chosen by self-play, 2000 games each on the same dice (``bench/bench_flex.py``):
Double gains most at 0.3 (0.3 to 0.6 within 2 points), Triple at 0.2.

The boatzee ruleset only: in the yahtzee ruleset the 100-point bonus and the jokers tie the
columns together, and the solitaire decomposition (:mod:`valuation`) plays them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from dicehall.games.boatzee.card import (
    UPPER_BONUS,
    UPPER_BONUS_THRESHOLD,
    Card,
    Joker,
    Ruleset,
    open_boxes,
    total,
)
from dicehall.games.boatzee.dice_tables import FloatArray, IntArray
from dicehall.games.boatzee.flex_tables import SPARE, Float32Array, flex_table
from dicehall.games.boatzee.scoring import BOXES, SCORES, Box
from dicehall.games.boatzee.table_cache import Progress
from dicehall.games.boatzee.valuation import column_state

#: The share of the other columns' turns a column is valued as able to wait through, by
#: number of columns (see the module's docstring).
SPARE_SHARE = {2: 0.3, 3: 0.2}

_SCORES: IntArray = np.array(SCORES, dtype=np.int64)


class FlexValuation:
    """Values choices by each column's relaxed table at the spare turns it is granted."""

    def __init__(self, bands: Sequence[Float32Array], share: float) -> None:
        if not 0 <= share <= 1:
            raise ValueError(f"the spare share is 0 to 1, not {share}")
        if share * len(BOXES) * (len(bands) - 1) > SPARE:
            raise ValueError(f"the tables keep {SPARE} spare turns, fewer than this share asks")
        self.bands = tuple(bands)
        self.share = share

    def at(self, column: int, spare: float, mask: object, upper: object) -> FloatArray:
        """Column ``column``'s relaxed value with ``spare`` turns to spare (interpolated
        between whole turns) at ``mask`` and ``upper`` (numbers or arrays of them)."""
        low = int(spare)
        part = spare - low
        bands = self.bands[column - 1]
        found: FloatArray = bands[low][mask, upper].astype(np.float64)
        if part > 0:
            higher = bands[min(low + 1, SPARE)][mask, upper]
            found = (1 - part) * found + part * higher
        return found

    def _futures(self, card: Card, turns_after: int) -> list[float]:
        # What each column, unchanged, is worth when this many turns are left after a turn.
        futures = []
        for k in range(1, card.columns + 1):
            _, mask, upper = column_state(card, k, "boatzee")
            waiting = len(BOXES) - mask.bit_count()
            spare = self.share * (turns_after - waiting)
            futures.append(float(self.at(k, spare, mask, upper)) if waiting else 0.0)
        return futures

    def future(self, card: Card) -> float:
        """What the tables expect the card to add from the start of a turn."""
        return sum(self._futures(card, len(open_boxes(card))))

    def value(self, card: Card) -> float:
        """The card's total plus :meth:`future`."""
        return total(card) + self.future(card)

    def choice_values(
        self, card: Card, ruleset: Ruleset, joker: Joker = "forced"
    ) -> tuple[list[tuple[Box, int]], FloatArray]:
        """Every open (box, column) and ``values[hand, choice]``: the points scoring the hand
        there adds plus what the columns' tables expect afterwards."""
        if ruleset != "boatzee" or card.columns != len(self.bands):
            raise ValueError("these tables are for the boatzee ruleset and another card")
        choices = open_boxes(card)
        turns_after = len(choices) - 1
        futures = self._futures(card, turns_after)
        everything = sum(futures)
        blocks = [
            self._column_values(card, k, turns_after, everything - futures[k - 1])
            for k in range(1, card.columns + 1)
        ]
        return choices, np.concatenate(blocks, axis=1)

    def _column_values(
        self, card: Card, column: int, turns_after: int, others: float
    ) -> FloatArray:
        _, mask, upper = column_state(card, column, "boatzee")
        boxes = np.array([b for b in range(len(BOXES)) if not mask >> b & 1], dtype=np.int64)
        raw = _SCORES[:, boxes]
        is_upper = boxes < 6
        reached = upper + raw
        next_upper = np.where(is_upper, np.minimum(reached, UPPER_BONUS_THRESHOLD), upper)
        crossed = is_upper & (upper < UPPER_BONUS_THRESHOLD) & (reached >= UPPER_BONUS_THRESHOLD)
        waiting = len(boxes) - 1
        ahead = self.at(column, self.share * (turns_after - waiting), mask | 1 << boxes, next_upper)
        result: FloatArray = column * raw + UPPER_BONUS * crossed + ahead + others
        return result


def for_columns(columns: int, progress: Progress | None = None) -> FlexValuation:
    """The valuation for a boatzee-ruleset game of 2 or 3 columns (tables solved if needed)."""
    if columns not in SPARE_SHARE:
        raise ValueError(f"flexible columns are for Double and Triple, not {columns} columns")
    bands = [flex_table(k, progress).bands for k in range(1, columns + 1)]
    return FlexValuation(bands, SPARE_SHARE[columns])
