"""What a legal Score carries (its points and bonuses) and the view's sheets: the figures a
board draws, computed by the rules and checked against the card's own arithmetic."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dicehall.engine import IllegalMove, codec
from dicehall.games.boatzee.card import (
    Card,
    Ruleset,
    column_total,
    gain,
    preview,
    total,
    upper_bonus,
    upper_total,
)
from dicehall.games.boatzee.rules import GAME, BoatzeeOptions, BoatzeeState, Score
from tests.games.boatzee.helpers import cards, make_card

dice = st.tuples(*[st.integers(1, 6)] * 5)


def _state(card: Card, ruleset: Ruleset, faces: tuple[int, ...], rolls: int = 1) -> BoatzeeState:
    options = BoatzeeOptions(columns=card.columns, ruleset=ruleset)
    return BoatzeeState(options, (card,), 0, faces, rolls)


@settings(max_examples=300, deadline=None)
@given(cards(), dice)
def test_a_legal_score_carries_what_taking_its_box_does(
    position: tuple[Card, Ruleset], faces: tuple[int, ...]
) -> None:
    card, ruleset = position
    state = _state(card, ruleset, faces)
    shown = preview(faces, card, ruleset)
    scores = [a for a in GAME.legal(state, 0) if isinstance(a, Score)]
    assert {(a.box, a.column) for a in scores} == {
        (box, k) for k, column in enumerate(shown, start=1) for box in column
    }
    for action in scores:
        assert action.points == shown[action.column - 1][action.box]
        assert action.upper_bonus in (0, 35) and action.extra_bonus in (0, 100)
        assert action.points + action.upper_bonus + action.extra_bonus == gain(
            card, faces, ruleset, action.box, action.column
        )
        after = GAME.act(state, 0, action)
        assert total(after.cards[0]) - total(card) == (
            action.points + action.upper_bonus + action.extra_bonus
        )


def test_the_joker_and_both_bonuses_in_one_score() -> None:
    upper = {("ones", 1): 3, ("twos", 1): 6, ("threes", 1): 9, ("fives", 1): 15, ("sixes", 1): 18}
    card = make_card(1, {**upper, ("boatzee", 1): 50})
    (only,) = GAME.legal(_state(card, "yahtzee", (4, 4, 4, 4, 4), 3), 0)
    assert only == Score("fours")
    assert isinstance(only, Score)
    assert (only.points, only.upper_bonus, only.extra_bonus) == (20, 35, 100)
    assert codec.encode(only) == {
        "type": "score",
        "box": "fours",
        "column": 1,
        "points": 20,
        "upper_bonus": 35,
        "extra_bonus": 100,
    }
    # the joker's lower boxes at full value, multiplied by their column
    card = make_card(
        2, {**upper, ("boatzee", 1): 50, ("boatzee", 2): 0, ("fours", 1): 12, ("fours", 2): 8}
    )
    state = _state(card, "yahtzee", (4,) * 5, 3)
    legal = {(a.box, a.column): a for a in GAME.legal(state, 0) if isinstance(a, Score)}
    assert legal[("full_house", 2)].points == 50
    assert legal[("large_straight", 1)].points == 40


def test_a_score_may_leave_its_figures_out_but_not_get_them_wrong() -> None:
    state = _state(make_card(1, {}), "boatzee", (3, 3, 3, 5, 5))
    right = next(a for a in GAME.legal(state, 0) if a == Score("full_house"))
    assert isinstance(right, Score) and right.points == 25
    bare = GAME.act(state, 0, codec.decode({"type": "score", "box": "full_house"}, Score))
    assert bare == GAME.act(state, 0, right)
    assert bare.cards[0].boxes[0][8] == 25
    for wrong in ({"points": 50}, {"points": 25, "upper_bonus": 35}, {"extra_bonus": 100}):
        action = codec.decode({"type": "score", "box": "full_house", **wrong}, Score)
        assert action == right  # equality ignores the figures; act does not
        with pytest.raises(IllegalMove, match="send the figures the legal move lists"):
            GAME.act(state, 0, action)
    # a move that is illegal anyway is refused for that, figures or not
    with pytest.raises(IllegalMove, match="not seat 2's"):
        GAME.act(state, 1, Score("full_house", points=99))


@settings(max_examples=200, deadline=None)
@given(cards())
def test_the_view_sheets_are_the_cards_figures(position: tuple[Card, Ruleset]) -> None:
    card, ruleset = position
    view = GAME.view(_state(card, ruleset, (1, 2, 3, 4, 5)), None)
    (sheet,) = view.sheets
    columns = range(1, card.columns + 1)
    assert sheet.boxes == tuple(
        tuple(None if v is None else k * v for v in card.boxes[k - 1]) for k in columns
    )
    assert sheet.upper == tuple(upper_total(card, k) for k in columns)
    assert sheet.upper_bonus == tuple(upper_bonus(card, k) for k in columns)
    assert sheet.column_totals == tuple(column_total(card, k) for k in columns)
    assert sheet.extra_bonus == 100 * card.extra_bonuses
    assert sum(sheet.column_totals) + sheet.extra_bonus == view.totals[0] == total(card)
    assert view.upper_bonus_threshold == 63
    assert codec.decode(codec.encode(view), type(view)) == view
