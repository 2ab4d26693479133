"""Hold'em Dice hints: my equity against the seats still in, from my pocket and the board.

Exact when that is cheap, otherwise a small Monte Carlo sample (a hint must answer fast).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from dicehall.games.hint_basis import with_basis
from dicehall.games.holdem.equity import equity
from dicehall.games.holdem.model import HoldemView

#: Exact enumeration up to this many table look-ups, else Monte Carlo.
EXACT_LIMIT = 3_000_000
#: Monte Carlo samples: a standard error near 0.01 on the win chance.
SAMPLES = 3_000


#: The sentences of the two bases (the CLI's ``hint holdem`` prints them too).
EXACT_BASIS = "Exact: every deal of the unseen dice counted."


def estimate_basis(samples: int) -> str:
    """The basis sentence of an equity sampled from ``samples`` deals."""
    # 1.96 standard errors of a proportion, at its widest (p = 1/2), in percentage points.
    margin = 98 / math.sqrt(max(samples, 1))
    return (
        f"An estimate from {samples:,} random deals: each chance is within {margin:.1f} percentage "
        "points of the exact one, 19 times in 20."
    )


def seat_hint(view: HoldemView, legal: Sequence[Any]) -> dict[str, Any]:
    """Win, tie and pot-share chances of my pocket against every other seat still in."""
    seat = view.seat
    if seat is None or len(view.pocket) != 2 or view.folded[seat] or view.out[seat]:
        return {"kind": "wait", "note": "No dice in your pocket right now."}
    opponents = sum(
        1 for s in range(len(view.stacks)) if s != seat and not view.folded[s] and not view.out[s]
    )
    if opponents == 0:
        return {"kind": "wait", "note": "Nobody left to play against."}
    got = equity(
        view.pocket,
        view.board,
        min(opponents, 5),
        samples=SAMPLES,
        seed=view.hand,
        exact_limit=EXACT_LIMIT,
    )
    found = {
        "kind": "equity",
        "opponents": opponents,
        "win": got.win,
        "tie": got.tie,
        "share": got.share,
        "exact": got.exact,
        "samples": got.samples,
        "to_call": view.to_call,
        "pot": sum(p.amount for p in view.pots),
    }
    if got.exact:
        return with_basis(found, "exact", EXACT_BASIS)
    return with_basis(found, "estimate", estimate_basis(got.samples or SAMPLES))
