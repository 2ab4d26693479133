"""Hold'em Dice rules, ruling by ruling (RULES.md section 4), on scripted dice.

(Longer than most test modules: the section has more rulings than any other game's, one
short test each.)
"""

from __future__ import annotations

import pytest

from dicehall.engine import Chance, Draw, Finished, IllegalMove, InvalidOptions, Roll, ToAct
from dicehall.engine.codec import dumps
from dicehall.games.holdem.model import (
    AllIn,
    Bet,
    Call,
    Check,
    Fold,
    HoldemAction,
    HoldemOptions,
    Raise,
)
from dicehall.games.holdem.rules import GAME
from tests.games.holdem.scripted import ScriptedHand


def street(hand: ScriptedHand) -> str:
    """The street in play (a function, so each check reads the state afresh)."""
    return hand.state.street


def refused(hand: ScriptedHand, seat: int, action: HoldemAction, message: str) -> None:
    """The move raises IllegalMove mentioning ``message`` and changes nothing."""
    before = dumps(hand.state)
    with pytest.raises(IllegalMove, match=message):
        hand.table.act(seat, action)
    assert dumps(hand.state) == before


def test_options_and_seats_are_checked() -> None:
    assert GAME.options({}) == HoldemOptions(500, None)
    assert GAME.options({"stack": "60", "max_flop_rerolls": "2"}) == HoldemOptions(60, 2)
    assert GAME.options({"max_flop_rerolls": "none"}).max_flop_rerolls is None
    for bad in ({"stack": "15"}, {"stack": "0"}, {"stack": "lots"}, {"max_flop_rerolls": "-1"}):
        with pytest.raises(InvalidOptions):
            GAME.options(bad)
    for seats in (1, 7):
        with pytest.raises(InvalidOptions, match="2 to 6 seats"):
            GAME.start(seats, HoldemOptions())


def test_antes_then_pockets_dealt_left_of_the_dealer_and_the_dealer_last() -> None:
    hand = ScriptedHand(3)
    state = hand.state
    assert state.dealer == 0 and state.hand == 1
    assert state.stacks == (490, 490, 490) and state.contributions == (10, 10, 10)
    turn = GAME.turn(state)
    assert turn == Chance(Draw(2, ("r",) * 5 + ("k",) * 5 + ("w",) * 5 + ("y",) * 5))
    order = []
    for dice in ("1r,2r", "3k,4k", "5w,6w"):
        order.append(hand.state.dealing)
        hand.dice(dice)
    assert order == [1, 2, 0]
    assert hand.state.pockets == (("5w", "6w"), ("1r", "2r"), ("3k", "4k"))
    assert hand.state.stage == "betting" and hand.state.to_act == 1


def test_the_bag_runs_without_replacement() -> None:
    hand = ScriptedHand(2)
    hand.pockets(s1="1r,2r", s0="3r,4r")
    hand.act(1, Check())
    hand.act(0, Check())
    turn = GAME.turn(hand.state)
    assert isinstance(turn, Chance) and isinstance(turn.request, Draw)
    assert turn.request.count == 3
    assert turn.request.population.count("r") == 1
    assert len(turn.request.population) == 16


def test_pockets_are_seen_only_by_their_owner() -> None:
    hand = ScriptedHand(3)
    hand.pockets(s1="1r,2r", s2="3k,4k", s0="5w,6w")
    assert GAME.view(hand.state, 1).pocket == ("1r", "2r")
    assert GAME.view(hand.state, 2).pocket == ("3k", "4k")
    assert GAME.view(hand.state, None).pocket == ()
    text = dumps(GAME.view(hand.state, 1))
    assert "3k" not in text and "6w" not in text


def test_open_round_limits_and_order() -> None:
    hand = ScriptedHand(3)
    hand.pockets(s1="1r,2r", s2="3k,4k", s0="5w,6w")
    assert GAME.turn(hand.state) == ToAct(1)
    assert list(GAME.legal(hand.state, 1)) == [Fold(), Check(), Bet(10)]
    assert GAME.legal(hand.state, 2) == ()
    hand.act(1, Bet(10))
    assert list(GAME.legal(hand.state, 2)) == [Fold(), Call(), Raise(10)]


