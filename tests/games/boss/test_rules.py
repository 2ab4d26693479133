"""RULES.md §3 game rulings on the Game contract, one test per ruling, with scripted dice."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from dicehall.engine import (
    Chance,
    Finished,
    IllegalMove,
    InvalidOptions,
    InvalidOutcome,
    Roll,
    Table,
    ToAct,
    codec,
)
from dicehall.engine.errors import CodecError
from dicehall.games.boss import (
    GAME,
    BossAction,
    BossOptions,
    BossState,
    ComeUp,
    Keep,
    NoBoss,
    PickedUp,
    PickUp,
    Showdown,
)
from tests.games.junk import JUNK_DICE

Dice = tuple[int, ...]


def table(options: BossOptions | None = None) -> Table[BossState, BossAction]:
    return Table(GAME, 2, options or BossOptions())


def to_call(
    first0: Dice, first1: Dice, concealed: Dice | None, options: BossOptions | None = None
) -> Table[BossState, BossAction]:
    """A table where the Boss must call, after the given first rolls and concealed roll."""
    t = table(options)
    t.resolve(first0)
    t.resolve(first1)
    if concealed is not None:
        t.resolve(concealed)
    assert t.state.phase == "call"
    return t


def illegal(t: Table[BossState, BossAction], seat: int, action: object, match: str) -> None:
    before = t.state
    with pytest.raises(IllegalMove, match=match):
        t.act(seat, action)  # type: ignore[arg-type]
    assert t.state == before


def test_options_defaults_and_validation() -> None:
    assert GAME.options() == BossOptions(horses=2, max_pickups=None)
    assert GAME.options({"horses": "3", "max_pickups": "1"}) == BossOptions(3, 1)
    assert GAME.options({"max_pickups": "none"}) == BossOptions()
    with pytest.raises(InvalidOptions, match="horses must be 1 to 25"):
        GAME.options({"horses": "0"})
    with pytest.raises(InvalidOptions, match="max_pickups must be none or 0 to 100"):
        GAME.options({"max_pickups": "-1"})
    with pytest.raises(InvalidOptions, match="unknown option"):
        GAME.options({"rounds": "3"})


def test_two_seats_exactly() -> None:
    for seats in (1, 3):
        with pytest.raises(InvalidOptions, match="Boss Dice takes 2 seats, not"):
            Table(GAME, seats, BossOptions())


def test_each_seat_rolls_five_dice_in_the_open() -> None:
    t = table()
    assert t.turn() == Chance(Roll(5))
    t.resolve((6, 6, 1, 2, 3))
    assert t.turn() == Chance(Roll(5))
    assert GAME.view(t.state, 1).first_rolls == ((6, 6, 1, 2, 3),)
    assert GAME.view(t.state, None).first_rolls == ((6, 6, 1, 2, 3),)


def test_no_pair_for_either_seat_means_no_boss_and_both_roll_again() -> None:
    t = table()
    t.resolve((1, 2, 3, 4, 5))
    t.resolve((2, 3, 4, 5, 6))
    assert t.turn() == Chance(Roll(5))
    assert t.state.first_rolls == () and t.state.boss is None
    assert t.state.history == (NoBoss(((1, 2, 3, 4, 5), (2, 3, 4, 5, 6))),)
    assert t.state.hands == 0  # not a hand


def test_equal_first_rolls_mean_no_boss() -> None:
    t = table()
    t.resolve((5, 5, 2, 2, 1))  # two pair counts as a pair of 5s ...
    t.resolve((5, 5, 6, 4, 3))  # ... which ties this pair of 5s
    assert t.state.boss is None and isinstance(t.state.history[-1], NoBoss)
    t.resolve((3, 3, 3, 6, 5))
    t.resolve((3, 3, 3, 1, 2))  # unmatched dice never count
    assert t.state.boss is None and len(t.state.history) == 2


def test_only_one_pair_makes_that_seat_boss() -> None:
    t = table()
    t.resolve((1, 2, 3, 4, 6))
    t.resolve((1, 1, 2, 3, 4))
    assert t.state.boss == 1
    assert t.turn() == Chance(Roll(3))


def test_a_pair_beats_lower_two_pair_for_boss() -> None:
    t = table()
    t.resolve((4, 4, 3, 3, 1))
    t.resolve((5, 5, 1, 2, 6))
    assert t.state.boss == 1


@pytest.mark.parametrize(
    ("boss_roll", "kept", "rolled"),
    [
        ((6, 6, 1, 2, 3), (6, 6), 3),
        ((6, 6, 4, 4, 1), (6, 6), 3),
        ((4, 4, 4, 1, 2), (4, 4, 4), 2),
        ((2, 2, 2, 2, 6), (2, 2, 2, 2), 1),
    ],
)
def test_the_boss_keeps_his_made_dice_and_rolls_the_rest(
    boss_roll: Dice, kept: Dice, rolled: int
) -> None:
    t = table()
    t.resolve(boss_roll)
    t.resolve((1, 2, 3, 4, 5))
    assert t.state.boss == 0
    assert t.state.boss_kept == kept
    assert t.turn() == Chance(Roll(rolled))


@pytest.mark.parametrize("boss_roll", [(3, 3, 3, 5, 5), (5, 5, 5, 5, 5)])
def test_a_boss_with_all_five_made_rolls_nothing(boss_roll: Dice) -> None:
    t = table()
    t.resolve(boss_roll)
    t.resolve((1, 1, 2, 3, 4))
    assert t.turn() == ToAct(0)
    assert t.state.concealed == ()


def test_the_boss_calls_after_seeing_his_hand_and_the_opponents_roll() -> None:
    t = to_call((6, 6, 1, 2, 3), (3, 3, 6, 2, 1), (4, 4, 1))
    assert t.turn() == ToAct(0)
    assert GAME.legal(t.state, 0) == (ComeUp(), PickUp())
    assert GAME.legal(t.state, 1) == ()
    boss_view = GAME.view(t.state, 0)
    assert boss_view.concealed == (4, 4, 1) and boss_view.first_rolls[1] == (3, 3, 6, 2, 1)
    illegal(t, 1, Keep((3, 3)), "seat 1's turn, not seat 2's")
    illegal(t, 0, Keep(()), "the Boss keeps no more dice")


def test_pick_em_up_restarts_the_hand_with_no_horse() -> None:
    t = to_call((6, 6, 1, 2, 3), (3, 3, 6, 2, 1), (4, 4, 1))
    t.act(0, PickUp())
    s = t.state
    assert t.turn() == Chance(Roll(5))
    assert s.horses == (0, 0) and s.first_rolls == () and s.boss is None
    assert s.hands == 1 and s.pickups == 1
    assert s.history == (PickedUp(0, ((6, 6, 1, 2, 3), (3, 3, 6, 2, 1)), (6, 6)),)


def test_max_pickups_per_hand() -> None:
    options = BossOptions(max_pickups=1)
    t = to_call((6, 6, 1, 2, 3), (3, 3, 6, 2, 1), (4, 4, 1), options)
    t.act(0, PickUp())
    t.resolve((1, 2, 3, 4, 5))
    t.resolve((2, 2, 1, 3, 4))
    t.resolve((6, 5, 4))
    assert GAME.legal(t.state, 1) == (ComeUp(),)
    illegal(t, 1, PickUp(), "pick 'em up only once a hand; he must call 'come up'")
    t.act(1, ComeUp())
    t.act(0, Keep((1,)))
    t.resolve((6, 6, 6, 6))  # the opponent wins; a new hand allows a pick-up again
    assert t.state.pickups == 0
    t.resolve((5, 5, 1, 2, 3))
    t.resolve((1, 2, 3, 4, 6))
    t.resolve((1, 2, 3))
    assert PickUp() in GAME.legal(t.state, 0)


def test_max_pickups_zero_forbids_picking_up() -> None:
    t = to_call((6, 6, 1, 2, 3), (3, 3, 6, 2, 1), (4, 4, 1), BossOptions(max_pickups=0))
    assert GAME.legal(t.state, 0) == (ComeUp(),)
    illegal(t, 0, PickUp(), "pick 'em up only 0 times a hand")


def test_after_come_up_the_opponent_keeps_any_dice_but_two_pairs() -> None:
    t = to_call((6, 6, 1, 2, 3), (3, 3, 5, 5, 1), (4, 4, 1))
    t.act(0, ComeUp())
    assert t.turn() == ToAct(1)
    keeps = {a.dice for a in GAME.legal(t.state, 1) if isinstance(a, Keep)}
    assert (3, 3, 5, 5) not in keeps and (1, 3, 3, 5, 5) not in keeps
    assert {(), (3, 3), (5, 5), (1, 3, 3), (1, 3, 3, 5)} <= keeps
    illegal(t, 1, Keep((5, 5, 3, 3)), "you may not keep two pairs")
    illegal(t, 1, Keep((1, 3, 3, 5, 5)), "you may not keep two pairs")
    illegal(t, 1, Keep((6,)), "has no 6 to keep")
    illegal(t, 1, Keep((1, 1)), r"has one 1 \(not two\) to keep")
    illegal(t, 1, Keep((7,)), "7 is not a die face")
    illegal(t, 1, Keep((1, 1, 1, 1, 1, 1)), "cannot keep 6 dice")
    illegal(t, 1, ComeUp(), "only the Boss calls")
    illegal(t, 0, Keep(()), "seat 2's turn, not seat 1's")
    t.act(1, Keep((5, 3, 3)))  # any order; stored ascending
    assert t.state.keep == (3, 3, 5)
    assert t.turn() == Chance(Roll(2))


def test_a_full_house_may_be_kept_and_keeping_five_rolls_nothing() -> None:
    t = table()
    t.resolve((6, 6, 6, 6, 2))
    t.resolve((3, 3, 3, 5, 5))
    t.resolve((1,))
    t.act(0, ComeUp())
    t.act(1, Keep((3, 3, 3, 5, 5)))
    last = t.state.history[-1]
    assert isinstance(last, Showdown) and last.opponent_hand == (3, 3, 3, 5, 5)
    assert last.winner == 0


def test_showdown_winner_takes_a_horse_and_two_pair_counts() -> None:
    t = to_call((6, 6, 1, 2, 3), (3, 3, 6, 2, 1), (4, 5, 1))  # the Boss has a pair of 6s
    t.act(0, ComeUp())
    t.act(1, Keep((3, 3)))
    t.resolve((2, 2, 5))  # two pair, 3s and 2s, beats a pair of 6s
    s = t.state
    assert s.horses == (0, 1) and s.hands == 1
    assert s.history[-1] == Showdown(
        0,
        ((6, 6, 1, 2, 3), (3, 3, 6, 2, 1)),
        (6, 6),
        (1, 4, 5, 6, 6),
        (3, 3),
        (2, 2, 3, 3, 5),
        1,
    )
    assert t.turn() == Chance(Roll(5))


def test_equal_hands_push_no_horse_and_the_hand_is_replayed() -> None:
    t = to_call((6, 6, 1, 2, 3), (4, 4, 6, 2, 1), (4, 4, 1))  # Boss: 6 6 4 4 1
    t.act(0, ComeUp())
    t.act(1, Keep((4, 4)))
    t.resolve((6, 6, 5))  # 6 6 4 4 5: unmatched dice never count, so a push
    s = t.state
    assert s.horses == (0, 0) and s.hands == 1
    last = s.history[-1]
    assert isinstance(last, Showdown) and last.winner is None
    assert s.phase == "first_roll" and s.first_rolls == () and t.turn() == Chance(Roll(5))


def test_the_match_goes_to_the_first_with_two_horses() -> None:
    t = table()
    for _ in range(2):
        t.resolve((6, 6, 6, 6, 6))
        t.resolve((1, 1, 2, 3, 4))
        t.act(0, ComeUp())
        t.act(1, Keep(()))
        t.resolve((1, 2, 3, 4, 5))
    turn = t.turn()
    assert isinstance(turn, Finished)
    assert turn.result.winners == (0,)
    assert turn.result.scores == (2, 0)
    assert turn.result.turns == 2
    assert GAME.legal(t.state, 0) == () and GAME.legal(t.state, 1) == ()
    illegal(t, 0, ComeUp(), "the game is over")


def test_horses_option_one_ends_after_one_win() -> None:
    t = table(BossOptions(horses=1))
    t.resolve((1, 1, 2, 3, 4))
    t.resolve((6, 6, 6, 6, 6))
    t.act(1, ComeUp())
    t.act(0, Keep((1, 1)))
    t.resolve((2, 3, 4))
    turn = t.turn()
    assert isinstance(turn, Finished) and turn.result.winners == (1,)


def test_turns_count_showdowns_and_pickups_not_rerolls_for_no_boss() -> None:
    t = table(BossOptions(horses=1))
    t.resolve((1, 2, 3, 4, 5))
    t.resolve((1, 2, 3, 4, 6))  # no Boss: not a hand
    t.resolve((2, 2, 1, 3, 4))
    t.resolve((1, 2, 3, 4, 6))
    t.resolve((5, 5, 5))
    t.act(0, PickUp())  # a hand
    t.resolve((2, 2, 1, 3, 4))
    t.resolve((1, 2, 3, 4, 6))
    t.resolve((5, 1, 3))
    t.act(0, ComeUp())
    t.act(1, Keep(()))
    t.resolve((2, 2, 1, 3, 5))  # a push: a hand
    assert t.state.hands == 2 and t.state.horses == (0, 0)


def test_views_hide_the_concealed_roll_until_showdown() -> None:
    t = to_call((6, 6, 1, 2, 3), (3, 3, 6, 2, 1), (4, 4, 1))
    for _ in range(2):
        for seat in (1, None):
            view = GAME.view(t.state, seat)
            assert view.concealed is None
            assert view.boss_kept == (6, 6) and view.concealed_count == 3
            assert "4, 4, 1" not in repr(view) and "[4,4,1]" not in codec.dumps(view)
        assert GAME.view(t.state, 0).concealed == (4, 4, 1)
        if t.state.phase == "call":
            t.act(0, ComeUp())
    t.act(1, Keep((3, 3)))
    assert GAME.view(t.state, 1).concealed is None
    t.resolve((3, 5, 2))
    for seat in (0, 1, None):  # after the showdown both hands are visible to both
        last = GAME.view(t.state, seat).history[-1]
        assert isinstance(last, Showdown)
        assert last.boss_hand == (1, 4, 4, 6, 6) and last.opponent_hand == (2, 3, 3, 3, 5)


def test_a_picked_up_hand_never_shows_the_concealed_dice() -> None:
    t = to_call((6, 6, 1, 2, 3), (3, 3, 6, 2, 1), (5, 5, 2))
    t.act(0, PickUp())
    for seat in (0, 1, None):
        encoded = codec.dumps(GAME.view(t.state, seat))
        assert "[5,5,2]" not in encoded and 'concealed":null' in encoded


def test_not_a_move_is_illegal_and_keep_dice_must_be_whole_numbers() -> None:
    t = to_call((6, 6, 1, 2, 3), (3, 3, 6, 2, 1), (5, 5, 2))
    illegal(t, 0, "come up", "not a Boss Dice move")
    illegal(t, 0, Keep("x"), "the Boss keeps no more dice")  # type: ignore[arg-type]
    t.act(0, ComeUp())
    # A malformed keep is an illegal move with a sentence, as in every game; never a TypeError.
    illegal(t, 1, Keep("x"), "keep dice as a list of faces, like 3 3, not 'x'")  # type: ignore[arg-type]
    illegal(t, 1, Keep(None), "not None")  # type: ignore[arg-type]
    illegal(t, 1, Keep(3.5), "not 3.5")  # type: ignore[arg-type]
    illegal(t, 1, Keep((True,)), "a die face is a whole number from 1 to 6, not True")
    illegal(t, 1, Keep(("x", 3)), "a die face is a whole number from 1 to 6, not 'x'")  # type: ignore[arg-type]
    illegal(t, 1, Keep((3.0, 3.0)), "not 3.0")  # type: ignore[arg-type]
    illegal(t, 1, Keep((6, 6)), r"has one 6 \(not two\) to keep")
    assert Keep([3, 1, 3]) == Keep((1, 3, 3))  # type: ignore[arg-type]
    with pytest.raises(CodecError):
        codec.loads('{"type": "keep", "dice": ["x"]}', GAME.action_type)
    assert codec.loads('{"type": "keep", "dice": [5, 3, 3]}', GAME.action_type) == Keep((3, 3, 5))


def test_dice_outcomes_are_checked() -> None:
    t = table()
    with pytest.raises(InvalidOutcome):
        t.resolve((1, 2, 3, 4))
    with pytest.raises(InvalidOutcome):
        t.resolve((1, 2, 3, 4, 7))
    assert t.state == GAME.start(2, BossOptions())


@settings(max_examples=60, deadline=None)
@given(dice=JUNK_DICE)
def test_any_keep_is_played_or_refused_with_a_sentence(dice: object) -> None:
    """Whatever a caller puts in ``Keep(...)``, act() plays it (a legal keep) or raises
    IllegalMove with the game's own sentence, leaving the state as it was."""
    t = to_call((6, 6, 1, 2, 3), (3, 3, 6, 2, 1), (5, 5, 2))
    t.act(0, ComeUp())
    before = t.state
    keep = Keep(dice)  # type: ignore[arg-type]
    try:
        t.act(1, keep)
    except IllegalMove as refused:
        assert t.state == before
        assert refused.reason != "that move is not one of the moves allowed now"
    else:
        assert isinstance(dice, tuple | list) and all(type(face) is int for face in dice)
        assert t.state.keep == tuple(sorted(dice))
