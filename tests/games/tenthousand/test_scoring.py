"""Ten Thousand scoring, ruling by ruling (RULES.md section 1), and against a brute force."""

from __future__ import annotations

from collections import Counter
from functools import cache
from itertools import combinations_with_replacement

import pytest

from dicehall.games.tenthousand.scoring import dead_dice, keep_value, set_asides


def test_worked_example_has_exactly_seven_set_asides_best_first() -> None:
    assert set_asides((1, 2, 2, 2, 4, 5)) == (
        ((1, 2, 2, 2, 5), 350),
        ((1, 2, 2, 2), 300),
        ((2, 2, 2, 5), 250),
        ((2, 2, 2), 200),
        ((1, 5), 150),
        ((1,), 100),
        ((5,), 50),
    )


@pytest.mark.parametrize(
    ("dice", "points"),
    [
        ((1,), 100),
        ((5,), 50),
        ((2, 2, 2), 200),
        ((3, 3, 3), 300),
        ((4, 4, 4), 400),
        ((5, 5, 5), 500),
        ((6, 6, 6), 600),
        ((1, 1, 1), 1000),
        ((2, 2, 2, 2), 400),
        ((1, 1, 1, 1), 2000),
        ((6, 6, 6, 6), 1200),
        ((2, 2, 2, 2, 2), 600),
        ((1, 1, 1, 1, 1), 3000),
        ((5, 5, 5, 5, 5), 1500),
        ((1, 1, 1, 1, 1, 1), 4000),
        ((2, 2, 2, 2, 2, 2), 800),
        ((6, 6, 6, 6, 6, 6), 2400),
        ((2, 2, 3, 3, 6, 6), 500),
        ((1, 2, 3, 4, 5, 6), 1500),
    ],
)
def test_each_combination_scores_its_value(dice: tuple[int, ...], points: int) -> None:
    assert keep_value(dice) == points


def test_value_is_the_best_split() -> None:
    assert keep_value((1, 1, 1, 5)) == 1050
    assert keep_value((2, 2, 2, 2)) == 400  # never 200 plus a dead 2
    assert keep_value((1, 1, 5, 5)) == 300
    assert keep_value((1, 1, 2, 2, 5, 5)) == 500  # three pairs beats 1,1,5,5 with dead 2s
    assert keep_value((1, 1, 1, 1, 5, 5)) == 2100  # four 1s and two 5s beat anything else
    assert keep_value((1, 1, 1, 5, 5, 5)) == 1500  # two triples
    assert keep_value((1, 1, 1, 1, 1, 5)) == 3050


def test_every_die_set_aside_must_score() -> None:
    for dead in [(2,), (2, 2), (1, 4), (2, 2, 2, 4), (3, 3, 5), (1, 2, 3, 4, 5)]:
        assert keep_value(dead) is None, dead
    assert keep_value(()) is None
    assert dead_dice((2, 2, 2, 4)) == (4,)
    assert dead_dice((1, 3, 3)) == (3, 3)
    assert dead_dice((2, 2, 3, 3, 6, 6)) == ()  # three pairs: every die scores


def test_three_pairs_means_three_different_faces() -> None:
    assert keep_value((2, 2, 2, 2, 3, 3)) is None
    assert keep_value((2, 2, 2, 2, 3, 3), four_and_pair=True) == 500
    # Four 1s and a pair of 2s: the option offers 500, but the best split is what counts
    # only when every die scores, and the 2s are dead without the option.
    assert keep_value((1, 1, 1, 1, 2, 2)) is None
    assert keep_value((1, 1, 1, 1, 2, 2), four_and_pair=True) == 500
    assert keep_value((1, 1, 1, 1, 5, 5), four_and_pair=True) == 2100
    assert keep_value((2, 2, 2, 2, 2, 2), four_and_pair=True) == 800
    assert ((2, 2, 2, 2, 3, 3), 500) in set_asides((2, 2, 2, 2, 3, 3), four_and_pair=True)
    assert all(len(k) < 6 for k, _ in set_asides((2, 2, 2, 2, 3, 3)))


def test_straight_and_three_pairs_need_all_six_dice() -> None:
    assert keep_value((2, 3, 4, 5, 6)) is None
    assert keep_value((2, 2, 3, 3)) is None
    assert set_asides((1, 2, 3, 4, 5, 6))[0] == ((1, 2, 3, 4, 5, 6), 1500)


def test_a_roll_without_scoring_dice_has_no_set_aside() -> None:
    for roll in [(2, 3, 4, 4, 6, 6), (2, 3), (6,), (2, 2, 3, 3, 4)]:
        assert set_asides(roll) == (), roll


def test_ties_list_fewer_dice_first() -> None:
    assert set_asides((1, 5, 5)) == (
        ((1, 5, 5), 200),
        ((1, 5), 150),
        ((1,), 100),
        ((5, 5), 100),
        ((5,), 50),
    )


# -- an independent brute force: split the dice into combinations every possible way ---------

_SINGLES = {1: 100, 5: 50}


def _combos(counts: Counter[int]) -> list[tuple[Counter[int], int]]:
    """Every single combination that can be taken from ``counts``, with its value."""
    found: list[tuple[Counter[int], int]] = []
    for face, count in counts.items():
        if face in _SINGLES and count >= 1:
            found.append((Counter({face: 1}), _SINGLES[face]))
        base = 1000 if face == 1 else 100 * face
        for size, factor in ((3, 1), (4, 2), (5, 3), (6, 4)):
            if count >= size:
                found.append((Counter({face: size}), base * factor))
    if sum(counts.values()) == 6:
        if sorted(counts.values()) == [2, 2, 2]:
            found.append((Counter(counts), 500))
        if sorted(counts.values()) == [1, 1, 1, 1, 1, 1]:
            found.append((Counter(counts), 1500))
    return found


@cache
def _brute(dice: tuple[int, ...]) -> int | None:
    if not dice:
        return 0
    counts = Counter(dice)
    best: int | None = None
    for combo, value in _combos(counts):
        rest = counts - combo
        sub = _brute(tuple(sorted(rest.elements())))
        if sub is not None and (best is None or value + sub > best):
            best = value + sub
    return best


def test_keep_value_matches_brute_force_on_every_multiset() -> None:
    checked = 0
    for n in range(1, 7):
        for dice in combinations_with_replacement(range(1, 7), n):
            assert keep_value(dice) == _brute(dice), dice
            checked += 1
    assert checked == 923


def test_set_asides_are_exactly_the_scoring_sub_multisets() -> None:
    keeps = [
        (keep, Counter(keep), value)
        for n in range(1, 7)
        for keep in combinations_with_replacement(range(1, 7), n)
        if (value := _brute(keep)) is not None
    ]
    for roll in combinations_with_replacement(range(1, 7), 6):
        have = Counter(roll)
        subs = [(keep, value) for keep, need, value in keeps if not need - have]
        subs.sort(key=lambda kv: (-kv[1], len(kv[0]), kv[0]))
        assert list(set_asides(roll)) == subs, roll
