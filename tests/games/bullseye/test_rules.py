"""Every ruling of RULES.md §5, one or more tests each.

(Longer than most test modules: one test or more per ruling of the section, in its order.)
"""

from __future__ import annotations

import pytest

from dicehall.engine import codec
from dicehall.engine.chance import Roll
from dicehall.engine.errors import IllegalMove, InvalidOptions, InvalidOutcome
from dicehall.engine.events import replay
from dicehall.engine.game import Chance, Finished
from dicehall.engine.table import Table
from dicehall.games.bullseye import GAME, BullseyeOptions, Stop, ThrowOn
from dicehall.games.bullseye.rules import throwing_order
from dicehall.games.bullseye.scoring import band, lead_part, round_score, target_of
from tests.games.bullseye.helpers import (
    TARGET_23,
    BullseyeTable,
    expect_roll,
    lead_sets,
    new_table,
    seat_plays,
    throw,
)

# -- seats and options -----------------------------------------------------------------------


@pytest.mark.parametrize("seats", [3, 4, 8])
def test_three_to_eight_seats(seats: int) -> None:
    state = GAME.start(seats, BullseyeOptions())
    assert len(state.points) == seats


def test_two_seats_only_as_a_house_rule() -> None:
    with pytest.raises(InvalidOptions, match="allow_two_seats=true"):
        GAME.start(2, BullseyeOptions())
    state = GAME.start(2, GAME.options({"allow_two_seats": "true"}))
    assert state.points == (0, 0)


@pytest.mark.parametrize("seats", [0, 1, 9])
def test_other_seat_counts_refused(seats: int) -> None:
    with pytest.raises(InvalidOptions, match="2 to 8 seats"):
        GAME.start(seats, BullseyeOptions(allow_two_seats=True))


def test_option_defaults() -> None:
    options = GAME.options({})
    assert options == BullseyeOptions(
        rounds=None, target_points=None, bet_limit=10, bank=100, allow_two_seats=False
    )
    assert options.rounds_for(3) == 6
    assert options.rounds_for(8) == 16
    assert GAME.options({"rounds": "0", "target_points": "100"}).rounds_for(5) is None
    assert GAME.start(4, options).banks == (100, 100, 100, 100)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"rounds": "-1"}, "rounds must be 0 to 10000"),
        ({"rounds": "0"}, "needs target_points"),
        ({"target_points": "0"}, "target_points must be 1"),
        ({"bet_limit": "-1"}, "bet_limit must be 0 to 1000"),
        ({"bet_limit": "1001"}, "bet_limit must be 0 to 1000"),
        ({"bank": "-5"}, "bank must be 0"),
        ({"bank": "lots"}, "whole number"),
        ({"allow_two_seats": "perhaps"}, "true or false"),
        ({"limit": "3"}, "unknown option 'limit'"),
    ],
)
def test_bad_options_are_clear_errors(raw: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidOptions, match=message):
        GAME.options(raw)


# -- choosing the first lead -----------------------------------------------------------------


def test_highest_first_throw_leads() -> None:
    table: BullseyeTable = Table(GAME, 4, BullseyeOptions())
    for faces in [(1, 2, 3), (2, 5, 6), (4, 5, 3), (6, 1, 2)]:
        expect_roll(table, 3)
        table.resolve(faces)
    rnd = table.state.round
    assert table.state.lead_choice is None and rnd is not None
    assert (rnd.number, rnd.lead, rnd.thrower) == (1, 1, 1)


def test_tied_highest_seats_throw_again_among_themselves() -> None:
    table: BullseyeTable = Table(GAME, 4, BullseyeOptions())
    for faces in [(6, 5, 1), (1, 2, 3), (4, 5, 3), (2, 4, 6)]:  # 12, 6, 12, 12
        table.resolve(faces)
    choice = table.state.lead_choice
    assert choice is not None and choice.contenders == (0, 2, 3) and choice.throws == ()
    for faces in [(6, 6, 1), (3, 3, 1), (5, 2, 6)]:  # 13, 7, 13: seats 0 and 3 tie again
        table.resolve(faces)
    choice = table.state.lead_choice
    assert choice is not None and choice.contenders == (0, 3)
    table.resolve((1, 1, 1))
    table.resolve((1, 1, 2))
    rnd = table.state.round
    assert rnd is not None and rnd.lead == 3


