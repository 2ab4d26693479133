"""Boatzee's numbering and observation (one to three columns, either ruleset).

Actions: ``Reroll(positions)`` for every non-empty set of the five positions, by bit mask
(position ``i`` is bit ``i``: numbers 0 to 30), then ``Score(box, column)`` column by
column in score-card order (``31 + 13 * (column - 1) + box``).

Observation (``seats * (27 * columns + 2) + seats + 34`` numbers, seats from the observer):

- per seat, per column, per box: whether it is filled, and what it holds / 50;
- per seat, per column: the upper total / 63;
- per seat: the card's total / (400 * columns), and the extra-Boatzee bonuses / 10;
- the seat to act, one-hot;
- each of the five dice in position order, one-hot over its face (all zero before a roll);
- re-rolls left, one-hot (0, 1, 2);
- turns played / turns in the game.
"""

from __future__ import annotations

import numpy as np

from dicehall.games.boatzee.card import UPPER_BONUS_THRESHOLD
from dicehall.games.boatzee.rules import BoatzeeOptions, BoatzeeView, Reroll, Score
from dicehall.games.boatzee.scoring import BOXES
from dicehall.rl.encoding import Encoding, Vector, one_hot, rotated

DICE = 5
REROLL_MASKS = range(1, 1 << DICE)


def encoding(seats: int, options: BoatzeeOptions) -> Encoding:
    """The Boatzee encoding for ``seats`` seats under ``options``."""
    columns = options.columns
    rerolls = [Reroll(tuple(i for i in range(DICE) if mask >> i & 1)) for mask in REROLL_MASKS]
    scores = [Score(box, column) for column in range(1, columns + 1) for box in BOXES]
    turns_in_game = seats * len(BOXES) * columns
    size = seats * (27 * columns + 2) + seats + 34

    def observe(view: BoatzeeView, seat: int) -> Vector:
        order = rotated(range(seats), seat)
        values: list[float] = []
        for i in order:
            card = view.cards[i]
            for column in card.boxes:
                for held in column:
                    values += [float(held is not None), (held or 0) / 50]
                upper = sum(v for v in column[:6] if v is not None)
                values.append(min(upper, UPPER_BONUS_THRESHOLD) / UPPER_BONUS_THRESHOLD)
            values += [view.totals[i] / (400 * columns), card.extra_bonuses / 10]
        values += one_hot(seats, order.index(view.current))
        for position in range(DICE):
            face = view.dice[position] - 1 if position < len(view.dice) else None
            values += one_hot(6, face)
        values += one_hot(3, view.rerolls_left if view.dice else None)
        values.append(view.turns / turns_in_game)
        return np.asarray(values, dtype=np.float32)

    return Encoding("boatzee", (*rerolls, *scores), size, observe)
