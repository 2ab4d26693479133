"""Hints: every choice ranked by its expected final total, consistent with the solve."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from dicehall.engine.errors import InvalidInput
from dicehall.games.boatzee.card import Card, Ruleset, total
from dicehall.games.boatzee.dice_tables import KEEP_INDEX, transitions
from dicehall.games.boatzee.hints import Choice, achievable, hint, scored_card
from dicehall.games.boatzee.scoring import BOXES, HANDS, Box
from dicehall.games.boatzee.table_cache import table
from dicehall.games.boatzee.valuation import TableValuation, for_game
from tests.games.boatzee.solved import solved, solved_dir

__all__ = ["solved", "solved_dir"]

EMPTY = Card(((None,) * len(BOXES),))


def _all_but(open_box: str, value: int = 0, **values: int) -> dict[Box, int]:
    return {box: values.get(box, value) for box in BOXES if box != open_box}


def _valuation(ruleset: Ruleset) -> TableValuation:
    return for_game(1, ruleset)


@pytest.mark.parametrize("ruleset", ["boatzee", "yahtzee"])
def test_the_best_first_roll_choices_average_to_the_solved_optimum(
    solved: Path, ruleset: Ruleset
) -> None:
    valuation = _valuation(ruleset)
    best = np.array([hint(EMPTY, hand, 2, ruleset, valuation)[0].expected_final for hand in HANDS])
    chances = transitions()[KEEP_INDEX[()]]
    assert float(chances @ best) == pytest.approx(table(ruleset).expected, abs=1e-9)


def test_every_distinct_keep_and_every_open_box_is_a_choice(solved: Path) -> None:
    card = scored_card({"ones": 1, "twos": 2}, "boatzee")
    choices = hint(card, (1, 1, 2, 3, 4), 2, "boatzee", _valuation("boatzee"))
    keeps = [c.keep for c in choices if c.keep is not None]
    boxes = [c.box for c in choices if c.box is not None]
    # {1,1,2,3,4} has 3*2*2*2 = 24 sub-multisets; holding all five is scoring, not a keep.
    assert len(keeps) == len(set(keeps)) == 23
    assert () in keeps and (1, 1, 2, 3) in keeps and (1, 1, 2, 3, 4) not in keeps
    assert sorted(boxes) == sorted(set(BOXES) - {"ones", "twos"})
    values = [c.expected_final for c in choices]
    assert values == sorted(values, reverse=True)
    assert choices[0] == Choice(choices[0].expected_final, keep=(1, 2, 3, 4))
    last = hint(card, (1, 1, 2, 3, 4), 0, "boatzee", _valuation("boatzee"))
    assert all(c.keep is None for c in last) and len(last) == 11


def test_a_keep_is_worth_the_average_of_the_best_choices_after_it(solved: Path) -> None:
    valuation = _valuation("boatzee")
    card = scored_card({"sixes": 18, "chance": 22, "full_house": 25}, "boatzee")
    choices = hint(card, (6, 6, 2, 5, 1), 1, "boatzee", valuation)
    keep = next(c for c in choices if c.keep == (6, 6))
    chances = transitions()[KEEP_INDEX[(6, 6)]]
    after = [hint(card, hand, 0, "boatzee", valuation)[0].expected_final for hand in HANDS]
    assert keep.expected_final == pytest.approx(float(chances @ np.array(after)), abs=1e-9)


def test_the_last_box_is_worth_the_card_plus_its_points(solved: Path) -> None:
    card = scored_card(_all_but("chance", 0, fives=25, sixes=30, fours=12), "boatzee")
    assert total(card) == 67 + 35
    (only,) = hint(card, (6, 5, 4, 4, 1), 0, "boatzee", _valuation("boatzee"))
    assert only == Choice(67 + 35 + 20, box="chance", points=20)
    assert only.as_json() == {"box": "chance", "expected_final": 122}


def test_the_joker_rule_narrows_the_boxes(solved: Path) -> None:
    # Yahtzee rules, 50 in the Boatzee box: five 4s must go in Fours, and earn 100.
    card = scored_card({"boatzee": 50}, "yahtzee")
    choices = hint(card, (4, 4, 4, 4, 4), 0, "yahtzee", _valuation("yahtzee"))
    assert [c.box for c in choices] == ["fours"]
    assert choices[0].points == 20
    future = _valuation("yahtzee")
    after = scored_card({"boatzee": 50, "fours": 20}, "yahtzee", bonuses=1)
    assert choices[0].expected_final == pytest.approx(future.value(after))
    # Fours filled: any lower box, with Small Straight worth its full 30.
    card = scored_card({"boatzee": 50, "fours": 8}, "yahtzee")
    boxes = {c.box: c.points for c in hint(card, (4,) * 5, 0, "yahtzee", _valuation("yahtzee"))}
    assert set(boxes) == {"three_kind", "four_kind", "full_house", "small_straight"} | {
        "large_straight",
        "chance",
    }
    assert boxes["small_straight"] == 30 and boxes["full_house"] == 25


def test_scored_cards_are_checked() -> None:
    assert achievable("boatzee") == frozenset({0, 50})
    assert achievable("threes") == frozenset({0, 3, 6, 9, 12, 15})
    assert 5 in achievable("three_kind") and 4 not in achievable("three_kind")
    card = scored_card({"threes": 9, "boatzee": 50}, "yahtzee", bonuses=1)
    assert card.extra_bonuses == 1 and total(card) == 159
    with pytest.raises(InvalidInput, match="Threes cannot hold 10"):
        scored_card({"threes": 10}, "boatzee")
    with pytest.raises(InvalidInput, match="Full House cannot hold 20"):
        scored_card({"full_house": 20}, "boatzee")
    with pytest.raises(InvalidInput, match="game is over"):
        scored_card(dict.fromkeys(BOXES, 0), "boatzee")
    with pytest.raises(InvalidInput, match="only in the yahtzee ruleset"):
        scored_card({"boatzee": 50, "ones": 1}, "boatzee", bonuses=1)
    with pytest.raises(InvalidInput, match="needs 50"):
        scored_card({"boatzee": 0, "ones": 1}, "yahtzee", bonuses=1)
    with pytest.raises(InvalidInput, match="2 bonuses need 2 filled boxes"):
        scored_card({"boatzee": 50, "ones": 1}, "yahtzee", bonuses=2)


def test_hints_refuse_what_they_cannot_answer(solved: Path) -> None:
    valuation = _valuation("boatzee")
    with pytest.raises(InvalidInput, match="rolls left must be 0, 1 or 2"):
        hint(EMPTY, (1, 2, 3, 4, 5), 3, "boatzee", valuation)
    with pytest.raises(InvalidInput, match="one-column"):
        hint(Card((EMPTY.boxes[0],) * 2), (1, 2, 3, 4, 5), 1, "boatzee", valuation)
