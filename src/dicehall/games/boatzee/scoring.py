"""What five dice score in each box: pure, table-driven, shared by the rules and strategy."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from itertools import combinations_with_replacement
from typing import Literal, get_args

Box = Literal[
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
]

#: Every box in scorecard order; a box's index here is its index in a scorecard column.
BOXES: tuple[Box, ...] = get_args(Box)
BOX_INDEX: dict[str, int] = {box: i for i, box in enumerate(BOXES)}

#: Index of the Ones box; Ones..Sixes are indices 0..5, so face f's upper box is f - 1.
UPPER = range(6)
THREE_KIND, FOUR_KIND, FULL_HOUSE, SMALL_STRAIGHT, LARGE_STRAIGHT, BOATZEE, CHANCE = range(6, 13)

#: Names people read, in scorecard order.
TITLES: dict[Box, str] = {
    "ones": "Ones",
    "twos": "Twos",
    "threes": "Threes",
    "fours": "Fours",
    "fives": "Fives",
    "sixes": "Sixes",
    "three_kind": "3 of a kind",
    "four_kind": "4 of a kind",
    "full_house": "Full House",
    "small_straight": "Small Straight",
    "large_straight": "Large Straight",
    "boatzee": "Boatzee",
    "chance": "Chance",
}

FULL_HOUSE_POINTS = 25
SMALL_STRAIGHT_POINTS = 30
LARGE_STRAIGHT_POINTS = 40
BOATZEE_POINTS = 50

#: Every multiset of five dice, as sorted tuples (252 of them), in a fixed order.
HANDS: tuple[tuple[int, ...], ...] = tuple(combinations_with_replacement(range(1, 7), 5))
HAND_INDEX: dict[tuple[int, ...], int] = {hand: i for i, hand in enumerate(HANDS)}

_SMALL_RUNS = ({1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6})
_LARGE_RUNS = ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6})


def _scores(hand: tuple[int, ...]) -> tuple[int, ...]:
    counts = [hand.count(face) for face in range(1, 7)]
    most = max(counts)
    total = sum(hand)
    faces = set(hand)
    return (
        *(face * counts[face - 1] for face in range(1, 7)),
        total if most >= 3 else 0,
        total if most >= 4 else 0,
        FULL_HOUSE_POINTS if sorted(counts)[-2:] == [2, 3] else 0,
        SMALL_STRAIGHT_POINTS if any(run <= faces for run in _SMALL_RUNS) else 0,
        LARGE_STRAIGHT_POINTS if faces in _LARGE_RUNS else 0,
        BOATZEE_POINTS if most == 5 else 0,
        total,
    )


#: ``SCORES[HAND_INDEX[hand]][box index]``: the points of every box for every hand.
SCORES: tuple[tuple[int, ...], ...] = tuple(_scores(hand) for hand in HANDS)


def hand_of(dice: Sequence[int]) -> tuple[int, ...]:
    """The dice as a sorted tuple (their multiset); raises ValueError unless five faces 1..6."""
    hand = tuple(sorted(dice))
    if hand not in HAND_INDEX:
        raise ValueError(f"five dice with faces 1 to 6 are needed, not {tuple(dice)!r}")
    return hand


def box_score(box: Box | int, dice: Sequence[int]) -> int:
    """The points ``dice`` score in ``box`` (a name or an index), unmultiplied, no joker."""
    index = box if isinstance(box, int) else BOX_INDEX[box]
    return SCORES[HAND_INDEX[hand_of(dice)]][index]


def all_scores(dice: Sequence[int]) -> dict[Box, int]:
    """The points ``dice`` score in every box, unmultiplied, no joker."""
    row = SCORES[HAND_INDEX[hand_of(dice)]]
    return dict(zip(BOXES, row, strict=True))


def is_five_of_a_kind(dice: Sequence[int]) -> bool:
    """True when all five dice show one face."""
    return len(dice) == 5 and len(set(dice)) == 1


@cache
def _joker_row(face: int) -> tuple[int, ...]:
    row = list(SCORES[HAND_INDEX[(face,) * 5]])
    row[FULL_HOUSE] = FULL_HOUSE_POINTS
    row[SMALL_STRAIGHT] = SMALL_STRAIGHT_POINTS
    row[LARGE_STRAIGHT] = LARGE_STRAIGHT_POINTS
    return tuple(row)


def joker_score(box: Box | int, dice: Sequence[int]) -> int:
    """Points of a five of a kind played as a joker (yahtzee ruleset).

    Full House, Small and Large Straight score their full values; every other box scores as
    usual. ``dice`` must be a five of a kind.
    """
    if not is_five_of_a_kind(dice):
        raise ValueError(f"only a five of a kind can be a joker, not {tuple(dice)!r}")
    index = box if isinstance(box, int) else BOX_INDEX[box]
    return _joker_row(dice[0])[index]
