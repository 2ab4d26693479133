"""Ten Thousand rulings (RULES.md section 1) on scripted games, and illegal moves."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from dicehall.engine import (
    Chance,
    CodecError,
    Finished,
    IllegalMove,
    InvalidOptions,
    Roll,
    Table,
    ToAct,
    codec,
)
from dicehall.games.tenthousand import (
    GAME,
    Bank,
    RollOn,
    SetAside,
    TenThousandAction,
    TenThousandOptions,
    TenThousandState,
    TurnEnd,
)
from tests.games.junk import JUNK_DICE


def table(seats: int = 2, **options: object) -> Table[TenThousandState, TenThousandAction]:
    """A fresh table with these options (given as typed values)."""
    return Table(GAME, seats, GAME.options(options))


def bank_turn(
    t: Table[TenThousandState, TenThousandAction], roll: tuple[int, ...], keep: tuple[int, ...]
) -> None:
    """Roll ``roll``, set ``keep`` aside and bank."""
    seat = t.state.current
    t.resolve(roll)
    t.act(seat, SetAside(keep))
    t.act(seat, Bank())


def zero_turn(t: Table[TenThousandState, TenThousandAction]) -> None:
    """Roll six dice with nothing that scores."""
    t.resolve((2, 3, 4, 4, 6, 6))


def unchanged_after(
    t: Table[TenThousandState, TenThousandAction], seat: int, action: TenThousandAction
) -> str:
    """Act illegally; check the state did not change; return the reason."""
    before = codec.dumps(t.state)
    with pytest.raises(IllegalMove) as info:
        t.act(seat, action)
    assert codec.dumps(t.state) == before
    return info.value.reason


# -- seats, options ---------------------------------------------------------------------------


def test_one_to_eight_seats() -> None:
    for seats in range(1, 9):
        assert GAME.start(seats, TenThousandOptions()).banked == (0,) * seats
    for seats in (0, 9):
        with pytest.raises(InvalidOptions, match="1 to 8 seats"):
            GAME.start(seats, TenThousandOptions())


def test_options_defaults_and_validation() -> None:
    assert GAME.options({}) == TenThousandOptions(10_000, 1000, False, 25, 5)
    assert GAME.options({"target": "5000", "four_and_pair_is_three_pairs": "yes"}) == (
        TenThousandOptions(target=5000, four_and_pair_is_three_pairs=True)
    )
    bad = [
        ({"target": "0"}, "target must be 50 to 100000"),
        ({"target": "many"}, "whole number"),
        ({"entry_threshold": "20000"}, r"target \(10000\) is below entry_threshold \(20000\)"),
        ({"target": "55"}, r"target \(55\) is below entry_threshold \(1000\)"),
        ({"entry_threshold": "-1"}, "entry_threshold must be 0"),
        ({"ante": "-5"}, "ante must be 0"),
        ({"zero_penalty": "-5"}, "zero_penalty must be 0"),
        ({"four_and_pair_is_three_pairs": "maybe"}, "true or false"),
        ({"bonus": "1"}, "unknown option 'bonus'"),
    ]
    for raw, message in bad:
        with pytest.raises(InvalidOptions, match=message):
            GAME.options(raw)


# -- a turn -----------------------------------------------------------------------------------


def test_a_turn_starts_by_rolling_six_dice() -> None:
    t = table()
    assert t.turn() == Chance(Roll(6))
    assert GAME.legal(t.state, 0) == ()
    with pytest.raises(IllegalMove, match="dice must be rolled"):
        t.act(0, RollOn())


def test_after_a_roll_legal_lists_every_set_aside_with_its_points() -> None:
    t = table()
    t.resolve((5, 4, 2, 1, 2, 2))
    assert t.turn() == ToAct(0)
    legal = GAME.legal(t.state, 0)
    assert [(a.dice, a.points) for a in legal if isinstance(a, SetAside)] == [
        ((1, 2, 2, 2, 5), 350),
        ((1, 2, 2, 2), 300),
        ((2, 2, 2, 5), 250),
        ((2, 2, 2), 200),
        ((1, 5), 150),
        ((1,), 100),
        ((5,), 50),
    ]
    assert len(legal) == 7
    assert t.state.dice == (1, 2, 2, 2, 4, 5)


def test_must_set_aside_scoring_dice_from_this_roll_before_anything_else() -> None:
    t = table()
    t.resolve((1, 2, 2, 2, 4, 5))
    assert "set aside scoring dice from your roll (1,2,2,2,4,5) first" in unchanged_after(
        t, 0, Bank()
    )
    unchanged_after(t, 0, RollOn())
    assert unchanged_after(t, 0, SetAside(())) == "set aside at least one scoring die"
    assert "1,1 is not part of your roll" in unchanged_after(t, 0, SetAside((1, 1)))
    assert "7 is not part of your roll" in unchanged_after(t, 0, SetAside((7,)))
    assert "0 is not part of your roll" in unchanged_after(t, 0, SetAside((0,)))
    assert unchanged_after(t, 0, SetAside((2, 2, 2, 4))) == (
        "4 does not score; every die you set aside must score"
    )
    assert "2,2 does not score" in unchanged_after(t, 0, SetAside((1, 2, 2)))
    assert "seat 1's turn, not seat 2's" in unchanged_after(t, 1, SetAside((1,)))


def test_client_may_post_dice_in_any_order_without_points() -> None:
    t = table()
    t.resolve((1, 2, 2, 2, 4, 5))
    t.act(0, SetAside((5, 2, 1, 2, 2)))
    assert t.state.turn_total == 350
    assert t.state.kept == ((1, 2, 2, 2, 5),)


def test_after_setting_aside_bank_or_roll_the_dice_still_in_hand() -> None:
    t = table(entry_threshold=0)
    t.resolve((1, 2, 2, 2, 4, 5))
    t.act(0, SetAside((1,)))
    assert GAME.legal(t.state, 0) == (Bank(), RollOn())
    assert "already set dice aside" in unchanged_after(t, 0, SetAside((5,)))
    t.act(0, RollOn())
    assert t.turn() == Chance(Roll(5))
    t.resolve((5, 3, 3, 4, 6))
    t.act(0, SetAside((5,)))
    assert t.state.turn_total == 150
    t.act(0, RollOn())
    assert t.turn() == Chance(Roll(4))


def test_zero_out_scores_nothing_and_ends_the_turn() -> None:
    t = table()
    t.resolve((1, 1, 1, 2, 3, 4))
    t.act(0, SetAside((1, 1, 1)))
    t.act(0, RollOn())
    t.resolve((2, 3, 4))
    state = t.state
    assert state.banked == (0, 0)
    assert state.current == 1
    assert state.turn_total == 0
    assert state.turns == 1
    assert state.last == TurnEnd(0, 0, zero_roll=(2, 3, 4), lost=1000, penalty=0)
    assert state.last.zeroed
    assert t.turn() == Chance(Roll(6))


def test_hot_dice_roll_all_six_again() -> None:
    t = table()
    t.resolve((1, 1, 1, 5, 2, 3))
    t.act(0, SetAside((1, 1, 1, 5)))
    t.act(0, RollOn())
    t.resolve((5, 1))
    t.act(0, SetAside((1, 5)))
    assert t.state.hot_dice
    assert t.state.turn_total == 1200
    t.act(0, RollOn())
    assert t.turn() == Chance(Roll(6))
    # Six dice at once that all score are hot dice too.
    u = table()
    u.resolve((1, 2, 3, 4, 5, 6))
    u.act(0, SetAside((1, 2, 3, 4, 5, 6)))
    assert u.state.hot_dice and u.state.in_hand == 6


def test_dice_from_different_rolls_never_combine() -> None:
    t = table(entry_threshold=0)
    t.resolve((1, 1, 2, 3, 4, 6))
    t.act(0, SetAside((1, 1)))
    t.act(0, RollOn())
    t.resolve((1, 3, 4, 6))
    t.act(0, SetAside((1,)))
    assert t.state.turn_total == 300  # three single 1s, never three 1s for 1000
    t.act(0, Bank())
    assert t.state.banked == (300, 0)


def test_four_and_pair_option_in_play() -> None:
    plain = table()
    plain.resolve((2, 2, 2, 2, 3, 3))
    assert SetAside((2, 2, 2, 2, 3, 3)) not in GAME.legal(plain.state, 0)
    house = table(four_and_pair_is_three_pairs=True)
    house.resolve((2, 2, 2, 2, 3, 3))
    house.act(0, SetAside((2, 2, 2, 2, 3, 3)))
    assert house.state.turn_total == 500 and house.state.hot_dice


# -- entering ---------------------------------------------------------------------------------


def test_first_bank_needs_the_entry_threshold() -> None:
    t = table()
    t.resolve((1, 2, 2, 2, 4, 5))
    t.act(0, SetAside((1, 2, 2, 2, 5)))
    assert GAME.legal(t.state, 0) == (RollOn(),)
    assert unchanged_after(t, 0, Bank()) == (
        "you cannot bank yet: your first bank needs at least 1000 points and this turn has 350"
    )
    t.act(0, RollOn())
    t.resolve((1,))
    t.act(0, SetAside((1,)))
    t.act(0, RollOn())
    t.resolve((1, 1, 1, 3, 4, 6))
    t.act(0, SetAside((1, 1, 1)))
    assert t.state.turn_total == 1450
    t.act(0, Bank())
    assert t.state.banked == (1450, 0)
    # Once in, any total may be banked.
    zero_turn(t)
    bank_turn(t, (5, 2, 3, 4, 6, 6), (5,))
    assert t.state.banked == (1500, 0)


def test_entry_threshold_exactly_met_and_option() -> None:
    t = table()
    bank_turn(t, (1, 1, 1, 2, 3, 4), (1, 1, 1))
    assert t.state.banked == (1000, 0)
    low = table(entry_threshold=300)
    low.resolve((3, 3, 3, 2, 4, 6))
    low.act(0, SetAside((3, 3, 3)))
    assert Bank() in GAME.legal(low.state, 0)


# -- the end ----------------------------------------------------------------------------------


def test_reaching_the_target_gives_every_other_seat_exactly_one_turn() -> None:
    t = table(3, target=1000)
    t.resolve((2, 3, 4, 4, 6, 6))  # seat 1 zeroes out
    bank_turn(t, (1, 1, 1, 2, 3, 4), (1, 1, 1))  # seat 2 reaches 1000
    state = t.state
    assert state.final_trigger == 1 and state.final_left == 2
    assert not isinstance(t.turn(), Finished)
    bank_turn(t, (1, 1, 1, 1, 3, 4), (1, 1, 1, 1))  # seat 3: 2000, does not restart the round
    assert t.state.final_trigger == 1 and t.state.final_left == 1
    assert t.state.current == 0
    zero_turn(t)  # seat 1's last turn
    turn = t.turn()
    assert isinstance(turn, Finished)
    assert turn.result.winners == (2,)
    assert turn.result.scores == (0, 1000, 2000)
    assert turn.result.turns == 4
    assert GAME.legal(t.state, 1) == ()
    with pytest.raises(IllegalMove, match="the game is over"):
        t.act(1, Bank())


def test_equal_highest_totals_share_the_win_and_the_pot() -> None:
    t = table(2, target=1000, ante=25, zero_penalty=5)
    bank_turn(t, (1, 1, 1, 2, 3, 4), (1, 1, 1))
    bank_turn(t, (1, 1, 1, 2, 3, 4), (1, 1, 1))
    turn = t.turn()
    assert isinstance(turn, Finished)
    assert turn.result.winners == (0, 1)
    assert t.state.payouts == (25, 25)


def test_one_seat_practice_ends_when_the_target_is_reached() -> None:
    t = table(1, target=1000)
    bank_turn(t, (1, 1, 1, 2, 3, 4), (1, 1, 1))
    turn = t.turn()
    assert isinstance(turn, Finished)
    assert turn.result.winners == (0,) and turn.result.turns == 1


# -- stakes -----------------------------------------------------------------------------------


def test_stakes_ante_penalty_after_entry_and_pot_to_the_winner() -> None:
    t = table(2, target=1500)
    assert t.state.paid == (25, 25) and t.state.pot == 50
    zero_turn(t)  # seat 1 has not entered: no penalty
    assert t.state.paid == (25, 25)
    assert t.state.last is not None and t.state.last.penalty == 0
    bank_turn(t, (1, 1, 1, 2, 3, 4), (1, 1, 1))  # seat 2 enters with 1000
    bank_turn(t, (1, 1, 1, 2, 3, 4), (1, 1, 1))  # seat 1 enters with 1000
    zero_turn(t)  # seat 2, entered: pays 5
    assert t.state.paid == (25, 30)
    assert t.state.last == TurnEnd(1, 0, zero_roll=(2, 3, 4, 4, 6, 6), lost=0, penalty=5)
    bank_turn(t, (5, 5, 5, 2, 3, 4), (5, 5, 5))  # seat 1 reaches 1500
    zero_turn(t)  # seat 2's last turn: pays 5 more
    assert isinstance(t.turn(), Finished)
    assert t.state.paid == (25, 35)
    assert t.state.payouts == (60, 0)
    assert sum(t.state.payouts) == t.state.pot


def test_stakes_options() -> None:
    t = table(3, ante=100, zero_penalty=0, entry_threshold=0, target=50)
    assert t.state.paid == (100, 100, 100)
    bank_turn(t, (5, 2, 3, 4, 6, 6), (5,))
    zero_turn(t)
    zero_turn(t)
    assert t.state.payouts == (300, 0, 0)


def test_views_show_everything_to_everyone() -> None:
    t = table()
    t.resolve((1, 2, 2, 2, 4, 5))
    for seat in (None, 0, 1):
        view = GAME.view(t.state, seat)
        assert view.seat == seat and view.state == t.state


def test_actions_decode_from_client_json() -> None:
    t = table()
    t.resolve((1, 2, 2, 2, 4, 5))
    posted = codec.loads('{"type": "set_aside", "dice": [5, 1], "points": 9999}', GAME.action_type)
    assert posted == SetAside((1, 5)) and posted in GAME.legal(t.state, 0)
    t.act(0, posted)
    assert t.state.turn_total == 150  # the game's value, never the posted points
    assert codec.loads('{"type": "roll_on"}', GAME.action_type) == RollOn()
    for bad in ('{"type": "cheat"}', '{"type": "set_aside", "dice": "15"}', "[1, 5]"):
        with pytest.raises(CodecError):
            codec.loads(bad, GAME.action_type)


def test_a_malformed_set_aside_is_an_illegal_move_not_a_type_error() -> None:
    t = table()
    t.resolve((1, 2, 2, 2, 4, 5))
    assert unchanged_after(t, 0, SetAside(None)) == (  # type: ignore[arg-type]
        "set dice aside as a list of faces, like 1 5, not None"
    )
    assert "not 3.5" in unchanged_after(t, 0, SetAside(3.5))  # type: ignore[arg-type]
    assert "x,1 is not part of your roll" in unchanged_after(t, 0, SetAside(("x", 1)))  # type: ignore[arg-type]
    assert "True is not part of your roll" in unchanged_after(t, 0, SetAside((True,)))
    assert SetAside([5, 1]) == SetAside((1, 5))  # type: ignore[arg-type]


@settings(max_examples=60, deadline=None)
@given(dice=JUNK_DICE)
def test_any_set_aside_is_played_or_refused_with_a_sentence(dice: object) -> None:
    """Whatever a caller puts in ``SetAside(...)``, act() plays it or raises IllegalMove with
    the game's own sentence, leaving the state as it was."""
    t = table()
    t.resolve((1, 2, 2, 2, 4, 5))
    before = t.state
    try:
        t.act(0, SetAside(dice))  # type: ignore[arg-type]
    except IllegalMove as refused:
        assert t.state == before
        assert refused.reason != "that move is not one of the moves allowed now"
    else:
        assert isinstance(dice, tuple | list) and all(type(face) is int for face in dice)
