"""The heads-up betting tree the ``cfr`` bot is trained on, as flat arrays.

Seat 0 acts first on every street (the seat left of the dealer), seat 1 is the dealer. Both
ante 10. Each bet or raise is the street's limit (10 on the Open and the flop, 20 on the
turn and river), at most three raises a round, stacks never run out; nobody folds when they
could check. An all-check flop is re-rolled (up to ``FLOPS - 1`` times; after that the hand
goes on to the turn). Nodes are listed parents first, so one pass forward and one backward
visit the whole tree.

A decision's *key* is what the bot can tell from a view: the street, the pot when the round
began, the bets made in the round and whether the first to act checked. Nodes after a flop
re-roll share their keys with the first flop's.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from dicehall.games.holdem.cfr_deals import FLOPS, stage_of
from dicehall.games.holdem.model import ANTE, LIMITS, MAX_RAISES

#: Node kinds.
DECISION, FOLD, SHOWDOWN = 0, 1, 2
#: Abstract actions, the columns of a strategy.
PASS, AGGRESS = 1, 2
ACTIONS = ("fold", "check or call", "bet or raise")
STREETS = ("open", "flop", "turn", "river")

Key = tuple[int, int, int, bool]
"""(street, pot at the round's start, bets made this round, first to act checked)."""


@dataclass
class Tree:
    """``kind``, acting or folding ``seat``, ``stage`` of the actor's bucket, ``key`` index,
    ``child`` per action (-1: not allowed), ``won``: what seat 0 wins at a leaf, ``roll``:
    the flop roll of a showdown."""

    kind: list[int] = field(default_factory=list)
    seat: list[int] = field(default_factory=list)
    stage: list[int] = field(default_factory=list)
    key: list[int] = field(default_factory=list)
    child: list[list[int]] = field(default_factory=list)
    won: list[float] = field(default_factory=list)
    roll: list[int] = field(default_factory=list)
    street: list[int] = field(default_factory=list)
    keys: dict[Key, int] = field(default_factory=dict)
    rounds: dict[tuple[int, int, int], int] = field(default_factory=dict)

    def add(
        self, kind: int, seat: int, street: int, roll: int, key: int = -1, won: float = 0.0
    ) -> int:
        """Append a node; its children are set afterwards."""
        self.street.append(street)
        self.kind.append(kind)
        self.seat.append(seat)
        self.stage.append(stage_of(street, roll))
        self.key.append(key)
        self.child.append([-1, -1, -1])
        self.won.append(won)
        self.roll.append(roll)
        return len(self.kind) - 1

    def arrays(self) -> TreeArrays:
        """The tree as NumPy arrays for the kernels, parents before children."""
        # Rounds only lead to later streets or later flop rolls, and within a round nodes
        # were added parents first: ordering by (street, roll) keeps that.
        order = sorted(range(len(self.kind)), key=lambda n: (self.street[n], self.roll[n], n))
        place = np.zeros(len(order) + 1, np.int64)
        place[order] = np.arange(len(order))
        place[-1] = -1
        child = np.asarray(self.child, np.int64)[order]
        return TreeArrays(
            np.asarray(self.kind, np.int64)[order],
            np.asarray(self.seat, np.int64)[order],
            np.asarray(self.stage, np.int64)[order],
            np.asarray(self.key, np.int64)[order],
            place[child],
            np.asarray(self.won, np.float64)[order],
            np.asarray(self.roll, np.int64)[order],
            len(self.keys),
        )


@dataclass(frozen=True)
class TreeArrays:
    """The tree's columns; ``n_keys`` decision keys."""

    kind: npt.NDArray[np.int64]
    seat: npt.NDArray[np.int64]
    stage: npt.NDArray[np.int64]
    key: npt.NDArray[np.int64]
    child: npt.NDArray[np.int64]
    won: npt.NDArray[np.float64]
    roll: npt.NDArray[np.int64]
    n_keys: int


def _round(tree: Tree, street: int, roll: int, pot: int) -> int:
    """A betting round where each seat has put in ``pot`` so far; returns its first node.

    What follows a round's start depends only on the street, the flop roll and the pot, so
    rounds reached by different betting share their nodes (the tree is a DAG).
    """
    at = (street, roll, pot)
    if at not in tree.rounds:
        tree.rounds[at] = _decide(tree, street, roll, pot, bets=0, checked=False)
    return tree.rounds[at]


def _decide(tree: Tree, street: int, roll: int, pot: int, bets: int, checked: bool) -> int:
    # Seat 0 opens; after its check seat 1 acts with no bet; then they alternate.
    seat = (bets + checked) % 2
    key = tree.keys.setdefault((street, pot, bets, checked), len(tree.keys))
    node = tree.add(DECISION, seat, street, roll, key)
    size = LIMITS[STREETS[street]]
    if bets == 0:
        if seat == 0:
            tree.child[node][PASS] = _decide(tree, street, roll, pot, 0, True)
        else:
            tree.child[node][PASS] = _round_over(tree, street, roll, pot, all_checked=True)
    else:
        in_for = pot + bets * size
        # The folding seat loses what it has in: the previous bet level.
        lost = pot + (bets - 1) * size
        tree.child[node][0] = tree.add(FOLD, seat, street, roll, won=lost if seat else -lost)
        tree.child[node][PASS] = _round_over(tree, street, roll, in_for, all_checked=False)
    if bets <= MAX_RAISES:
        tree.child[node][AGGRESS] = _decide(tree, street, roll, pot, bets + 1, checked)
    return node


def _round_over(tree: Tree, street: int, roll: int, pot: int, all_checked: bool) -> int:
    if street == 1 and all_checked and roll < FLOPS - 1:
        return _round(tree, 1, roll + 1, pot)
    if street == 3:
        return tree.add(SHOWDOWN, 0, street, roll, won=float(pot))
    return _round(tree, street + 1, roll, pot)


def build_tree() -> Tree:
    """The whole heads-up tree from the antes."""
    tree = Tree()
    _round(tree, 0, 0, ANTE)
    return tree
