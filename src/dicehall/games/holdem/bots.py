"""Hold'em Dice bots. ``equity`` bets, calls and folds on its equity against the field."""

from __future__ import annotations

import random
from collections.abc import Sequence

from dicehall.games.holdem.model import (
    AllIn,
    Bet,
    Call,
    Check,
    Fold,
    HoldemAction,
    HoldemView,
    Raise,
)

#: Exact equity when it costs at most this many look-ups (every river, heads-up turns);
#: otherwise Monte Carlo with ``SAMPLES`` deals (a standard error of about 1.5%).
EXACT_LIMIT = 100_000
SAMPLES = 1_000


class EquityBot:
    """Plays on its share of the pot against the unknown hands still in.

    With nothing to call it bets the most when its share clearly beats an even share and
    checks otherwise; facing a bet it raises the most with a strong share, calls when its
    share pays for the call (pot odds), and folds otherwise.
    """

    #: How far between an even share and certainty a hand must be to bet, and to raise.
    BET_EDGE = 0.15
    RAISE_EDGE = 0.35

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        self._known: tuple[object, float] | None = None

    def share(self, view: HoldemView) -> float:
        """This seat's expected share of the pot from what its view shows."""
        from dicehall.games.holdem.equity import equity  # Numba loads only when bots play

        assert view.seat is not None and view.pocket, "the bot must see its own pocket"
        opponents = sum(view.in_hand(s) for s in range(len(view.stacks)) if s != view.seat)
        # Several decisions in one round see the same dice: work the share out once.
        key = (view.hand, view.pocket, view.board, opponents)
        if self._known is not None and self._known[0] == key:
            return self._known[1]
        share = equity(
            view.pocket,
            view.board,
            opponents,
            samples=SAMPLES,
            seed=self._rng.getrandbits(32),
            exact_limit=EXACT_LIMIT,
        ).share
        self._known = (key, share)
        return share

    def choose(self, view: HoldemView, legal: Sequence[HoldemAction]) -> HoldemAction:
        """Bet, raise, call, check or fold by equity and pot odds."""
        share = self.share(view)
        opponents = sum(view.in_hand(s) for s in range(len(view.stacks)) if s != view.seat)
        even = 1 / (opponents + 1)
        bets = [a.amount for a in legal if isinstance(a, Bet)]
        raises = [a.amount for a in legal if isinstance(a, Raise)]
        if view.to_call == 0:
            if bets and share >= even + (1 - even) * self.BET_EDGE:
                return Bet(max(bets))
            return Check()
        if raises and share >= even + (1 - even) * self.RAISE_EDGE:
            return Raise(max(raises))
        price = view.to_call / (view.pot_total + view.to_call)
        if share >= price:
            return AllIn() if AllIn() in legal else Call()
        return Fold()


def __getattr__(name: str) -> object:
    # ``cfr`` reads its table when first asked for, not when ``equity`` is.
    if name == "CfrBot":
        from dicehall.games.holdem.cfr_bot import CfrBot

        return CfrBot
    raise AttributeError(name)
