"""The figures a board draws, in the view: the bands, what the lead's throws add, what
stopping now scores, and the size of the next throw."""

from __future__ import annotations

from dicehall.engine import codec
from dicehall.games.bullseye import GAME, ThrowOn
from dicehall.games.bullseye.model import Band, BullseyeView, RoundView
from dicehall.games.bullseye.scoring import BANDS, band
from tests.games.bullseye.helpers import TARGET_23, lead_sets, new_table, throw


def _round(view: BullseyeView) -> RoundView:
    assert view.round is not None
    return view.round


def test_the_bands_are_the_scoring_bands() -> None:
    view = GAME.view(new_table().state, None)
    assert view.bands == tuple(Band(d, p) for d, p in BANDS)
    for distance in range(12):
        shown = next((b.points for b in view.bands if distance <= b.distance), 0)
        assert shown == band(distance)


def test_the_lead_throws_three_dice_every_time_and_what_each_adds() -> None:
    table = new_table()
    rnd = _round(GAME.view(table.state, 0))
    assert (rnd.next_dice, rnd.next_counted, rnd.lead_adds) == (3, 3, ())
    expected = [(3, 2), (3, 1), (None, None)]
    for i, dice in enumerate(TARGET_23):
        throw(table, dice)
        rnd = _round(GAME.view(table.state, 0))
        assert (rnd.next_dice, rnd.next_counted) == expected[i]
        assert rnd.lead_adds == (9, 8, 6)[: i + 1]
        if i < 2:
            table.act(0, ThrowOn())
    assert sum(rnd.lead_adds) == rnd.target == 23
    assert all(score is None for score in rnd.stop_scores)  # the lead never scores


def test_the_others_throw_three_two_one_and_see_what_stopping_scores() -> None:
    table = new_table()
    lead_sets(table)
    rnd = _round(GAME.view(table.state, 1))
    assert (rnd.thrower, rnd.next_dice, rnd.next_counted) == (1, 3, 3)
    assert rnd.stop_scores == (None, None, None)  # seat 2 has not thrown yet
    for dice, total, nxt in (((6, 5, 4), 15, 2), ((6, 5), 26, 1), ((1,), 27, None)):
        throw(table, dice)
        rnd = _round(GAME.view(table.state, None))
        assert rnd.totals[1] == total
        assert rnd.stop_scores == (None, band(total - 23), None)
        assert (rnd.next_dice, rnd.next_counted) == (nxt, nxt)
        if nxt is not None:
            table.act(1, ThrowOn())
    view = GAME.view(table.state, 2)
    assert codec.decode(codec.encode(view), BullseyeView) == view
