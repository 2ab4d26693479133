"""How bots value a scorecard, and the table of what each final choice is worth this turn.

``greedy`` values a card by its total alone (best immediate points). ``heuristic`` adds an
estimate of what the open boxes are still worth: each open box its typical score under
strong play times its column's multiplier, and each column's upper bonus times an estimated
chance of still reaching 63 with the open upper boxes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dicehall.games.boatzee.card import (
    UPPER_BONUS,
    UPPER_BONUS_THRESHOLD,
    Card,
    Joker,
    Ruleset,
    allowed,
    fill,
    open_boxes,
    total,
    upper_total,
)
from dicehall.games.boatzee.dice_tables import FIVE_OF_A_KIND, FloatArray, score_table
from dicehall.games.boatzee.scoring import BOX_INDEX, HANDS, Box

#: Typical points of each box under strong solitaire play, in box order (ones .. chance).
TYPICAL: tuple[float, ...] = (
    1.88,
    5.28,
    8.57,
    12.16,
    15.69,
    19.19,
    21.66,
    13.10,
    22.59,
    29.46,
    32.71,
    16.87,
    22.01,
)


@dataclass(frozen=True)
class Valuation:
    """A bot's idea of a card's worth: its total plus ``box_weight`` x typical open-box points
    plus, when ``bonus_prospect``, the upper bonuses it can still expect.

    ``spread`` is the assumed standard deviation of one open upper box, in dice of its face.
    """

    box_weight: float = 0.0
    bonus_prospect: bool = False
    spread: float = 1.0

    def prospect(self, need: float, faces: tuple[int, ...]) -> float:
        """Estimated chance that open upper ``faces`` still add ``need`` or more."""
        if need <= 0:
            return 1.0
        if not self.bonus_prospect or not faces or 5 * sum(faces) < need:
            return 0.0
        mean = sum(TYPICAL[f - 1] for f in faces)
        sd = self.spread * math.sqrt(sum(f * f for f in faces))
        return 1.0 / (1.0 + math.exp(-1.7 * (mean - need) / sd))

    def _prospects(self, needs: FloatArray, faces: tuple[int, ...]) -> FloatArray:
        if not self.bonus_prospect or not faces:
            return np.where(needs <= 0, 1.0, 0.0)
        mean = sum(TYPICAL[f - 1] for f in faces)
        sd = self.spread * math.sqrt(sum(f * f for f in faces))
        p = 1.0 / (1.0 + np.exp(-1.7 * (mean - needs) / sd))
        p = np.where(5 * sum(faces) < needs, 0.0, p)
        return np.where(needs <= 0, 1.0, p)

    def future(self, card: Card) -> float:
        """What the open boxes and unearned upper bonuses are still expected to add."""
        worth = 0.0
        for k, column in enumerate(card.boxes, start=1):
            worth += (
                k * self.box_weight * sum(TYPICAL[i] for i, v in enumerate(column) if v is None)
            )
            upper = upper_total(card, k)
            if upper < UPPER_BONUS_THRESHOLD:
                faces = tuple(i + 1 for i in range(6) if column[i] is None)
                worth += UPPER_BONUS * self.prospect(UPPER_BONUS_THRESHOLD - upper, faces)
        return worth

    def value(self, card: Card) -> float:
        """The card's total plus its expected future (the quantity a bot maximises)."""
        return total(card) + self.future(card)

    def choice_values(
        self, card: Card, ruleset: Ruleset, joker: Joker = "forced"
    ) -> tuple[list[tuple[Box, int]], FloatArray]:
        """Every open (box, column) and ``values[hand, choice]``: how much scoring each hand
        there changes :meth:`value`; choices the rules forbid for a hand are ``-inf``.
        """
        choices = open_boxes(card)
        scores = score_table()
        values = np.empty((len(HANDS), len(choices)))
        for c, (box, k) in enumerate(choices):
            b = BOX_INDEX[box]
            raw = scores[:, b]
            values[:, c] = k * (raw - self.box_weight * TYPICAL[b])
            upper = upper_total(card, k)
            if b < 6 and upper < UPPER_BONUS_THRESHOLD:
                column = card.boxes[k - 1]
                others = tuple(i + 1 for i in range(6) if column[i] is None and i != b)
                before = self.prospect(UPPER_BONUS_THRESHOLD - upper, (*others, b + 1))
                after = self._prospects(UPPER_BONUS_THRESHOLD - upper - raw, others)
                values[:, c] += UPPER_BONUS * (after - before)
        if ruleset == "yahtzee":
            self._play_fives(card, ruleset, joker, choices, values)
        return choices, values

    def _play_fives(
        self,
        card: Card,
        ruleset: Ruleset,
        joker: Joker,
        choices: list[tuple[Box, int]],
        values: FloatArray,
    ) -> None:
        # Jokers and the 100 bonus depend on the whole card: value these six hands one by one.
        base = self.value(card)
        where = {choice: c for c, choice in enumerate(choices)}
        for h in FIVE_OF_A_KIND:
            dice = HANDS[h]
            values[h, :] = -np.inf
            for box, k in allowed(card, dice, ruleset, joker):
                after = fill(card, dice, ruleset, box, k, joker)
                values[h, where[(box, k)]] = self.value(after) - base


GREEDY = Valuation()
HEURISTIC = Valuation(box_weight=0.8, bonus_prospect=True, spread=1.4)
