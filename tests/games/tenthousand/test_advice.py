"""Hints: every choice after a roll with its value, best first, in either measure."""

from __future__ import annotations

import pytest

from dicehall.engine.errors import InvalidInput
from dicehall.games.tenthousand import TenThousandOptions
from dicehall.games.tenthousand.advice import check_position, duel_hint, solo_hint
from dicehall.games.tenthousand.cache import SolveKey, solution
from dicehall.games.tenthousand.scoring import set_asides
from dicehall.games.tenthousand.strategy import turn_tables

DEFAULT = TenThousandOptions()
SMALL = TenThousandOptions(target=1500, entry_threshold=500)
WORKED = (1, 2, 2, 2, 4, 5)


def test_solo_hint_lists_every_set_aside_with_its_expected_points() -> None:
    hint = solo_hint(WORKED, 0, 0, DEFAULT)
    tables = turn_tables()
    assert hint.measure == "expected_points" and hint.opponent is None
    # Not in yet and at most 350 this roll: every choice rolls on.
    assert {c.keep for c in hint.choices} == {k for k, _ in set_asides(WORKED)}
    assert all(c.then == "roll" for c in hint.choices) and len(hint.choices) == 7
    for c in hint.choices:
        assert c.value == tables.expected_if_rolling(c.dice_to_roll, c.turn_total, False)
    values = [c.value for c in hint.choices]
    assert values == sorted(values, reverse=True)
    assert hint.choices[0].keep == (1,)  # keep the 1 and roll five


def test_solo_hint_for_a_seat_in_the_game_offers_banks() -> None:
    hint = solo_hint((1, 5), 400, 2000, DEFAULT)
    banks = {c.keep: c.value for c in hint.choices if c.then == "bank"}
    assert banks == {(1, 5): 550.0, (1,): 500.0, (5,): 450.0}
    best = hint.choices[0]
    # Hot dice at 550: rolling six is worth more than banking.
    assert (best.keep, best.then, best.dice_to_roll) == ((1, 5), "roll", 6)


def test_duel_hint_values_come_from_the_two_seat_tables() -> None:
    solved = solution(SolveKey.of(SMALL))
    hint = duel_hint(WORKED, 100, 300, 700, SMALL, solved)
    plan = solved.duel.plan(300, 700)
    assert hint.measure == "win_probability" and not hint.last_turn
    for c in hint.choices:
        if c.then == "bank":
            assert c.value == plan.bank_value(c.turn_total)
        else:
            assert c.value == plan.roll_value(c.dice_to_roll, c.turn_total)
    # Every set-aside both ways (the seat is in, so any total may be banked).
    assert len(hint.choices) == 14
    assert [c.value for c in hint.choices] == sorted((c.value for c in hint.choices), reverse=True)


def test_duel_hint_respects_the_entry_threshold() -> None:
    solved = solution(SolveKey.of(SMALL))
    hint = duel_hint(WORKED, 200, 0, 700, SMALL, solved)
    banked = {c.turn_total for c in hint.choices if c.then == "bank"}
    assert banked == {550, 500}  # 200 + 350 and 200 + 300; the rest stay below 500


def test_an_opponent_at_the_target_means_the_last_turn() -> None:
    solved = solution(SolveKey.of(SMALL))
    hint = duel_hint((1, 5), 500, 900, 1600, SMALL, solved)
    assert hint.last_turn
    by = {(c.keep, c.then): c.value for c in hint.choices}
    assert by[((1, 5), "bank")] == 0.0  # 1550 loses to 1600
    assert by[((1, 5), "roll")] == pytest.approx(
        solved.duel.last_turn_plan(900, 1600).roll_value(6, 650)
    )


def test_a_roll_that_zeroes_out_has_no_choices() -> None:
    assert solo_hint((2, 3, 4, 6, 6, 4), 0, 0, DEFAULT).choices == ()


@pytest.mark.parametrize(
    ("roll", "turn", "banked", "opponent", "message"),
    [
        ((1, 5), 0, 0, 0, "turn total must be at least 50"),
        (WORKED, 75, 0, 0, "the turn total must be a multiple of 50"),
        (WORKED, 0, -50, 0, "the banked total must be a multiple of 50"),
        (WORKED, 0, 1500, 0, "has reached the target"),
        (WORKED, 0, 0, 30, "the opponent's banked total must be a multiple of 50"),
        ((1, 2, 3, 4, 5, 6, 1), 0, 0, 0, "a roll is 1 to 6 dice"),
        ((0, 1), 50, 0, 0, "a roll is 1 to 6 dice"),
    ],
)
def test_impossible_positions_are_refused(
    roll: tuple[int, ...], turn: int, banked: int, opponent: int, message: str
) -> None:
    with pytest.raises(InvalidInput, match=message):
        check_position(roll, turn, banked, SMALL, opponent)
