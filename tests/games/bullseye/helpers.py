"""Driving Bull's Eye by hand in tests: crafted dice, whole turns, whole rounds."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dicehall.engine.chance import Roll
from dicehall.engine.game import Chance, ToAct
from dicehall.engine.table import Table
from dicehall.games.bullseye import GAME, BullseyeAction, BullseyeState, Stop, ThrowOn

BullseyeTable = Table[BullseyeState, BullseyeAction]

#: A Bull's Eye of 23: 1+2+6, then 5+3 of 1,3,5, then 6 of 2,4,6.
TARGET_23 = ((1, 2, 6), (1, 3, 5), (2, 4, 6))


def new_table(seats: int = 3, lead: int = 0, **options: Any) -> BullseyeTable:
    """A table whose first lead is ``lead``: it throws 4 5 6, every other seat 1 2 3."""
    table: BullseyeTable = Table(GAME, seats, GAME.options(options))
    for seat in range(seats):
        table.resolve((4, 5, 6) if seat == lead else (1, 2, 3))
    assert table.state.round is not None and table.state.round.lead == lead
    return table


def expect_roll(table: BullseyeTable, count: int) -> None:
    """Assert that the game asks for ``count`` dice."""
    assert table.turn() == Chance(Roll(count)), table.turn()


def throw(table: BullseyeTable, *outcomes: tuple[int, ...]) -> None:
    """Resolve the pending roll, then each re-roll, with the given faces."""
    for outcome in outcomes:
        expect_roll(table, len(outcome))
        table.resolve(outcome)


def lead_sets(
    table: BullseyeTable, throws: Sequence[tuple[int, ...]] = TARGET_23, bet: int = 0
) -> None:
    """The lead throws ``throws`` (each counting at once) and finishes."""
    rnd = table.state.round
    assert rnd is not None and rnd.thrower == rnd.lead
    for i, dice in enumerate(throws):
        throw(table, dice)
        table.act(rnd.lead, Stop(bet) if i == len(throws) - 1 else ThrowOn(bet))


def seat_plays(table: BullseyeTable, *throws: tuple[int, ...], bets: Sequence[int] = ()) -> int:
    """The thrower throws ``throws`` (each counting at once), then stops; returns its seat."""
    turn = table.turn()
    assert isinstance(turn, Chance)
    rnd = table.state.round
    assert rnd is not None
    seat = rnd.thrower
    for i, dice in enumerate(throws):
        throw(table, dice)
        assert table.turn() == ToAct(seat)
        bet = bets[i] if i < len(bets) else 0
        table.act(seat, Stop(bet) if i == len(throws) - 1 else ThrowOn(bet))
    return seat
