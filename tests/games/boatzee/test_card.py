"""The scorecard: multipliers, the per-column upper bonus, totals, preview, yahtzee rulings."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dicehall.games.boatzee.card import (
    Card,
    Ruleset,
    allowed,
    column_total,
    empty_card,
    extra_bonus_due,
    fill,
    gain,
    is_full,
    joker_in_force,
    open_boxes,
    preview,
    total,
    upper_bonus,
    upper_total,
    why_not_allowed,
)
from dicehall.games.boatzee.scoring import BOXES
from tests.games.boatzee.helpers import cards, full_except, make_card

FULL_HOUSE = (3, 3, 3, 5, 5)


def test_column_k_multiplies_every_box_by_k() -> None:
    card = empty_card(3)
    for k in (1, 2, 3):
        card = fill(card, FULL_HOUSE, "boatzee", "full_house", k)
        card = fill(card, FULL_HOUSE, "boatzee", "threes", k)
    assert [column_total(card, k) for k in (1, 2, 3)] == [34, 68, 102]
    assert total(card) == 204
    assert card.boxes[1][2] == 9  # stored unmultiplied


def test_upper_bonus_needs_63_unmultiplied_in_its_own_column() -> None:
    # Column 1: 62 raw, no bonus. Column 2: 63 raw = 126 multiplied, bonus 35 (not doubled).
    just_short = {("sixes", 1): 30, ("fives", 1): 20, ("fours", 1): 12}
    enough = {("sixes", 2): 30, ("fives", 2): 20, ("fours", 2): 12, ("threes", 2): 1}
    card = make_card(3, {**just_short, **enough})
    assert upper_total(card, 1) == 62 and upper_bonus(card, 1) == 0
    assert upper_total(card, 2) == 63 and 2 * upper_total(card, 2) == 126
    assert upper_bonus(card, 2) == 35
    assert column_total(card, 2) == 126 + 35
    # Column 3: 189 multiplied points are needed, and the bonus is still 35.
    third = make_card(3, {("sixes", 3): 30, ("fives", 3): 25, ("fours", 3): 8})
    assert 3 * upper_total(third, 3) == 189
    assert upper_bonus(third, 3) == 35 and column_total(third, 3) == 189 + 35
    assert upper_bonus(third, 1) == upper_bonus(third, 2) == 0


def test_lower_boxes_never_count_toward_the_upper_bonus() -> None:
    card = make_card(1, {("chance", 1): 30, ("three_kind", 1): 30, ("sixes", 1): 18})
    assert upper_total(card, 1) == 18 and upper_bonus(card, 1) == 0
    assert total(card) == 78


def test_gain_includes_the_bonus_reached() -> None:
    card = make_card(2, {("sixes", 2): 24, ("fives", 2): 20, ("fours", 2): 16})
    # Three 1s in column 2: 3 raw -> 63, so 6 points plus the 35 bonus.
    assert gain(card, (1, 1, 1, 2, 3), "boatzee", "ones", 2) == 6 + 35
    assert gain(card, (1, 1, 1, 2, 3), "boatzee", "ones", 1) == 3


def test_preview_shows_every_open_box_per_column_multiplied() -> None:
    card = make_card(2, {("full_house", 1): 25, ("chance", 2): 20})
    shown = preview(FULL_HOUSE, card, "boatzee")
    assert len(shown) == 2
    assert "full_house" not in shown[0] and shown[1]["full_house"] == 50
    assert "chance" not in shown[1] and shown[0]["chance"] == 19
    assert shown[0]["threes"] == 9 and shown[1]["threes"] == 18
    assert shown[0]["large_straight"] == 0
    assert sum(len(c) for c in shown) == 2 * len(BOXES) - 2


def test_open_boxes_and_full_card() -> None:
    card = full_except(2, {("chance", 2)})
    assert open_boxes(card) == [("chance", 2)]
    assert not is_full(card)
    assert is_full(fill(card, FULL_HOUSE, "boatzee", "chance", 2))


def test_filled_box_and_bad_column_are_refused() -> None:
    card = make_card(1, {("chance", 1): 20})
    assert why_not_allowed(card, FULL_HOUSE, "boatzee", "chance", 1) == "Chance is already filled"
    assert "no column 2" in str(why_not_allowed(card, FULL_HOUSE, "boatzee", "ones", 2))
    assert "not a box" in str(why_not_allowed(card, FULL_HOUSE, "boatzee", "yacht", 1))
    with pytest.raises(ValueError, match="already filled"):
        fill(card, FULL_HOUSE, "boatzee", "chance", 1)


# -- the boatzee ruleset: no bonus, no joker ---------------------------------------------------


def test_boatzee_ruleset_has_no_extra_bonus_and_no_joker() -> None:
    card = make_card(1, {("boatzee", 1): 50})
    sixes = (6, 6, 6, 6, 6)
    assert not extra_bonus_due(card, sixes, "boatzee")
    assert not joker_in_force(card, sixes, "boatzee")
    assert len(allowed(card, sixes, "boatzee")) == 12
    after = fill(card, sixes, "boatzee", "full_house", 1)
    assert after.boxes[0][8] == 0 and after.extra_bonuses == 0
    assert total(after) == 50


# -- the yahtzee ruleset -----------------------------------------------------------------------


def test_extra_bonus_when_the_yahtzee_box_holds_50() -> None:
    card = make_card(1, {("boatzee", 1): 50})
    fours = (4, 4, 4, 4, 4)
    after = fill(card, fours, "yahtzee", "fours", 1)
    assert after.extra_bonuses == 1
    assert total(after) == 50 + 20 + 100
    assert gain(card, fours, "yahtzee", "fours", 1) == 120


def test_no_extra_bonus_when_the_yahtzee_box_holds_0() -> None:
    card = make_card(1, {("boatzee", 1): 0})
    after = fill(card, (4, 4, 4, 4, 4), "yahtzee", "fours", 1)
    assert after.extra_bonuses == 0 and total(after) == 20


def test_first_yahtzee_earns_no_extra_bonus() -> None:
    after = fill(empty_card(1), (2,) * 5, "yahtzee", "boatzee", 1)
    assert after.extra_bonuses == 0 and total(after) == 50


def test_joker_case_1_the_matching_upper_box_is_forced() -> None:
    card = make_card(1, {("boatzee", 1): 50})
    fours = (4, 4, 4, 4, 4)
    assert joker_in_force(card, fours, "yahtzee")
    assert allowed(card, fours, "yahtzee") == [("fours", 1)]
    reason = why_not_allowed(card, fours, "yahtzee", "full_house", 1)
    assert reason is not None and "joker rule" in reason and "Fours" in reason


def test_joker_case_2_any_open_lower_box_at_full_value() -> None:
    card = make_card(1, {("boatzee", 1): 0, ("fours", 1): 8, ("chance", 1): 20})
    fours = (4, 4, 4, 4, 4)
    assert allowed(card, fours, "yahtzee") == [
        ("three_kind", 1),
        ("four_kind", 1),
        ("full_house", 1),
        ("small_straight", 1),
        ("large_straight", 1),
    ]
    assert preview(fours, card, "yahtzee")[0] == {
        "three_kind": 20,
        "four_kind": 20,
        "full_house": 25,
        "small_straight": 30,
        "large_straight": 40,
    }
    assert "lower box is open" in str(why_not_allowed(card, fours, "yahtzee", "ones", 1))
    assert fill(card, fours, "yahtzee", "large_straight", 1).boxes[0][10] == 40


def test_joker_case_3_zero_an_upper_box_when_nothing_else_is_open() -> None:
    card = full_except(1, {("ones", 1), ("twos", 1)})
    fives = (5, 5, 5, 5, 5)
    assert allowed(card, fives, "yahtzee") == [("ones", 1), ("twos", 1)]
    after = fill(card, fives, "yahtzee", "twos", 1)
    assert after.boxes[0][1] == 0


def test_joker_with_the_yahtzee_box_at_50_also_earns_the_bonus() -> None:
    card = make_card(1, {("boatzee", 1): 50, ("sixes", 1): 18})
    sixes = (6, 6, 6, 6, 6)
    after = fill(card, sixes, "yahtzee", "small_straight", 1)
    assert after.boxes[0][9] == 30 and after.extra_bonuses == 1
    assert total(after) == 50 + 18 + 30 + 100


def test_joker_multi_column_upper_box_open_in_any_column_is_forced() -> None:
    card = make_card(3, {("boatzee", 1): 50, ("boatzee", 2): 0, ("boatzee", 3): 50})
    card = fill(card, (3, 3, 3, 3, 1), "boatzee", "threes", 1)
    threes = (3, 3, 3, 3, 3)
    assert allowed(card, threes, "yahtzee") == [("threes", 2), ("threes", 3)]
    after = fill(card, threes, "yahtzee", "threes", 3)
    assert column_total(after, 3) == 3 * (50 + 15)
    assert after.extra_bonuses == 1


def test_joker_multi_column_lower_boxes_in_any_column() -> None:
    upper_full = {("threes", k): 9 for k in (1, 2)}
    card = make_card(2, {**upper_full, ("boatzee", 1): 0, ("boatzee", 2): 0})
    assert allowed(card, (3,) * 5, "yahtzee") == [
        (box, k) for k in (1, 2) for box in BOXES[6:] if box != "boatzee"
    ]
    assert preview((3,) * 5, card, "yahtzee")[1]["full_house"] == 50


def test_no_joker_while_some_column_yahtzee_box_is_open() -> None:
    card = make_card(2, {("boatzee", 1): 50})
    sixes = (6, 6, 6, 6, 6)
    assert not joker_in_force(card, sixes, "yahtzee")
    assert len(allowed(card, sixes, "yahtzee")) == 12 + 13
    # Not a joker, so Full House scores 0; the 100 bonus is still earned.
    after = fill(card, sixes, "yahtzee", "full_house", 1)
    assert after.boxes[0][8] == 0 and after.extra_bonuses == 1
    # Scoring it in column 2's open Boatzee box: 100 there plus the 100 bonus.
    other = fill(card, sixes, "yahtzee", "boatzee", 2)
    assert total(other) == 50 + 100 + 100


def test_a_non_five_of_a_kind_is_never_a_joker() -> None:
    card = make_card(1, {("boatzee", 1): 50})
    assert not joker_in_force(card, (4, 4, 4, 4, 3), "yahtzee")
    assert not extra_bonus_due(card, (4, 4, 4, 4, 3), "yahtzee")
    assert len(allowed(card, (4, 4, 4, 4, 3), "yahtzee")) == 12


@settings(max_examples=60, deadline=None)
@given(position=cards(), face=st.integers(1, 6))
def test_forced_joker_choices_for_any_card(position: tuple[Card, Ruleset], face: int) -> None:
    card, ruleset = position
    dice = (face,) * 5
    open_now = [
        (box, k)
        for k in range(1, card.columns + 1)
        for i, box in enumerate(BOXES)
        if card.boxes[k - 1][i] is None
    ]
    every_yahtzee_filled = all(column[11] is not None for column in card.boxes)
    if ruleset == "boatzee" or not every_yahtzee_filled:
        expected = open_now
    elif any(box == BOXES[face - 1] for box, _ in open_now):
        expected = [(box, k) for box, k in open_now if box == BOXES[face - 1]]
    elif any(BOXES.index(box) >= 6 for box, _ in open_now):
        expected = [(box, k) for box, k in open_now if BOXES.index(box) >= 6]
    else:
        expected = open_now
    assert allowed(card, dice, ruleset) == expected
    for box, k in open_now:
        reason = why_not_allowed(card, dice, ruleset, box, k)
        assert (reason is None) == ((box, k) in expected), (box, k, reason)
        if reason is not None:
            assert "joker rule" in reason