def test_turn_and_river_limit_is_twenty() -> None:
    hand = ScriptedHand(2, max_flop_rerolls=0)
    hand.pockets(s1="1r,2r", s0="3k,4k")
    hand.act(1, Check())
    hand.act(0, Check())
    hand.dice("5w,6w,1y")
    hand.act(1, Check())
    hand.act(0, Check())  # no re-roll allowed: straight on to the turn
    hand.dice("2y")
    assert street(hand) == "turn"
    assert list(GAME.legal(hand.state, 1)) == [Fold(), Check(), Bet(10), Bet(20)]
    hand.act(1, Bet(20))
    assert list(GAME.legal(hand.state, 0)) == [Fold(), Call(), Raise(10), Raise(20)]
    refused(hand, 0, Raise(30), "a raise here must be 10 or 20, not 30")
    hand.act(0, Raise(20))
    hand.act(1, Call())
    hand.dice("3y")
    assert street(hand) == "river"
    assert Bet(20) in GAME.legal(hand.state, 1)


def test_at_most_three_raises_and_the_opening_bet_is_not_one() -> None:
    hand = ScriptedHand(2)
    hand.pockets(s1="1r,2r", s0="3k,4k")
    hand.act(1, Bet(10))
    hand.act(0, Raise(10))
    hand.act(1, Raise(10))
    hand.act(0, Raise(10))
    assert hand.state.raises == 3
    assert list(GAME.legal(hand.state, 1)) == [Fold(), Call()]
    refused(hand, 1, Raise(10), "no more raises: this round has had 3")
    hand.act(1, Call())
    assert hand.state.contributions == (50, 50)
    assert hand.state.stage == "board_colours"


def test_the_seed_example_hand_a_straight_beats_a_full_house() -> None:
    # Seats: A = 1 (left of the dealer, acts first), B = 2, C = 0 (the dealer).
    a, b, c = 1, 2, 0
    hand = ScriptedHand(3)
    hand.pockets(s1="3r,2k", s2="6w,5y", s0="1k,1w")
    hand.act(a, Check())
    hand.act(b, Bet(10))
    hand.act(c, Raise(10))
    hand.act(a, Call())
    hand.act(b, Call())
    assert sum(hand.state.contributions) == 90
    hand.dice("4r,4k,2w")  # the flop
    hand.act(a, Bet(10))
    hand.act(b, Call())
    hand.act(c, Raise(10))
    hand.act(a, Call())
    hand.act(b, Fold())
    assert sum(hand.state.contributions) == 140
    hand.dice("1y")  # the turn: C has three 1s over two 4s
    hand.act(a, Bet(20))
    hand.act(c, Raise(10))
    hand.act(a, Call())
    assert sum(hand.state.contributions) == 200
    hand.dice("5k")  # the river: A has 1 through 5
    hand.act(a, Bet(10))
    hand.act(c, Call())
    last = hand.state.last
    assert last is not None and last.hand == 1
    shown = {s.seat: s.category for s in last.showdown}
    assert shown == {a: "straight", c: "full_house"}
    assert last.won == (0, 220, 0)
    assert hand.state.stacks == (410 - 10, 630 - 10, 460 - 10)  # next hand's antes are in
    assert hand.state.hand == 2 and hand.state.dealer == 1


def test_calling_with_every_chip_leaves_the_seat_all_in_and_skipped() -> None:
    hand = ScriptedHand(3, max_flop_rerolls=0)
    hand.set_stacks(490, 490, 10)
    hand.pockets(s1="1r,2r", s2="3k,4k", s0="5w,6w")
    hand.act(1, Bet(10))
    hand.act(2, Call())  # exactly all its chips: a call that leaves it all-in
    hand.act(0, Call())
    hand.dice("1k,2w,3y")
    hand.act(1, Bet(10))
    hand.act(0, Call())  # seat 2 is all-in and skipped
    assert (hand.state.stage, hand.state.street) == ("board_colours", "turn")
    assert hand.state.stacks == (470, 470, 0)


