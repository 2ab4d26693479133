"""A plain expectimax over whole scorecards, to check the solver on small games.

It knows nothing of the solver: it scores with the rules' own card functions (``allowed``,
``fill``, ``total``: joker, bonuses and multipliers included), plans re-rolls with the
dense keep -> hand matrix, and remembers a card's future by what it depends on (the open
boxes, the uncapped upper totals and the Boatzee boxes), so games of two or three open
boxes take a second or so.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from dicehall.games.boatzee.card import Card, Joker, Ruleset, allowed, fill, total, upper_total
from dicehall.games.boatzee.dice_tables import KEEP_INDEX, FloatArray, sub_keeps, transitions
from dicehall.games.boatzee.scoring import BOATZEE, HANDS


@dataclass(frozen=True)
class Moments:
    """The mean and mean square of the points still to come under optimal play."""

    mean: float
    square: float

    @property
    def std(self) -> float:
        """The standard deviation."""
        return float(np.sqrt(max(0.0, self.square - self.mean**2)))


def _key(card: Card) -> tuple[object, ...]:
    columns = (
        (tuple(v is None for v in column), upper_total(card, k), column[BOATZEE])
        for k, column in enumerate(card.boxes, start=1)
    )
    return (*columns, card.extra_bonuses > 0)


class Reference:
    """Optimal expected points to come (and their mean square) for small games."""

    def __init__(self, ruleset: Ruleset, joker: Joker = "forced") -> None:
        self.ruleset = ruleset
        self.joker = joker
        self._memo: dict[tuple[object, ...], Moments] = {}

    def future(self, card: Card) -> Moments:
        """From the start of a turn with ``card``."""
        if all(v is not None for column in card.boxes for v in column):
            return Moments(0.0, 0.0)
        key = _key(card)
        if key not in self._memo:
            self._memo[key] = self._turn(card)
        return self._memo[key]

    def _turn(self, card: Card) -> Moments:
        stop = np.empty(len(HANDS))
        stop2 = np.empty(len(HANDS))
        for h, hand in enumerate(HANDS):
            best = (-np.inf, 0.0)
            for box, column in allowed(card, hand, self.ruleset, self.joker):
                after = fill(card, hand, self.ruleset, box, column, self.joker)
                gain = float(total(after) - total(card))
                rest = self.future(after)
                value = gain + rest.mean
                if value > best[0]:
                    best = (value, gain * gain + 2 * gain * rest.mean + rest.square)
            stop[h], stop2[h] = best
        hand_value, hand_square = stop, stop2
        for _ in range(2):
            hand_value, hand_square = _reroll(stop, stop2, hand_value, hand_square)
        first = _first_roll()
        return Moments(float(first @ hand_value), float(first @ hand_square))


@cache
def _first_roll() -> FloatArray:
    return np.asarray(transitions()[KEEP_INDEX[()]], dtype=np.float64)


def _reroll(
    stop: FloatArray, stop2: FloatArray, after: FloatArray, after2: FloatArray
) -> tuple[FloatArray, FloatArray]:
    # Score now, or hold the best proper subset of the dice and re-roll the rest, the new
    # hand then being worth ``after``.
    t = transitions()
    proper = sub_keeps()[:, :31]  # mask 31 would hold all five dice: not a re-roll
    options = (t @ after)[proper]
    squares = (t @ after2)[proper]
    rows = np.arange(len(HANDS))
    best = options.argmax(axis=1)
    reroll = options[rows, best] > stop
    value = np.where(reroll, options[rows, best], stop)
    square = np.where(reroll, squares[rows, best], stop2)
    return value, square
