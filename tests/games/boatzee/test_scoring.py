"""Every box, checked against RULES.md section 2 and an independent reference scorer."""

from __future__ import annotations

from collections import Counter
from itertools import product

import pytest

from dicehall.games.boatzee.scoring import (
    BOXES,
    HANDS,
    all_scores,
    box_score,
    hand_of,
    is_five_of_a_kind,
    joker_score,
)


def test_box_names_are_the_contract_names_in_order() -> None:
    assert BOXES == (
        "ones",
        "twos",
        "threes",
        "fours",
        "fives",
        "sixes",
        "three_kind",
        "four_kind",
        "full_house",
        "small_straight",
        "large_straight",
        "boatzee",
        "chance",
    )
    assert len(HANDS) == 252


@pytest.mark.parametrize(
    ("box", "dice", "points"),
    [
        ("ones", (1, 1, 2, 3, 1), 3),
        ("ones", (2, 3, 4, 5, 6), 0),
        ("twos", (2, 2, 2, 2, 5), 8),
        ("threes", (3, 1, 3, 6, 6), 6),
        ("fours", (4, 4, 4, 4, 4), 20),
        ("fives", (5, 1, 1, 1, 1), 5),
        ("sixes", (6, 6, 6, 1, 2), 18),
        ("sixes", (1, 2, 3, 4, 5), 0),
        ("three_kind", (3, 3, 3, 5, 5), 19),
        ("three_kind", (6, 6, 6, 6, 2), 26),
        ("three_kind", (6, 6, 1, 1, 2), 0),
        ("four_kind", (2, 2, 2, 2, 6), 14),
        ("four_kind", (5, 5, 5, 5, 5), 25),
        ("four_kind", (5, 5, 5, 1, 1), 0),
        ("full_house", (3, 3, 3, 5, 5), 25),
        ("full_house", (6, 1, 6, 1, 6), 25),
        ("full_house", (3, 3, 3, 3, 5), 0),
        ("full_house", (2, 2, 3, 3, 4), 0),
        ("small_straight", (1, 2, 3, 4, 6), 30),
        ("small_straight", (3, 4, 5, 6, 6), 30),
        ("small_straight", (2, 3, 4, 4, 5), 30),
        ("small_straight", (1, 2, 3, 4, 5), 30),
        ("small_straight", (1, 2, 3, 5, 6), 0),
        ("large_straight", (5, 4, 3, 2, 1), 40),
        ("large_straight", (2, 3, 4, 5, 6), 40),
        ("large_straight", (1, 2, 3, 4, 6), 0),
        ("boatzee", (6, 6, 6, 6, 6), 50),
        ("boatzee", (6, 6, 6, 6, 5), 0),
        ("chance", (1, 2, 3, 4, 6), 16),
        ("chance", (6, 6, 6, 6, 6), 30),
    ],
)
def test_every_box(box: str, dice: tuple[int, ...], points: int) -> None:
    assert box_score(box, dice) == points  # type: ignore[arg-type]


def test_five_of_a_kind_is_never_a_full_house() -> None:
    for face in range(1, 7):
        dice = (face,) * 5
        assert box_score("full_house", dice) == 0
        assert box_score("boatzee", dice) == 50
        assert box_score("three_kind", dice) == 5 * face
        assert box_score("four_kind", dice) == 5 * face


def _reference(dice: tuple[int, ...]) -> dict[str, int]:
    counts = Counter(dice)
    shape = sorted(counts.values())
    faces = set(dice)
    return {
        "ones": counts[1],
        "twos": 2 * counts[2],
        "threes": 3 * counts[3],
        "fours": 4 * counts[4],
        "fives": 5 * counts[5],
        "sixes": 6 * counts[6],
        "three_kind": sum(dice) if shape[-1] >= 3 else 0,
        "four_kind": sum(dice) if shape[-1] >= 4 else 0,
        "full_house": 25 if shape == [2, 3] else 0,
        "small_straight": 30
        if any(all(f + i in faces for i in range(4)) for f in (1, 2, 3))
        else 0,
        "large_straight": 40 if len(faces) == 5 and max(faces) - min(faces) == 4 else 0,
        "boatzee": 50 if shape == [5] else 0,
        "chance": sum(dice),
    }


def test_table_matches_a_reference_scorer_for_every_roll() -> None:
    for dice in product(range(1, 7), repeat=5):
        assert all_scores(dice) == _reference(dice), dice


def test_joker_values() -> None:
    assert joker_score("full_house", (4,) * 5) == 25
    assert joker_score("small_straight", (4,) * 5) == 30
    assert joker_score("large_straight", (4,) * 5) == 40
    assert joker_score("three_kind", (4,) * 5) == 20
    assert joker_score("chance", (4,) * 5) == 20
    assert joker_score("fours", (4,) * 5) == 20
    assert joker_score("twos", (4,) * 5) == 0
    with pytest.raises(ValueError, match="only a five of a kind"):
        joker_score("full_house", (4, 4, 4, 4, 3))


def test_bad_dice_are_refused() -> None:
    for bad in [(1, 2, 3, 4), (1, 2, 3, 4, 7), (0, 1, 2, 3, 4), (1, 1, 1, 1, 1, 1)]:
        with pytest.raises(ValueError, match="five dice"):
            hand_of(bad)
    assert is_five_of_a_kind((2, 2, 2, 2, 2))
    assert not is_five_of_a_kind((2, 2, 2, 2))
    assert not is_five_of_a_kind((2, 2, 2, 2, 1))