def test_throws_for_the_lead_ignore_the_matching_rule() -> None:
    table: BullseyeTable = Table(GAME, 3, BullseyeOptions())
    table.resolve((6, 6, 6))  # counts as 18: no re-roll is asked for
    choice = table.state.lead_choice
    assert choice is not None and choice.throws == ((6, 6, 6),)
    expect_roll(table, 3)
    table.resolve((5, 5, 6))
    table.resolve((4, 5, 6))
    rnd = table.state.round
    assert rnd is not None and rnd.lead == 0


# -- the lead's three throws -----------------------------------------------------------------


def test_lead_adds_all_three_then_two_highest_then_highest() -> None:
    assert [lead_part(i, d) for i, d in enumerate(TARGET_23)] == [9, 8, 6]
    assert target_of(TARGET_23) == 23
    table = new_table(3, lead=1)
    lead_sets(table)
    rnd = table.state.round
    assert rnd is not None and rnd.counted[1] == TARGET_23
    view = GAME.view(table.state, None).round
    assert view is not None and view.target == 23 and view.target_set


def test_lead_throws_three_dice_every_time_and_cannot_stop() -> None:
    table = new_table(3, lead=0)
    for i in range(3):
        expect_roll(table, 3)
        table.resolve(TARGET_23[i])
        kinds = {type(a) for a in GAME.legal(table.state, 0)}
        if i < 2:
            assert kinds == {ThrowOn}
            before = table.state
            with pytest.raises(IllegalMove, match="the lead cannot stop"):
                table.act(0, Stop())
            assert table.state == before
            table.act(0, ThrowOn())
        else:
            assert kinds == {Stop}
            with pytest.raises(IllegalMove, match="all three throws"):
                table.act(0, ThrowOn())
            table.act(0, Stop())
    rnd = table.state.round
    assert rnd is not None and rnd.thrower == 1


def test_lead_does_not_score() -> None:
    table = new_table(3, lead=0)
    lead_sets(table)
    seat_plays(table, (4, 5, 6), (3, 5))  # 23: Bull's Eye
    seat_plays(table, (1, 2, 3))
    summary = table.state.history[-1]
    assert summary.scores == (None, 50, 0)
    assert summary.totals == (None, 23, 6)
    assert table.state.points == (0, 50, 0)


# -- the other seats' throws -----------------------------------------------------------------


def test_others_throw_three_then_two_then_one_die() -> None:
    table = new_table(3, lead=0)
    lead_sets(table)
    expect_roll(table, 3)
    table.resolve((1, 2, 4))
    assert {type(a) for a in GAME.legal(table.state, 1)} == {Stop, ThrowOn}
    table.act(1, ThrowOn())
    expect_roll(table, 2)
    table.resolve((5, 6))
    assert {type(a) for a in GAME.legal(table.state, 1)} == {Stop, ThrowOn}
    table.act(1, ThrowOn())
    expect_roll(table, 1)
    table.resolve((6,))
    assert {type(a) for a in GAME.legal(table.state, 1)} == {Stop}
    with pytest.raises(IllegalMove, match="you must stop"):
        table.act(1, ThrowOn())
    table.act(1, Stop())
    summary_total = GAME.view(table.state, None).round
    assert summary_total is not None and summary_total.totals[1] == 1 + 2 + 4 + 5 + 6 + 6


def test_total_is_every_die_of_the_counted_throws() -> None:
    table = new_table(4, lead=0)
    lead_sets(table)
    seat_plays(table, (4, 5, 6))  # stops after one throw: 15
    seat_plays(table, (4, 5, 6), (3, 5))  # after two: 23
    seat_plays(table, (1, 2, 6), (2, 3), (6,))  # all three: 20
    assert table.state.history[-1].totals == (None, 15, 23, 20)


def test_a_seat_may_stop_after_its_first_counted_throw() -> None:
    table = new_table(3, lead=0)
    lead_sets(table)
    throw(table, (2, 6, 5))
    table.act(1, Stop())
    rnd = table.state.round
    assert rnd is not None and rnd.thrower == 2 and rnd.counted[1] == ((2, 6, 5),)


def test_others_throw_in_turn_from_the_leads_left() -> None:
    assert throwing_order(2, 5) == (2, 3, 4, 0, 1)
    table = new_table(4, lead=2)
    lead_sets(table)
    order = [seat_plays(table, (1, 2, 3)) for _ in range(3)]
    assert order == [3, 0, 1]


# -- scoring ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("distance", "points"),
    [(0, 50), (1, 30), (3, 30), (4, 20), (5, 20), (6, 10), (7, 10), (8, 0), (20, 0)],
)
def test_scoring_bands(distance: int, points: int) -> None:
    assert band(distance) == points
    assert band(-distance) == points
    assert round_score(23 + distance, 23) == points
    assert round_score(23 - distance, 23) == points


