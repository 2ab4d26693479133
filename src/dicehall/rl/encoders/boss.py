"""Boss Dice's numbering and observation (two seats).

Actions: ``ComeUp``, ``PickUp``, then ``Keep(dice)`` for every multiset of zero to five
faces, shortest and lowest first (numbers 2 to 463); the mask leaves the keeps of the
opponent's first roll that the keep rule allows.

Observation (55 numbers, the observer's seat first):

- horses of each seat / horses to win;
- the phase, one-hot: first roll, Boss roll, call, keep, opponent roll, over;
- each seat's first roll: how many dice show each face, / 5;
- the Boss, one-hot (all zero while there is none);
- the dice the Boss kept, by face, / 5;
- the Boss's concealed roll, by face, / 5: only in the Boss's own view, zeros for the
  opponent (who sees how many dice were rolled: that count / 5);
- the opponent's keep, by face, / 5;
- pick-ups this hand / 10, hands played / 50;
- the last hand shown down: the Boss's and the opponent's final hands, by face, / 5.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations_with_replacement
from typing import get_args

import numpy as np

from dicehall.games.boss.rules import (
    BossOptions,
    BossView,
    ComeUp,
    Keep,
    Phase,
    PickUp,
    Showdown,
)
from dicehall.rl.encoding import Encoding, Vector, one_hot, rotated

DICE = 5
SIZE = 55
PHASES: tuple[str, ...] = get_args(Phase)


def by_face(dice: Sequence[int] | None) -> list[float]:
    """How many of ``dice`` show each face, / 5 (zeros for None)."""
    counts = [0.0] * 6
    for face in dice or ():
        counts[face - 1] += 1 / DICE
    return counts


def encoding(seats: int, options: BossOptions) -> Encoding:
    """The Boss Dice encoding (two seats) under ``options``."""
    keeps = [
        Keep(dice)
        for size in range(DICE + 1)
        for dice in combinations_with_replacement(range(1, 7), size)
    ]

    def observe(view: BossView, seat: int) -> Vector:
        order = rotated(range(2), seat)
        values = [view.horses[i] / view.target for i in order]
        values += one_hot(len(PHASES), PHASES.index(view.phase))
        for i in order:
            values += by_face(view.first_rolls[i] if i < len(view.first_rolls) else None)
        values += one_hot(2, None if view.boss is None else order.index(view.boss))
        values += by_face(view.boss_kept)
        values += by_face(view.concealed)
        values.append(view.concealed_count / DICE)
        values += by_face(view.keep)
        values += [view.pickups / 10, view.hands / 50]
        shown = next((h for h in reversed(view.history) if isinstance(h, Showdown)), None)
        values += by_face(shown.boss_hand if shown else None)
        values += by_face(shown.opponent_hand if shown else None)
        return np.asarray(values, dtype=np.float32)

    return Encoding("boss", (ComeUp(), PickUp(), *keeps), SIZE, observe)
