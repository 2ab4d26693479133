"""Hold'em Dice's numbering and observation (two to eight seats).

Actions: ``Fold``, ``Check``, ``Call``, ``AllIn``, then ``Bet(amount)`` and
``Raise(amount)`` for every amount in steps of 10 up to the largest limit (20): numbers 4
and 5 are Bet(10) and Bet(20), 6 and 7 Raise(10) and Raise(20).

Observation (``7 * seats + 64`` numbers, seats from the observer):

- per seat: stack / starting stack, out, folded, chips in the pot this hand / starting
  stack, this round's bet / starting stack;
- the dealer and the seat to act, one-hot each;
- the stage (pocket colours, pocket faces, betting, board colours, board faces, re-roll,
  over) and the street (open, flop, turn, river), one-hot;
- the board: how many of its dice are each of the 24 kinds (face and colour);
- the observer's own pocket, the same way: never another seat's;
- what the observer must call / the limit, raises this round / 3, the limit / 20,
  flop re-rolls so far / 3, and hands played / 100.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import get_args

import numpy as np

from dicehall.games.holdem.dice import KINDS
from dicehall.games.holdem.model import (
    LIMITS,
    MAX_RAISES,
    AllIn,
    Bet,
    Call,
    Check,
    Fold,
    HoldemOptions,
    HoldemView,
    Raise,
    Stage,
    Street,
)
from dicehall.games.holdem.pots import UNIT
from dicehall.rl.encoding import Encoding, Vector, one_hot, rotated

STAGES: tuple[str, ...] = get_args(Stage)
STREETS: tuple[str, ...] = get_args(Street)
TOP_LIMIT = max(LIMITS.values())


def by_kind(dice: Sequence[str]) -> list[float]:
    """How many of ``dice`` are each kind (face and colour)."""
    counts = [0.0] * len(KINDS)
    for die in dice:
        counts[KINDS.index(die)] += 1
    return counts


def encoding(seats: int, options: HoldemOptions) -> Encoding:
    """The Hold'em Dice encoding for ``seats`` seats under ``options``."""
    amounts = range(UNIT, TOP_LIMIT + 1, UNIT)
    actions = (
        Fold(),
        Check(),
        Call(),
        AllIn(),
        *(Bet(a) for a in amounts),
        *(Raise(a) for a in amounts),
    )
    stack = float(options.stack)

    def observe(view: HoldemView, seat: int) -> Vector:
        order = rotated(range(seats), seat)
        values: list[float] = []
        for i in order:
            values += [
                view.stacks[i] / stack,
                float(view.out[i]),
                float(view.folded[i]),
                view.contributions[i] / stack,
                view.round_bets[i] / stack,
            ]
        values += one_hot(seats, order.index(view.dealer))
        values += one_hot(seats, None if view.to_act is None else order.index(view.to_act))
        values += one_hot(len(STAGES), STAGES.index(view.stage))
        values += one_hot(len(STREETS), STREETS.index(view.street))
        values += by_kind(view.board)
        values += by_kind(view.pocket)
        values += [
            view.to_call / view.limit if view.limit else 0.0,
            view.raises / MAX_RAISES,
            view.limit / TOP_LIMIT,
            view.rerolls / 3,
            view.hand / 100,
        ]
        return np.asarray(values, dtype=np.float32)

    return Encoding("holdem", actions, 7 * seats + 64, observe)
