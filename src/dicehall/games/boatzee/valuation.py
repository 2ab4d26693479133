"""Valuing a turn's final choices by the solved tables.

A choice's value is what it adds now (points, upper bonus, 100 bonus) plus what the tables
expect every column to add afterwards. With one column that is the solved table itself, so
planning the turn by it is optimal play. Double and Triple have no exact solution: a card
is valued as the sum of its columns, column k by the exact single-column table of a game
whose boxes count k times (its bonus once), which is exactly what playing each column on
its own, optimally, would still add. Choosing every turn's moves by that value is one step
of policy improvement over that play, so it does at least as well, and in practice much
better, since every roll goes to the column where it is worth most.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from dicehall.games.boatzee.card import (
    EXTRA_BOATZEE_BONUS,
    UPPER_BONUS,
    UPPER_BONUS_THRESHOLD,
    Card,
    Joker,
    Ruleset,
    allowed,
    extra_bonus_due,
    joker_values,
    open_boxes,
    total,
)
from dicehall.games.boatzee.dice_tables import FIVE_OF_A_KIND, FloatArray, IntArray
from dicehall.games.boatzee.scoring import (
    BOATZEE,
    BOATZEE_POINTS,
    BOX_INDEX,
    BOXES,
    HANDS,
    SCORES,
    UPPER,
    Box,
    joker_score,
)
from dicehall.games.boatzee.table_cache import Progress, table

_SCORES: IntArray = np.array(SCORES, dtype=np.int64)

State = tuple[int, int, int]
"""(fifty, mask, upper): a column as the tables index it."""


def column_state(card: Card, column: int, ruleset: Ruleset) -> State:
    """The table index of a column: 50 in its Boatzee box (yahtzee), filled boxes, upper."""
    boxes = card.boxes[column - 1]
    mask = sum(1 << i for i, v in enumerate(boxes) if v is not None)
    upper = min(UPPER_BONUS_THRESHOLD, sum(v for v in boxes[:6] if v is not None))
    fifty = int(ruleset == "yahtzee" and boxes[BOATZEE] == BOATZEE_POINTS)
    return fifty, mask, upper


class TableValuation:
    """Values choices by ``tables[k - 1]``, the solved table for column k (multiplier k),
    solved for ``ruleset`` and, in the yahtzee ruleset, the ``joker`` rule."""

    def __init__(
        self, tables: Sequence[FloatArray], ruleset: Ruleset, joker: Joker = "forced"
    ) -> None:
        # Plain arrays: indexing a memory map directly costs more than the arithmetic.
        self.tables = tuple(np.asarray(t) for t in tables)
        self.ruleset = ruleset
        self.joker = joker

    def column_future(self, card: Card, column: int) -> float:
        """What the table expects column ``column`` to add from the start of a turn."""
        return float(self.tables[column - 1][column_state(card, column, self.ruleset)])

    def future(self, card: Card) -> float:
        """What the tables expect the card to add (exact with one column)."""
        return sum(self.column_future(card, k) for k in range(1, card.columns + 1))

    def value(self, card: Card) -> float:
        """The card's total plus :meth:`future`."""
        return total(card) + self.future(card)

    def choice_values(
        self, card: Card, ruleset: Ruleset, joker: Joker = "forced"
    ) -> tuple[list[tuple[Box, int]], FloatArray]:
        """Every open (box, column) and ``values[hand, choice]``: the points scoring the hand
        there adds plus what the tables expect afterwards; ``-inf`` where the rules forbid it.
        """
        if (ruleset, joker) != (self.ruleset, self.joker) or card.columns != len(self.tables):
            raise ValueError(
                "these tables are for another ruleset, joker rule or number of columns"
            )
        choices = open_boxes(card)
        futures = [self.column_future(card, k) for k in range(1, card.columns + 1)]
        everything = sum(futures)
        blocks = [
            self._column_values(card, k, everything - futures[k - 1])
            for k in range(1, card.columns + 1)
        ]
        values = np.concatenate(blocks, axis=1)
        if ruleset == "yahtzee":
            self._play_fives(card, choices, values)
        return choices, values

    def _column_values(self, card: Card, column: int, others: float) -> FloatArray:
        # values[hand, j] for the column's j-th open box, all open boxes at once.
        fifty, mask, upper = column_state(card, column, self.ruleset)
        boxes = np.array([b for b in range(len(BOXES)) if not mask >> b & 1], dtype=np.int64)
        raw = _SCORES[:, boxes]
        is_upper = boxes < 6
        reached = upper + raw
        next_upper = np.where(is_upper, np.minimum(reached, UPPER_BONUS_THRESHOLD), upper)
        crossed = is_upper & (upper < UPPER_BONUS_THRESHOLD) & (reached >= UPPER_BONUS_THRESHOLD)
        next_fifty = np.full(raw.shape, fifty)
        if self.ruleset == "yahtzee":
            next_fifty = np.where(boxes == BOATZEE, raw == BOATZEE_POINTS, next_fifty)
        after = mask | 1 << boxes
        ahead = self.tables[column - 1][next_fifty, after, next_upper]
        result: FloatArray = column * raw + UPPER_BONUS * crossed + ahead + others
        return result

    def _play_fives(self, card: Card, choices: list[tuple[Box, int]], values: FloatArray) -> None:
        # Jokers and the 100 bonus: the rules decide these six hands' boxes and points. Each
        # allowed box changes one column's state; the others keep what they expect.
        where = {choice: c for c, choice in enumerate(choices)}
        states = [column_state(card, k, self.ruleset) for k in range(1, card.columns + 1)]
        futures = [float(t[state]) for t, state in zip(self.tables, states, strict=True)]
        everything = sum(futures)
        for h in FIVE_OF_A_KIND:
            dice = HANDS[h]
            values[h, :] = -np.inf
            extra = EXTRA_BOATZEE_BONUS if extra_bonus_due(card, dice, self.ruleset) else 0
            scores = _SCORES[h]
            as_joker = joker_values(card, dice, self.ruleset)  # what points() would decide
            for box, k in allowed(card, dice, self.ruleset, self.joker):
                fifty, mask, upper = states[k - 1]
                b = BOX_INDEX[box]
                value = joker_score(b, dice) if as_joker else int(scores[b])
                gained = k * value + extra
                if b < len(UPPER):
                    if upper < UPPER_BONUS_THRESHOLD <= upper + value:
                        gained += UPPER_BONUS
                    upper = min(UPPER_BONUS_THRESHOLD, upper + value)
                elif b == BOATZEE:
                    fifty = int(self.ruleset == "yahtzee" and value == BOATZEE_POINTS)
                ahead = float(self.tables[k - 1][fifty, mask | 1 << b, upper])
                values[h, where[(box, k)]] = gained + ahead + everything - futures[k - 1]


def for_game(
    columns: int, ruleset: Ruleset, progress: Progress | None = None, joker: Joker = "forced"
) -> TableValuation:
    """The valuation for a game of ``columns`` columns, solving any table not yet cached."""
    tables = [table(ruleset, k, progress, joker=joker).values for k in range(1, columns + 1)]
    return TableValuation(tables, ruleset, joker)
