"""The stakes ledger: the pot, and how the winners share it."""

from __future__ import annotations

from collections.abc import Sequence


def split_pot(pot: int, winners: Sequence[int], seats: int) -> tuple[int, ...]:
    """Each seat's share of ``pot`` cents: equal shares to the winners.

    Cents that do not divide evenly go one each to the winners in seat order, so the shares
    always add up to the pot exactly.
    """
    if not winners:
        raise ValueError("a pot needs at least one winner")
    share, rest = divmod(pot, len(winners))
    payouts = [0] * seats
    for rank, seat in enumerate(sorted(winners)):
        payouts[seat] = share + (1 if rank < rest else 0)
    return tuple(payouts)