def test_scores_in_play() -> None:
    table = new_table(6, lead=0)
    lead_sets(table)  # 23
    seat_plays(table, (4, 5, 6), (2, 4))  # 21: 30
    seat_plays(table, (4, 5, 6), (1, 3))  # 19: 20
    seat_plays(table, (3, 5, 6), (1, 2))  # 17: 10
    seat_plays(table, (1, 2, 3))  # 6: 0
    seat_plays(table, (4, 5, 6), (5, 6), (3,))  # 29: 10 (over the target counts too)
    assert table.state.history[-1].scores == (None, 30, 20, 10, 0, 10)
    assert table.state.points == (0, 30, 20, 10, 0, 10)


# -- bets and the pot ------------------------------------------------------------------------


def test_bets_from_one_to_the_limit_and_the_bank() -> None:
    table = new_table(3, lead=0, bet_limit=4, bank=3)
    lead_sets(table)
    throw(table, (4, 5, 6))
    legal = GAME.legal(table.state, 1)
    # 0 (no bet) to the bank's 3, with throwing on or stopping
    assert legal == (*(ThrowOn(b) for b in range(4)), *(Stop(b) for b in range(4)))
    before = table.state
    with pytest.raises(IllegalMove, match="at most 4 chips"):
        table.act(1, ThrowOn(5))
    with pytest.raises(IllegalMove, match="only 3 chips in your bank"):
        table.act(1, ThrowOn(4))
    with pytest.raises(IllegalMove, match="cannot be negative"):
        table.act(1, ThrowOn(-1))
    assert table.state == before
    table.act(1, ThrowOn(2))
    assert (table.state.banks, table.state.pot) == ((3, 1, 3), 2)
    rnd = table.state.round
    assert rnd is not None and rnd.bets == (0, 2, 0)


def test_the_lead_does_not_bet() -> None:
    table = new_table(3, lead=0, bet_limit=4, bank=3)
    for i, dice in enumerate(TARGET_23):
        throw(table, dice)
        move = ThrowOn if i < 2 else Stop
        assert GAME.legal(table.state, 0) == (move(0),)
        assert GAME.max_bet(table.state, 0) == 0
        before = table.state
        for bet in (1, 3, 5):
            reason = GAME.why_illegal(table.state, 0, move(bet))
            assert reason == "the lead does not bet: the lead cannot take the round's pot"
            with pytest.raises(IllegalMove, match="the lead does not bet"):
                table.act(0, move(bet))
        assert table.state == before
        table.act(0, move(0))
    assert (table.state.banks, table.state.pot) == ((3, 3, 3), 0)
    # The next seat may bet again.
    throw(table, (4, 5, 6))
    assert GAME.max_bet(table.state, 1) == 3


def test_bets_after_each_counted_throw_add_to_the_pot() -> None:
    table = new_table(3, lead=0)
    lead_sets(table)
    seat_plays(table, (4, 5, 6), (3, 5), bets=(10, 7))
    assert table.state.banks[1] == 83
    rnd = table.state.round
    assert rnd is not None and rnd.bets == (0, 17, 0) and table.state.pot == 17


def test_no_bets_when_the_limit_is_zero_or_the_bank_empty() -> None:
    table = new_table(3, lead=0, bet_limit=0)
    lead_sets(table)
    throw(table, (4, 5, 6))
    assert GAME.legal(table.state, 1) == (ThrowOn(0), Stop(0))
    with pytest.raises(IllegalMove, match="betting is off"):
        table.act(1, ThrowOn(1))
    table = new_table(3, lead=0, bank=0)
    lead_sets(table)
    throw(table, (4, 5, 6))
    assert GAME.legal(table.state, 1) == (ThrowOn(0), Stop(0))


def test_highest_round_score_takes_the_pot() -> None:
    table = new_table(4, lead=0)
    lead_sets(table)
    seat_plays(table, (4, 5, 6), (2, 4), bets=(5,))  # 21: 30
    seat_plays(table, (4, 5, 6), (3, 5), bets=(2, 2))  # 23: 50
    seat_plays(table, (1, 2, 3), bets=(9,))  # 0
    summary = table.state.history[-1]
    assert summary.pot == 18 and summary.won == (0, 0, 18, 0) and summary.carried == 0
    assert table.state.banks == (100, 95, 114, 91)
    assert table.state.pot == 0


