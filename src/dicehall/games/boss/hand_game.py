"""One Boss Dice hand as a game of public states, for the equilibrium solver.

Everything in a hand is public except the Boss's concealed roll: both first rolls are shown,
the Boss keeps exactly the dice that made him Boss, and after "come up" the opponent keeps
dice knowing only that much. So a hand splits into independent *public states*, one per
(the Boss's kept dice, the opponent's first roll). In each, the Boss is one of several
*types*, the showdown class his concealed roll gives his five dice; he calls come up or
pick 'em up; the opponent, who knows only the state, picks one of his legal keeps.

The model is built for any number of faces and dice (the real game is 6 and 5) so that the
solver can be checked by brute force on a smaller hand.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations_with_replacement
from math import factorial, prod
from typing import Any

import numpy as np
import numpy.typing as npt

from dicehall.engine.errors import InvalidInput
from dicehall.games.boss.hands import (
    Dice,
    Rank,
    beats_first,
    boss_keep,
    first_roll_rank,
    legal_keeps,
    showdown_rank,
)

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]
BoolArray = npt.NDArray[np.bool_]


def _multisets(faces: int, count: int) -> list[tuple[Dice, int]]:
    """Each multiset of ``count`` dice with the number of ordered rolls that show it."""
    out = []
    for dice in combinations_with_replacement(range(1, faces + 1), count):
        ways = factorial(count) // prod(factorial(n) for n in Counter(dice).values())
        out.append((dice, ways))
    return out


@dataclass(frozen=True, eq=False)
class KeptGroup:
    """The public states that share the Boss's kept dice, with their payoff pieces.

    ``types`` are the showdown classes the Boss can end with and ``type_prob`` their chances;
    ``legal`` holds each state's legal keeps (indices into :attr:`HandGame.keeps`, padding
    where ``valid`` is False); ``win[t, g]`` and ``push[t, g]`` are the chances that a Boss of
    type ``t`` beats (ties) the opponent who keeps ``keeps[g]`` and rolls the rest.
    """

    kept: int
    states: IntArray
    types: IntArray
    type_prob: FloatArray
    legal: IntArray
    valid: BoolArray
    win: FloatArray
    push: FloatArray

    def payoffs(self) -> tuple[FloatArray, FloatArray]:
        """``win`` and ``push`` for every state, type and legal keep: (states, types, keeps)."""
        return (
            self.win[:, self.legal].transpose(1, 0, 2),
            self.push[:, self.legal].transpose(1, 0, 2),
        )


@dataclass(frozen=True, eq=False)
class HandGame:
    """Every public state of a hand, its chance, and what each side may do in it.

    ``final[g, j]`` is the chance that keeping ``keeps[g]`` and rolling the other dice ends in
    showdown class ``j`` (``classes`` are the showdown ranks, weakest first). A public state
    ``i`` is the Boss's kept dice ``kept[state_kept[i]]`` against the opponent's first roll
    ``rolls[state_roll[i]]``; ``prob[i]`` is its chance given that the first rolls made a
    Boss, which they do with chance ``boss_chance``.
    """

    faces: int
    dice: int
    classes: tuple[Rank, ...]
    keeps: tuple[Dice, ...]
    final: FloatArray
    kept: tuple[Dice, ...]
    rolls: tuple[Dice, ...]
    state_kept: IntArray
    state_roll: IntArray
    prob: FloatArray
    legal: IntArray
    valid: BoolArray
    boss_chance: float
    groups: tuple[KeptGroup, ...]
    _state_of: dict[tuple[Dice, Dice], int]
    _keep_row: dict[Dice, int]
    _class_of: dict[Rank, int]

    @property
    def n_states(self) -> int:
        """How many public states a hand has."""
        return len(self.prob)

    @property
    def width(self) -> int:
        """The most legal keeps any opponent's first roll has."""
        return int(self.legal.shape[1])

    def state(self, kept: Sequence[int], roll: Sequence[int]) -> int:
        """The public state of the Boss's kept dice against the opponent's first roll."""
        key = (tuple(sorted(kept)), tuple(sorted(roll)))
        found = self._state_of.get(key)
        if found is None:
            raise InvalidInput(
                f"no hand has the Boss keeping {list(key[0])} against the first roll {list(key[1])}"
            )
        return found

    def legal_keeps(self, state: int) -> tuple[Dice, ...]:
        """The opponent's legal keeps in a state, in the order of :func:`hands.legal_keeps`."""
        return legal_keeps(self.rolls[int(self.state_roll[state])])

    def hand_class(self, hand: Sequence[int]) -> int:
        """The showdown class (index into :attr:`classes`) of a whole hand."""
        found = self._class_of.get(showdown_rank(hand))
        if len(hand) != self.dice or found is None or not all(1 <= f <= self.faces for f in hand):
            raise InvalidInput(f"{list(hand)} is not a hand of {self.dice} dice, 1 to {self.faces}")
        return found

    def keep_row(self, keep: Sequence[int]) -> int:
        """The index of a keep in :attr:`keeps`."""
        return self._keep_row[tuple(sorted(keep))]

    def type_prob(self, state: int) -> FloatArray:
        """The chance of each showdown class for the Boss in a state (his concealed roll)."""
        row: FloatArray = self.final[self._keep_row[self.kept[int(self.state_kept[state])]]]
        return row


