"""The ``cfr`` bot: heads-up play from the strategy table trained by regret minimisation.

Heads-up, the bot reads its decision key from its view (street, pot at the round's start,
bets this round, whether the first to act checked), buckets its hand strength with the
table's edges, and draws fold, check-or-call or bet-or-raise from the stored average
strategy with its rare moves dropped (:func:`~.cfr_table.thresholded`); a bet or raise is
the street's limit. With more than two seats left, or a spot
the tree has no key for, it plays as the ``equity`` bot.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np

from dicehall.games.holdem.bots import EquityBot
from dicehall.games.holdem.cfr_table import THRESHOLD, CfrTable, shipped, thresholded
from dicehall.games.holdem.dice import kind
from dicehall.games.holdem.model import (
    MAX_RAISES,
    AllIn,
    Bet,
    Call,
    Check,
    Fold,
    HoldemAction,
    HoldemView,
    Raise,
)

STREETS = ("open", "flop", "turn", "river")
#: Monte Carlo deals for a flop strength (the turn and river are exact).
PLAY_SAMPLES = 2000
EXACT_LIMIT = 20_000


class CfrBot:
    """Draws its move from the CFR average strategy for its bucket and the betting."""

    def __init__(self, rng: random.Random, table: CfrTable | None = None) -> None:
        self._rng = rng
        self._table = shipped() if table is None else table
        self._played = thresholded(self._table.strategy, THRESHOLD)
        self._fallback = EquityBot(rng)
        self._known: tuple[object, int] | None = None
        index: dict[tuple[int, int, bool], list[tuple[int, int]]] = {}
        for number, (street, pot, bets, checked) in enumerate(self._table.keys.tolist()):
            index.setdefault((street, bets, bool(checked)), []).append((pot, number))
        self._index = index

    def strength(self, view: HoldemView) -> float:
        """This seat's share of the pot against one unknown pocket."""
        from dicehall.games.holdem.equity import equity

        a, b = sorted(kind(d) for d in view.pocket)
        if not view.board:
            return float(self._table.preflop[a * 24 + b])
        seed = self._rng.getrandbits(32)
        found = equity(view.pocket, view.board, 1, samples=PLAY_SAMPLES, seed=seed,
                       exact_limit=EXACT_LIMIT)  # fmt: skip
        return found.share

    def bucket(self, view: HoldemView) -> int:
        """The bucket of this seat's strength on this street (worked out once a street)."""
        street = STREETS.index(view.street)
        key = (view.hand, view.pocket, view.board)
        if self._known is None or self._known[0] != key:
            edges = self._table.edges[street]
            found = int(np.searchsorted(edges, self.strength(view), side="right"))
            self._known = (key, found)
        return self._known[1]

    def key(self, view: HoldemView) -> int | None:
        """The decision key for this view, or None outside the tree."""
        assert view.seat is not None
        first = 0 if view.seat != view.dealer else 1
        bets = view.raises + (1 if max(view.round_bets) > 0 else 0)
        if bets > MAX_RAISES + 1:
            return None
        checked = (first + bets) % 2 == 1
        found = self._index.get((STREETS.index(view.street), bets, checked))
        if not found:
            return None
        pot = (view.pot_total - sum(view.round_bets)) / 2
        return min(found, key=lambda entry: abs(entry[0] - pot))[1]

    def probabilities(self, view: HoldemView) -> tuple[float, float, float] | None:
        """Fold, check-or-call, bet-or-raise for this view, or None outside the tree."""
        if sum(not out for out in view.out) != 2:
            return None
        key = self.key(view)
        if key is None:
            return None
        row = self._played[key * self._table.buckets + self.bucket(view)]
        fold, passive, aggressive = (float(p) for p in row)
        if view.to_call == 0:
            passive += fold
            fold = 0.0
        return fold, passive, aggressive

    def choose(self, view: HoldemView, legal: Sequence[HoldemAction]) -> HoldemAction:
        """Draw an abstract move and play the legal action nearest to it."""
        assert view.seat is not None and view.pocket, "the bot must see its own pocket"
        found = self.probabilities(view)
        if found is None:
            return self._fallback.choose(view, legal)
        fold, passive, _ = found
        draw = self._rng.random() * sum(found)
        if draw < fold:
            return Fold()
        if draw >= fold + passive:
            raises = [a.amount for a in legal if isinstance(a, Raise)]
            bets = [a.amount for a in legal if isinstance(a, Bet)]
            if raises:
                return Raise(max(raises))
            if bets:
                return Bet(max(bets))
        if view.to_call == 0:
            return Check()
        return Call() if Call() in legal else AllIn()
