"""Ten Thousand's numbering and observation.

Actions: every set-aside that can score (each multiset of one to six dice worth points
under the house rules), shortest and lowest first, then Bank, then RollOn.

Observation (``4 * seats + 13`` numbers, seats counted from the observer):

- per seat: banked points / target, and whether the seat has entered (banked once);
- the seat to act, one-hot;
- the phase, one-hot: roll, set aside, choose, over;
- the latest roll: how many dice show each face, / 6;
- dice in hand / 6, and the turn total / target;
- the seat whose bank started the final round, one-hot (all zero before it), and the seats
  still owed a last turn / seats.
"""

from __future__ import annotations

from itertools import combinations_with_replacement

import numpy as np

from dicehall.games.tenthousand.rules import (
    DICE,
    Bank,
    RollOn,
    SetAside,
    TenThousandOptions,
    TenThousandView,
)
from dicehall.games.tenthousand.scoring import counts_of, keep_value
from dicehall.rl.encoding import Encoding, Vector, one_hot, rotated

PHASES = ("roll", "set_aside", "choose", "over")


def encoding(seats: int, options: TenThousandOptions) -> Encoding:
    """The Ten Thousand encoding for ``seats`` seats under ``options``."""
    four_and_pair = options.four_and_pair_is_three_pairs
    set_asides = [
        SetAside(dice)
        for size in range(1, DICE + 1)
        for dice in combinations_with_replacement(range(1, 7), size)
        if keep_value(dice, four_and_pair) is not None
    ]
    target = float(options.target)

    def observe(view: TenThousandView, seat: int) -> Vector:
        state = view.state
        order = rotated(range(seats), seat)
        values: list[float] = []
        for i in order:
            values += [state.banked[i] / target, float(state.banked[i] > 0)]
        values += one_hot(seats, order.index(state.current))
        values += one_hot(len(PHASES), PHASES.index(state.phase))
        values += [c / DICE for c in counts_of(state.dice)[1:]]
        values += [state.in_hand / DICE, state.turn_total / target]
        trigger = None if state.final_trigger is None else order.index(state.final_trigger)
        values += one_hot(seats, trigger)
        values.append(state.final_left / seats)
        return np.asarray(values, dtype=np.float32)

    return Encoding("tenthousand", (*set_asides, Bank(), RollOn()), 4 * seats + 13, observe)