def _final_table(
    faces: int, dice: int, class_of: dict[Rank, int]
) -> tuple[tuple[Dice, ...], FloatArray]:
    keeps = tuple(
        k for n in range(dice + 1) for k in combinations_with_replacement(range(1, faces + 1), n)
    )
    final = np.zeros((len(keeps), len(class_of)))
    for row, keep in enumerate(keeps):
        rolled = dice - len(keep)
        for dice_rolled, ways in _multisets(faces, rolled):
            final[row, class_of[showdown_rank(keep + dice_rolled)]] += ways
        final[row] /= faces**rolled
    return keeps, final


def _frozen(array: npt.NDArray[Any]) -> npt.NDArray[Any]:
    array.setflags(write=False)
    return array


def _group(
    kept: int,
    states: list[int],
    type_prob: FloatArray,
    legal: IntArray,
    valid: BoolArray,
    final: FloatArray,
) -> KeptGroup:
    types = np.flatnonzero(type_prob > 0)
    below = np.cumsum(final, axis=1) - final  # below[g, j]: the keep ends below class j
    return KeptGroup(
        kept=kept,
        states=_frozen(np.asarray(states, dtype=np.intp)),
        types=_frozen(types),
        type_prob=_frozen(type_prob[types]),
        legal=_frozen(np.where(valid, legal, 0)),
        valid=_frozen(valid),
        win=_frozen(np.ascontiguousarray(below[:, types].T)),
        push=_frozen(np.ascontiguousarray(final[:, types].T)),
    )


@cache
def hand_game(faces: int = 6, dice: int = 5) -> HandGame:
    """The hand of Boss Dice with ``faces``-sided dice, ``dice`` of them per player."""
    if not 2 <= faces <= 6 or not 2 <= dice <= 5:
        raise InvalidInput(f"a hand needs 2 to 6 faces and 2 to 5 dice, not {faces} and {dice}")
    rolls_weighted = _multisets(faces, dice)
    classes = tuple(sorted({showdown_rank(r) for r, _ in rolls_weighted}))
    class_of = {rank: i for i, rank in enumerate(classes)}
    keeps, final = _final_table(faces, dice, class_of)
    keep_row = {k: i for i, k in enumerate(keeps)}

    kept_weight: Counter[Dice] = Counter()
    for roll, ways in rolls_weighted:
        if first_roll_rank(roll) is not None:
            kept_weight[boss_keep(roll)] += ways
    kept = tuple(sorted(kept_weight, key=lambda k: (len(k), k)))
    rolls = tuple(r for r, _ in rolls_weighted)
    roll_weight = {r: w for r, w in rolls_weighted}
    width = max(len(legal_keeps(r)) for r in rolls)

    state_kept: list[int] = []
    state_roll: list[int] = []
    weight: list[float] = []
    legal_rows: list[list[int]] = []
    valid_rows: list[list[bool]] = []
    members: list[list[int]] = []
    for a, boss in enumerate(kept):
        boss_rank = first_roll_rank(boss)
        members.append([])
        for b, roll in enumerate(rolls):
            if not beats_first(boss_rank, first_roll_rank(roll)):
                continue
            members[a].append(len(weight))
            state_kept.append(a)
            state_roll.append(b)
            weight.append(float(kept_weight[boss] * roll_weight[roll]))
            rows = [keep_row[k] for k in legal_keeps(roll)]
            legal_rows.append(rows + [-1] * (width - len(rows)))
            valid_rows.append([True] * len(rows) + [False] * (width - len(rows)))

    total = float(sum(weight))
    legal = np.asarray(legal_rows, dtype=np.intp)
    valid = np.asarray(valid_rows, dtype=np.bool_)
    groups = []
    for a, boss in enumerate(kept):
        if not members[a]:
            continue
        rows = members[a]
        groups.append(_group(a, rows, final[keep_row[boss]], legal[rows], valid[rows], final))
    pairs = zip(state_kept, state_roll, strict=True)
    state_of = {(kept[a], rolls[b]): i for i, (a, b) in enumerate(pairs)}
    return HandGame(
        faces=faces,
        dice=dice,
        classes=classes,
        keeps=keeps,
        final=_frozen(final),
        kept=kept,
        rolls=rolls,
        state_kept=_frozen(np.asarray(state_kept, dtype=np.intp)),
        state_roll=_frozen(np.asarray(state_roll, dtype=np.intp)),
        prob=_frozen(np.asarray(weight) / total),
        legal=_frozen(legal),
        valid=_frozen(valid),
        # ordered pairs of first rolls: either seat may hold the better one
        boss_chance=2 * total / float(faces ** (2 * dice)),
        groups=tuple(groups),
        _state_of=state_of,
        _keep_row=keep_row,
        _class_of=class_of,
    )