def test_tied_highest_split_the_pot_and_the_remainder_carries_over() -> None:
    table = new_table(4, lead=0)
    lead_sets(table)
    seat_plays(table, (4, 5, 6), (2, 4), bets=(3,))  # 30
    seat_plays(table, (4, 5, 6), (1, 5), bets=(4,))  # 30
    seat_plays(table, (1, 2, 3), bets=(4,))  # 0
    summary = table.state.history[-1]
    assert summary.won == (0, 5, 5, 0) and summary.carried == 1
    assert table.state.pot == 1
    assert table.state.banks == (100, 102, 101, 96)
    # The carried chip goes to the next round's winner (seat 1 leads, seat 0 throws last).
    lead_sets(table)
    seat_plays(table, (1, 2, 3))
    seat_plays(table, (1, 2, 3))
    seat_plays(table, (4, 5, 6), (3, 5))
    assert table.state.history[-1].won == (1, 0, 0, 0)
    assert table.state.pot == 0


def test_an_all_zero_round_carries_the_whole_pot() -> None:
    table = new_table(3, lead=0)
    lead_sets(table)
    seat_plays(table, (1, 2, 3), bets=(6,))
    seat_plays(table, (1, 2, 4), bets=(4,))
    summary = table.state.history[-1]
    assert summary.scores == (None, 0, 0) and summary.won == (0, 0, 0)
    assert summary.carried == 10 and table.state.pot == 10
    assert table.state.banks == (100, 94, 96)


def test_chips_are_conserved_across_rounds() -> None:
    table = new_table(3, lead=0, rounds=2)
    for _ in range(2):
        lead_sets(table)
        seat_plays(table, (2, 5, 6), (1, 3), bets=(3, 1))
        seat_plays(table, (4, 5, 6), (2, 3), bets=(10, 10))
        assert sum(table.state.banks) + table.state.pot == 300


def test_a_pot_carried_to_the_end_goes_to_the_winners() -> None:
    # Every score is 0, so the pot of 10 carries over and the game ends: the three seats
    # share the win, 3 chips each, and the odd chip goes to seat 1, left of the last lead.
    table = new_table(3, lead=0, rounds=1)
    lead_sets(table)
    seat_plays(table, (1, 2, 3), bets=(6,))
    seat_plays(table, (1, 2, 4), bets=(4,))
    assert isinstance(table.turn(), Finished)
    assert GAME.result(table.state).winners == (0, 1, 2)
    summary = table.state.history[-1]
    assert summary.scores == (None, 0, 0) and summary.pot == 10
    assert summary.won == (3, 4, 3) and summary.carried == 0
    assert table.state.pot == 0 and table.state.banks == (103, 98, 99)


def test_the_odd_chip_at_the_end_goes_to_the_first_winner_left_of_the_last_lead() -> None:
    # Seats 3 and 1 tie on 30: the pot of 11 gives them 5 each and 1 is carried; the game
    # ends, they are its winners, and the carried chip goes to seat 3, first left of lead 2.
    table = new_table(4, lead=2, rounds=1)
    lead_sets(table)
    assert seat_plays(table, (4, 5, 6), (2, 4), bets=(3,)) == 3  # 21: 30
    assert seat_plays(table, (1, 2, 3), bets=(4,)) == 0  # 0
    assert seat_plays(table, (4, 5, 6), (1, 5), bets=(4,)) == 1  # 21: 30
    assert isinstance(table.turn(), Finished)
    assert GAME.result(table.state).winners == (1, 3)
    summary = table.state.history[-1]
    assert summary.pot == 11 and summary.won == (0, 5, 0, 6) and summary.carried == 0
    assert table.state.pot == 0 and table.state.banks == (96, 101, 100, 103)
    assert sum(table.state.banks) == 400


# -- the lead moves; the end -----------------------------------------------------------------


def test_lead_passes_left_each_round() -> None:
    table = new_table(3, lead=1, rounds=4)
    leads = []
    for _ in range(4):
        rnd = table.state.round
        assert rnd is not None
        leads.append(rnd.lead)
        lead_sets(table)
        seat_plays(table, (1, 2, 3))
        seat_plays(table, (1, 2, 3))
    assert leads == [1, 2, 0, 1]
    assert isinstance(table.turn(), Finished)


def test_default_game_is_two_leads_per_seat() -> None:
    table = new_table(3, lead=0)
    for played in range(6):
        assert table.state.round is not None, played
        lead_sets(table)
        seat_plays(table, (4, 5, 6), (3, 5))
        seat_plays(table, (1, 2, 3))
    turn = table.turn()
    assert isinstance(turn, Finished)
    assert [s.lead for s in table.state.history] == [0, 1, 2, 0, 1, 2]
    assert turn.result.turns == 6


