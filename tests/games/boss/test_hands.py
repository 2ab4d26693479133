"""RULES.md §3 hand rulings: first-roll ranking, showdown ranking, the Boss's keep, legal keeps."""

from __future__ import annotations

from collections import Counter
from itertools import combinations_with_replacement, pairwise, product

import pytest

from dicehall.games.boss.hands import (
    beats_first,
    boss_keep,
    describe,
    first_roll_rank,
    is_boss_keep,
    legal_keeps,
    showdown_rank,
    two_pairs_in,
)

ALL_ROLLS = list(combinations_with_replacement(range(1, 7), 5))


def first_beats(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    return beats_first(first_roll_rank(a), first_roll_rank(b))


def test_first_roll_categories_in_order() -> None:
    ladder = [
        (1, 1, 2, 3, 4),  # one pair
        (1, 1, 1, 2, 3),  # three of a kind
        (1, 1, 1, 2, 2),  # full house
        (1, 1, 1, 1, 2),  # four of a kind
        (1, 1, 1, 1, 1),  # five of a kind
    ]
    for low, high in pairwise(ladder):
        assert first_beats(high, low) and not first_beats(low, high)
    # the best of each category still loses to the worst of the next one
    assert first_beats((1, 1, 1, 2, 3), (6, 6, 5, 5, 4))
    assert first_beats((1, 1, 1, 2, 2), (6, 6, 6, 5, 4))
    assert first_beats((1, 1, 1, 1, 2), (6, 6, 6, 5, 5))
    assert first_beats((1, 1, 1, 1, 1), (6, 6, 6, 6, 5))


def test_no_pair_has_no_first_roll_rank_and_cannot_be_boss() -> None:
    assert first_roll_rank((1, 2, 3, 4, 5)) is None
    assert first_roll_rank((2, 3, 4, 5, 6)) is None  # straights do not count
    assert not first_beats((1, 2, 3, 4, 6), (1, 2, 3, 4, 5))
    assert first_beats((1, 1, 2, 3, 4), (2, 3, 4, 5, 6))


def test_two_pair_counts_only_as_its_higher_pair_on_the_first_roll() -> None:
    assert first_roll_rank((4, 4, 3, 3, 1)) == first_roll_rank((4, 4, 6, 5, 1))
    assert first_beats((5, 5, 1, 2, 6), (4, 4, 3, 3, 1))  # a pair of 5s beats 4s and 3s
    # both two pair with the same higher pair: a tie
    assert first_roll_rank((5, 5, 2, 2, 1)) == first_roll_rank((5, 5, 4, 4, 6))


def test_first_roll_within_a_category_largest_group_then_full_house_pair() -> None:
    assert first_beats((6, 6, 1, 2, 3), (5, 5, 1, 2, 3))
    assert first_beats((4, 4, 4, 1, 1), (3, 3, 3, 6, 6))
    assert first_beats((3, 3, 3, 6, 6), (3, 3, 3, 5, 5))
    assert first_beats((2, 2, 2, 2, 1), (1, 1, 1, 1, 6))


def test_unmatched_dice_never_count_on_the_first_roll() -> None:
    assert first_roll_rank((6, 6, 5, 4, 3)) == first_roll_rank((6, 6, 1, 2, 3))
    assert first_roll_rank((3, 3, 3, 6, 5)) == first_roll_rank((3, 3, 3, 1, 2))
    assert first_roll_rank((2, 2, 2, 2, 6)) == first_roll_rank((2, 2, 2, 2, 1))


def test_showdown_categories_in_order_and_two_pair_counts() -> None:
    ladder = [
        (1, 2, 3, 4, 6),  # nothing
        (1, 1, 2, 3, 4),  # one pair
        (1, 1, 2, 2, 3),  # two pair
        (1, 1, 1, 2, 3),  # three
        (1, 1, 1, 2, 2),  # full house
        (1, 1, 1, 1, 2),  # four
        (1, 1, 1, 1, 1),  # five
    ]
    for low, high in pairwise(ladder):
        assert showdown_rank(high) > showdown_rank(low)
    assert showdown_rank((2, 2, 1, 1, 3)) > showdown_rank((6, 6, 5, 4, 3))
    assert showdown_rank((1, 1, 1, 2, 3)) > showdown_rank((6, 6, 5, 5, 4))


def test_showdown_within_categories() -> None:
    assert showdown_rank((6, 6, 2, 2, 1)) > showdown_rank((5, 5, 4, 4, 6))  # higher pair first
    assert showdown_rank((6, 6, 3, 3, 1)) > showdown_rank((6, 6, 2, 2, 5))  # then lower pair
    assert showdown_rank((2, 2, 2, 6, 6)) > showdown_rank((1, 1, 1, 6, 6))  # the three first
    assert showdown_rank((2, 2, 2, 6, 6)) > showdown_rank((2, 2, 2, 5, 5))  # then the pair
    assert showdown_rank((3, 3, 3, 3, 1)) > showdown_rank((2, 2, 2, 2, 6))


def test_unmatched_dice_never_count_at_the_showdown() -> None:
    assert showdown_rank((6, 6, 4, 4, 1)) == showdown_rank((6, 6, 4, 4, 5))
    assert showdown_rank((1, 2, 3, 4, 5)) == showdown_rank((2, 3, 4, 5, 6))  # no straights
    assert showdown_rank((1, 2, 3, 4, 6)) == showdown_rank((1, 2, 3, 4, 5))
    assert showdown_rank((5, 5, 6, 4, 3)) == showdown_rank((5, 5, 1, 2, 3))
    assert showdown_rank((4, 4, 4, 6, 5)) == showdown_rank((4, 4, 4, 1, 2))
    assert showdown_rank((4, 4, 4, 4, 6)) == showdown_rank((4, 4, 4, 4, 1))


def test_the_showdown_rank_is_a_total_order_matching_the_category_list() -> None:
    ranks = {showdown_rank(r) for r in ALL_ROLLS}
    assert len(ranks) == 70  # 1 nothing + 6 pairs + 15 two pairs + 6 + 30 + 6 + 6


@pytest.mark.parametrize(
    ("roll", "kept"),
    [
        ((6, 6, 1, 2, 3), (6, 6)),  # the pair
        ((6, 6, 4, 4, 1), (6, 6)),  # only the higher pair of two pair
        ((4, 3, 4, 3, 5), (4, 4)),
        ((4, 4, 4, 1, 2), (4, 4, 4)),  # the three
        ((3, 3, 3, 5, 5), (3, 3, 3, 5, 5)),  # the full house
        ((2, 2, 2, 2, 6), (2, 2, 2, 2)),  # the four
        ((5, 5, 5, 5, 5), (5, 5, 5, 5, 5)),  # the five
        ((1, 2, 3, 4, 5), ()),
    ],
)
def test_the_boss_keeps_exactly_the_dice_that_made_him_boss(
    roll: tuple[int, ...], kept: tuple[int, ...]
) -> None:
    assert boss_keep(roll) == kept


def test_is_boss_keep() -> None:
    for kept in [(6, 6), (2, 2, 2), (3, 3, 3, 5, 5), (1, 1, 1, 1), (4, 4, 4, 4, 4)]:
        assert is_boss_keep(kept)
    for not_kept in [(), (6,), (6, 5), (6, 6, 1), (6, 6, 4, 4), (6, 6, 6, 1)]:
        assert not is_boss_keep(not_kept)


def test_two_pair_keeps_are_banned_full_houses_are_not() -> None:
    keeps = set(legal_keeps((3, 3, 5, 5, 1)))
    assert (3, 3, 5, 5) not in keeps
    assert (1, 3, 3, 5, 5) not in keeps
    assert {(3, 3), (5, 5), (1, 3, 3), (3, 3, 5), (1, 3, 3, 5), ()} <= keeps
    assert (3, 3, 3, 5, 5) in legal_keeps((3, 3, 3, 5, 5))
    assert two_pairs_in((3, 3, 5, 5)) == (5, 3)
    assert two_pairs_in((3, 3, 3, 5, 5)) is None


def test_legal_keeps_are_every_distinct_sub_multiset_but_two_pairs() -> None:
    for roll in ALL_ROLLS:
        have = Counter(roll)
        faces = sorted(have)
        expected = set()
        for counts in product(*(range(have[f] + 1) for f in faces)):
            keep = tuple(f for f, n in zip(faces, counts, strict=True) for _ in range(n))
            if sum(1 for n in counts if n == 2) < 2:
                expected.add(keep)
        assert set(legal_keeps(roll)) == expected, roll
        assert len(legal_keeps(roll)) == len(expected)
    assert len(legal_keeps((1, 2, 3, 4, 5))) == 32


def test_describe() -> None:
    assert describe(showdown_rank((6, 6, 4, 4, 1))) == "two pair, 6s and 4s"
    assert describe(showdown_rank((3, 3, 3, 5, 5))) == "a full house, 3s over 5s"
    assert describe(showdown_rank((1, 2, 3, 4, 6))) == "nothing"
    assert describe(first_roll_rank((1, 2, 3, 4, 6))) == "no pair"
    assert describe(first_roll_rank((6, 6, 4, 4, 1))) == "a pair of 6s"
