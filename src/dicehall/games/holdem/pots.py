"""Pots derived from contributions, and splitting a pot in units of 10."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

#: Chips move in units of this size.
UNIT = 10


@dataclass(frozen=True, slots=True)
class Pot:
    """A pot: its chips and the seats still in the hand that may win it."""

    amount: int
    eligible: tuple[int, ...]


def pots_from(
    contributions: Sequence[int], folded: Sequence[bool], stacks: Sequence[int]
) -> tuple[Pot, ...]:
    """The main pot then the side pots, one per all-in level, from what each seat put in.

    ``folded`` is true for every seat not in the hand. A level is what an all-in seat still
    in put in; the top level is the most anyone put in. Each pot holds every seat's chips
    between the level below and its own; a seat still in may win it if it reached the level
    or still has chips to match it.
    """
    live = [s for s in range(len(contributions)) if not folded[s]]
    all_in = {s for s in live if stacks[s] == 0}
    levels = sorted({contributions[s] for s in all_in} | {max(contributions, default=0)})
    pots: list[Pot] = []
    floor = 0
    for level in levels:
        if level <= floor:
            continue
        amount = sum(max(0, min(c, level) - floor) for c in contributions)
        eligible = tuple(s for s in live if s not in all_in or contributions[s] >= level)
        pots.append(Pot(amount, eligible))
        floor = level
    return tuple(pots)


def split(amount: int, winners: Sequence[int], dealer: int, seats: int) -> dict[int, int]:
    """Share ``amount`` equally among ``winners`` in units of 10.

    Odd units go one each to the winners in seat order starting left of the dealer.
    """
    order = sorted(winners, key=lambda s: (s - dealer - 1) % seats)
    units, odd = divmod(amount // UNIT, len(order))
    return {s: (units + (1 if i < odd else 0)) * UNIT for i, s in enumerate(order)}