def test_all_in_for_less_than_a_call_keeps_the_bet_and_does_not_reopen() -> None:
    hand = ScriptedHand(3)
    hand.set_stacks(10, 490, 490)
    hand.pockets(s1="1r,2r", s2="3k,4k", s0="5w,6w")
    hand.act(1, Bet(10))
    hand.act(2, Raise(10))  # to 20; seat 0 has 10 and cannot call 20
    assert list(GAME.legal(hand.state, 0)) == [Fold(), AllIn()]
    refused(hand, 0, Call(), "you have only 10, not enough to call 20: go all-in or fold")
    refused(hand, 0, Raise(10), "not enough to raise")
    hand.act(0, AllIn())
    assert hand.state.round_bets == (10, 10, 20)
    assert hand.state.stacks[0] == 0
    # Seat 1 still owes 10 and may raise again; seat 0's short all-in did not raise.
    assert list(GAME.legal(hand.state, 1)) == [Fold(), Call(), Raise(10)]
    assert hand.state.raises == 1
    pots = GAME.view(hand.state, None).pots
    assert [(p.amount, p.eligible) for p in pots] == [(60, (0, 1, 2)), (10, (1, 2))]


def test_three_all_ins_of_different_sizes_and_the_side_pots() -> None:
    hand = ScriptedHand(4)
    hand.set_stacks(400, 10, 20, 30)  # after antes: all-ins at 20, 30 and 40 in all
    hand.pockets(s1="6w,6y", s2="4k,5w", s3="3r,3k", s0="1r,2r")
    hand.act(1, Bet(10))  # all-in
    hand.act(2, Raise(10))  # all-in
    hand.act(3, Raise(10))  # all-in
    assert hand.state.raises == 2  # an all-in raise of 10 is a full raise
    assert list(GAME.legal(hand.state, 0)) == [Fold(), Call()]  # nobody could answer a raise
    hand.act(0, Call())
    pots = GAME.view(hand.state, None).pots
    assert [(p.amount, p.eligible) for p in pots] == [
        (80, (0, 1, 2, 3)),
        (30, (0, 2, 3)),
        (20, (0, 3)),
    ]
    # Nobody can bet any more: the board is dealt straight out, no flop re-roll.
    hand.dice("1w,2y,6r")
    hand.dice("6k")
    hand.dice("3y")
    last = hand.state.last
    assert last is not None
    assert {s.seat: s.category for s in last.showdown} == {
        1: "four_kind",
        2: "straight",
        3: "full_house",
        0: "two_pair",
    }
    assert [(p.amount, p.winners) for p in last.pots] == [(80, (1,)), (30, (2,)), (20, (3,))]
    assert last.won == (0, 80, 30, 20)
    assert last.eliminated == ()
    # Seat 0 (the dealer) kept 370; the button moves to seat 1 and antes are posted.
    assert hand.state.stacks == (360, 70, 20, 10)
    assert hand.state.dealer == 1


def test_a_split_pot_gives_the_odd_unit_left_of_the_dealer() -> None:
    hand = ScriptedHand(3, max_flop_rerolls=0)
    hand.pockets(s1="1k,1w", s2="1y,2k", s0="2w,2y")
    hand.act(1, Fold())
    hand.act(2, Check())
    hand.act(0, Check())
    hand.dice("2r,3r,4r")  # the board is a straight flush nobody can beat
    hand.act(2, Check())
    hand.act(0, Check())
    hand.dice("5r")
    hand.act(2, Check())
    hand.act(0, Check())
    hand.dice("6r")
    hand.act(2, Check())
    hand.act(0, Check())
    last = hand.state.last
    assert last is not None
    (pot,) = last.pots
    assert pot.amount == 30 and set(pot.winners) == {0, 2}
    # Three units between two seats: the odd one to seat 2, first left of dealer 0.
    assert last.won == (10, 0, 20)


def test_everyone_checking_the_flop_rerolls_the_same_three_dice() -> None:
    hand = ScriptedHand(2)
    hand.pockets(s1="1r,2r", s0="3k,4k")
    hand.act(1, Check())
    hand.act(0, Check())
    hand.dice("5w,6y,1k")
    hand.act(1, Check())
    hand.act(0, Check())
    assert GAME.turn(hand.state) == Chance(Roll(3))
    hand.reroll((2, 2, 2))
    assert hand.state.board == ("2w", "2y", "2k") and hand.state.rerolls == 1
    assert street(hand) == "flop" and GAME.turn(hand.state) == ToAct(1)
    hand.act(1, Bet(10))
    hand.act(0, Call())
    assert GAME.turn(hand.state) == Chance(Draw(1, GAME.bag(hand.state)))
    assert street(hand) == "turn"