def test_game_ends_at_the_end_of_the_round_a_seat_reaches_target_points() -> None:
    table = new_table(3, lead=0, target_points=50)
    lead_sets(table)
    seat_plays(table, (4, 5, 6), (3, 5))  # seat 1 reaches 50 mid-round
    assert table.turn() == Chance(Roll(3))  # seat 2 still throws
    seat_plays(table, (4, 5, 6), (2, 4))
    turn = table.turn()
    assert isinstance(turn, Finished)
    assert turn.result.winners == (1,)
    assert turn.result.scores == table.state.points == (0, 50, 30)
    assert turn.result.turns == 1


def test_equal_points_share_the_win() -> None:
    table = new_table(3, lead=0, rounds=1)
    lead_sets(table)
    seat_plays(table, (4, 5, 6), (2, 4))
    seat_plays(table, (4, 5, 6), (1, 5))
    turn = table.turn()
    assert isinstance(turn, Finished)
    assert turn.result.winners == (1, 2) and turn.result.scores == (0, 30, 30)


def test_no_round_limit_plays_until_target_points() -> None:
    table = new_table(3, lead=0, rounds=0, target_points=100)
    for _ in range(3):  # the first seat after the lead hits, the second misses
        lead_sets(table)
        seat_plays(table, (4, 5, 6), (3, 5))
        seat_plays(table, (1, 2, 3))
    assert table.state.points == (50, 50, 50) and table.state.round is not None
    lead_sets(table)
    seat_plays(table, (4, 5, 6), (3, 5))
    seat_plays(table, (1, 2, 3))
    turn = table.turn()
    assert isinstance(turn, Finished) and turn.result.scores == (50, 100, 50)
    assert turn.result.turns == 4


def test_two_seat_game_plays_through() -> None:
    table = new_table(2, lead=0, allow_two_seats=True, rounds=2)
    lead_sets(table)
    seat_plays(table, (4, 5, 6), (3, 5))
    lead_sets(table)
    seat_plays(table, (1, 2, 4))
    turn = table.turn()
    assert isinstance(turn, Finished)
    assert turn.result.scores == (0, 50) and turn.result.winners == (1,)


# -- bad input changes nothing ---------------------------------------------------------------


def test_out_of_turn_and_wrong_moves_raise_and_change_nothing() -> None:
    table = new_table(3, lead=0)
    throw(table, TARGET_23[0])
    snapshot = codec.dumps(table.state)
    with pytest.raises(IllegalMove, match="seat 1's turn, not seat 2's"):
        table.act(1, ThrowOn())
    with pytest.raises(IllegalMove, match="stop or throw on"):
        GAME.act(table.state, 0, "roll")  # type: ignore[arg-type]
    for odd in ("5", True, 1.0):
        with pytest.raises(IllegalMove, match="whole number of chips"):
            GAME.act(table.state, 0, ThrowOn(odd))  # type: ignore[arg-type]
    with pytest.raises(InvalidOutcome, match="no dice are pending"):
        table.resolve((1, 2, 3))
    assert codec.dumps(table.state) == snapshot
    table.act(0, ThrowOn())
    with pytest.raises(InvalidOutcome, match="expected 3 results"):
        table.resolve((1, 2))
    with pytest.raises(InvalidOutcome, match=r"1\.\.6"):
        table.resolve((1, 2, 7))
    with pytest.raises(IllegalMove, match="dice must be rolled"):
        table.act(0, ThrowOn())
    assert table.turn() == Chance(Roll(3))


def test_game_over_refuses_moves() -> None:
    table = new_table(3, lead=0, rounds=1)
    lead_sets(table)
    seat_plays(table, (1, 2, 3))
    seat_plays(table, (1, 2, 3))
    with pytest.raises(IllegalMove, match="game is over"):
        table.act(0, Stop())
    assert GAME.legal(table.state, 0) == ()


def test_event_log_replays_a_hand_played_game() -> None:
    table = new_table(3, lead=2, rounds=1)
    lead_sets(table)
    throw(table, (4, 4, 2), (4, 6))
    table.act(0, Stop(3))
    throw(table, (6, 6, 6), (1, 2, 3))
    table.act(1, Stop())
    assert replay(GAME, 3, table.options, table.events) == table.state
    assert table.turn() == Finished(GAME.result(table.state))
    assert table.state.history[-1].totals == (12, 6, None)
