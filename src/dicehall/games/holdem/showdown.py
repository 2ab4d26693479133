"""Settling a hand: the uncontested win, the showdown, and the pots shared out."""

from __future__ import annotations

from dicehall.games.holdem.fastrank import best_hand
from dicehall.games.holdem.model import HandEnd, HoldemState, PotResult, Showing
from dicehall.games.holdem.pots import pots_from, split
from dicehall.games.holdem.ranking import YAHTZEE_FLUSH, HandRank


def settle(state: HoldemState) -> tuple[HandEnd, tuple[int, ...]]:
    """How the hand ends and what each seat receives; the game ends too on a Yahtzee flush.

    Returns the hand's record and the winners of the game when a Yahtzee flush ends it
    (empty otherwise).
    """
    seats = len(state.stacks)
    live = [s for s in range(seats) if not state.out[s] and not state.folded[s]]
    not_in = tuple(state.out[s] or state.folded[s] for s in range(seats))
    pots = pots_from(state.contributions, not_in, state.stacks)
    won = [0] * seats
    if len(live) == 1:
        total = sum(state.contributions)
        won[live[0]] = total
        result = PotResult(total, (live[0],), (live[0],), (total,))
        record = HandEnd(state.hand, state.board, (), (result,), tuple(won), False, ())
        return record, ()
    ranks: dict[int, HandRank] = {}
    shown: list[Showing] = []
    for s in live:
        best = best_hand(state.pockets[s] + state.board)
        ranks[s] = best.rank
        shown.append(Showing(s, state.pockets[s], best.five, best.rank.name))
    top = max(ranks.values())
    results: list[PotResult] = []
    if top.category == YAHTZEE_FLUSH:
        # The Yahtzee flush takes every chip on the table and ends the game.
        holders = tuple(s for s in live if ranks[s] == top)
        total = sum(state.contributions)
        shares = split(total, holders, state.dealer, seats)
        for s, chips in shares.items():
            won[s] += chips
        order = tuple(shares)
        results.append(PotResult(total, tuple(live), order, tuple(shares[s] for s in order)))
        record = HandEnd(
            state.hand, state.board, tuple(shown), tuple(results), tuple(won), True, ()
        )
        return record, tuple(sorted(holders))
    for pot in pots:
        top_here = max(ranks[s] for s in pot.eligible)
        winners = [s for s in pot.eligible if ranks[s] == top_here]
        shares = split(pot.amount, winners, state.dealer, seats)
        for s, chips in shares.items():
            won[s] += chips
        order = tuple(shares)
        results.append(PotResult(pot.amount, pot.eligible, order, tuple(shares[s] for s in order)))
    record = HandEnd(state.hand, state.board, tuple(shown), tuple(results), tuple(won), False, ())
    return record, ()