def test_max_flop_rerolls_caps_the_rerolls() -> None:
    hand = ScriptedHand(2, max_flop_rerolls=1)
    hand.pockets(s1="1r,2r", s0="3k,4k")
    hand.act(1, Check())
    hand.act(0, Check())
    hand.dice("5w,6y,1k")
    hand.act(1, Check())
    hand.act(0, Check())
    hand.reroll((3, 3, 3))
    hand.act(1, Check())
    hand.act(0, Check())
    turn = GAME.turn(hand.state)
    assert isinstance(turn, Chance) and isinstance(turn.request, Draw)
    assert street(hand) == "turn" and hand.state.board == ("3w", "3y", "3k")


def test_a_fold_does_not_stop_the_reroll_but_one_bettor_left_does() -> None:
    hand = ScriptedHand(3)
    hand.pockets(s1="1r,2r", s2="3k,4k", s0="5w,6w")
    for seat in (1, 2, 0):
        hand.act(seat, Check())
    hand.dice("1w,2y,3y")
    hand.act(1, Check())
    hand.act(2, Fold())
    hand.act(0, Check())
    assert GAME.turn(hand.state) == Chance(Roll(3))

    short = ScriptedHand(3)
    short.set_stacks(490, 490, 0)  # seat 2 is all-in from its ante
    short.pockets(s1="1r,2r", s2="3k,4k", s0="5w,6w")
    short.act(1, Check())
    short.act(0, Check())
    short.dice("1w,2y,3y")
    short.act(1, Check())
    short.act(0, Check())
    assert short.state.street == "flop" and GAME.turn(short.state) == Chance(Roll(3))
    short.reroll((4, 4, 4))
    short.act(1, Check())
    short.act(0, Fold())  # one seat able to bet is left: no re-roll, the turn comes
    turn = GAME.turn(short.state)
    assert isinstance(turn, Chance) and isinstance(turn.request, Draw)


def test_uncontested_pot_is_taken_unseen() -> None:
    hand = ScriptedHand(3)
    hand.pockets(s1="6r,6k", s2="3k,4k", s0="5w,6w")
    hand.act(1, Bet(10))
    hand.act(2, Fold())
    hand.act(0, Fold())
    last = hand.state.last
    assert last is not None
    assert last.showdown == () and last.won == (0, 40, 0)
    for viewer in (None, 0, 1, 2):
        assert "6r" not in dumps(GAME.view(hand.state, viewer).last)


def test_folded_pockets_are_never_shown_at_showdown() -> None:
    hand = ScriptedHand(3, max_flop_rerolls=0)
    hand.pockets(s1="6r,6k", s2="3k,4k", s0="5w,6w")
    hand.act(1, Bet(10))
    hand.act(2, Fold())
    hand.act(0, Call())
    for board in ("1r,2r,3w", "1y", "2y"):
        hand.dice(board)
        hand.act(1, Check())
        hand.act(0, Check())
    last = hand.state.last
    assert last is not None
    assert {s.seat for s in last.showdown} == {0, 1}
    assert "4k" not in dumps(last)


def test_yahtzee_flush_at_showdown_ends_the_game() -> None:
    hand = ScriptedHand(3, max_flop_rerolls=0)
    hand.pockets(s1="6r,6r", s2="3k,4k", s0="5w,6w")
    for seat in (1, 2, 0):
        hand.act(seat, Check())
    hand.dice("6r,6r,6r")
    for seat in (1, 2, 0):
        hand.act(seat, Check())
    hand.dice("1k")
    for seat in (1, 2, 0):
        hand.act(seat, Check())
    hand.dice("2w")
    for seat in (1, 2, 0):
        hand.act(seat, Check())
    turn = GAME.turn(hand.state)
    assert isinstance(turn, Finished)
    assert turn.result.winners == (1,)
    assert turn.result.scores == (490, 520, 490)
    assert turn.result.turns == 1
    last = hand.state.last
    assert last is not None and last.yahtzee_flush
    refused(hand, 1, Check(), "the game is over")


def test_yahtzee_flush_takes_the_side_pots_too() -> None:
    hand = ScriptedHand(3)
    hand.set_stacks(490, 10, 490)
    hand.pockets(s1="6r,6r", s2="3k,4k", s0="5w,6w")
    hand.act(1, Bet(10))  # all-in
    hand.act(2, Raise(10))
    hand.act(0, Call())
    hand.dice("6r,6r,6r")
    hand.act(2, Bet(10))
    hand.act(0, Call())
    hand.dice("1k")
    hand.act(2, Check())
    hand.act(0, Check())
    hand.dice("2w")
    hand.act(2, Check())
    hand.act(0, Check())
    turn = GAME.turn(hand.state)
    assert isinstance(turn, Finished) and turn.result.winners == (1,)
    assert turn.result.scores == (490 - 30, 20 + 40 + 40, 490 - 30)


def test_a_yahtzee_flush_that_wins_uncontested_does_not_end_the_game() -> None:
    hand = ScriptedHand(2)
    hand.pockets(s1="6r,6r", s0="5w,6w")
    hand.act(1, Check())
    hand.act(0, Check())
    hand.dice("6r,6r,6r")
    hand.act(1, Bet(10))
    hand.act(0, Fold())
    assert hand.state.stage == "pocket_colours" and hand.state.hand == 2


def test_elimination_the_button_skips_the_seat_out_and_the_last_seat_wins() -> None:
    hand = ScriptedHand(3, stack=20)
    hand.pockets(s1="1r,2k", s2="3k,4k", s0="6w,6y")
    hand.act(1, Bet(10))  # all-in
    hand.act(2, Fold())
    hand.act(0, Call())  # all-in: nobody can bet, the board runs out
    hand.dice("6r,6k,1w")
    hand.dice("3y")
    hand.dice("4w")
    last = hand.state.last
    assert last is not None and last.eliminated == (1,)
    state = hand.state
    assert state.out == (False, True, False)
    assert state.dealer == 2  # left of dealer 0, skipping seat 1
    assert state.stacks == (40, 0, 0) and state.contributions == (10, 0, 10)
    assert state.dealing == 0  # left of dealer 2 is seat 0
    hand.pockets(s0="6r,6k", s2="1k,2w")
    # Seat 2 is all-in from its ante and seat 0 cannot bet alone: straight to the flop.
    hand.dice("6y,6w,1w")
    hand.dice("3y")
    hand.dice("5r")
    turn = GAME.turn(hand.state)
    assert isinstance(turn, Finished)
    assert turn.result.winners == (0,) and turn.result.scores == (60, 0, 0)
    assert turn.result.turns == 2


def test_bad_moves_are_refused_with_a_reason_and_change_nothing() -> None:
    hand = ScriptedHand(3)
    refused(hand, 1, Check(), "dice must be rolled")
    hand.pockets(s1="1r,2r", s2="3k,4k", s0="5w,6w")
    refused(hand, 2, Check(), "seat 2's turn, not seat 3's")
    refused(hand, 1, Bet(15), "a bet here must be 10, not 15")
    refused(hand, 1, Bet(20), "a bet here must be 10, not 20")
    refused(hand, 1, Bet(0), "a bet here must be 10, not 0")
    # An amount that only looks allowed says what is wrong with it, not "must be 10, not 10".
    refused(hand, 1, Bet(10.0), r"a bet is a whole number of chips \(10 here\), not 10\.0")  # type: ignore[arg-type]
    refused(hand, 1, Bet("10"), r"a bet is a whole number of chips \(10 here\), not '10'")  # type: ignore[arg-type]
    refused(hand, 1, Raise(10), "no bet to raise")
    refused(hand, 1, Call(), "no bet to call")
    refused(hand, 1, AllIn(), "all-in is for a seat that can't afford the call")
    hand.act(1, Bet(10))
    refused(hand, 2, Check(), "you can't check: there is 10 to call")
    refused(hand, 2, Bet(10), "already a bet")
    refused(hand, 2, Raise(20), "a raise here must be 10, not 20")


def test_a_bet_past_the_stack_is_refused() -> None:
    hand = ScriptedHand(2, max_flop_rerolls=0)
    hand.set_stacks(10, 490)
    hand.pockets(s1="1r,2r", s0="3k,4k")
    hand.act(1, Check())
    hand.act(0, Check())
    hand.dice("5w,6y,1k")
    hand.act(1, Check())
    hand.act(0, Check())
    hand.dice("2y")
    hand.act(1, Check())
    refused(hand, 0, Bet(20), "you can bet at most 10: that is every chip you have left")
    hand.act(0, Bet(10))
