"""The exact odds engine: the seed's strategy figures, and brute-force cross-checks."""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations, combinations_with_replacement, product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dicehall.engine.errors import InvalidInput
from dicehall.games.boss.hands import first_roll_rank, legal_keeps, showdown_rank
from dicehall.games.boss.odds import (
    CLASSES,
    HandOdds,
    best_keep,
    call_odds,
    final_counts,
    final_distribution,
    format_odds,
    keep_odds,
    keep_odds_vs_kept,
    keep_table,
    rank_keeps,
)

Dice = tuple[int, ...]

# -- the seed's figures (RULES.md §3) -----------------------------------------------------------


def test_seed_6644_against_keeping_33_is_1_25_to_1() -> None:
    odds = keep_odds((3, 3), (6, 6, 4, 4, 1))
    assert odds == HandOdds(Fraction(4, 9), Fraction(0), Fraction(5, 9))
    assert odds.odds_against == Fraction(5, 4)
    assert format_odds(odds.odds_against) == "1.25 to 1"


def test_seed_6644_against_keeping_one_6_is_3_to_1() -> None:
    odds = keep_odds((6,), (6, 6, 4, 4, 1))
    assert odds.odds_against == 3
    assert format_odds(odds.odds_against) == "3 to 1"
    assert odds.push == Fraction(1, 27)  # a push is not a win


def test_seed_2_4_times_as_great() -> None:
    pair = keep_odds((3, 3), (6, 6, 4, 4, 1)).odds_against
    six = keep_odds((6,), (6, 6, 4, 4, 1)).odds_against
    assert pair is not None and six is not None
    assert six / pair == Fraction(12, 5)  # 3 / 1.25 = 2.4 exactly


def test_seed_666_against_keeping_33_is_5_to_1() -> None:
    odds = keep_odds((3, 3), (6, 6, 6, 4, 1))
    assert odds.odds_against == 5
    assert format_odds(odds.odds_against) == "5 to 1"


def test_seed_666_against_keeping_one_6_is_about_16_to_1() -> None:
    odds = keep_odds((6,), (6, 6, 6, 4, 1))
    assert odds.win == Fraction(19, 324)
    assert odds.odds_against == Fraction(305, 19)  # 16.05
    assert round(float(odds.odds_against)) == 16
    assert format_odds(odds.odds_against) == "16.05 to 1"


def test_seed_444_unimproved_against_55_is_1_25_to_1_for_the_boss() -> None:
    # "three 4's and failed to improve": the other two dice are any two different faces other
    # than 4; unmatched dice never count, so every such hand gives the same figure.
    hands = [(4, 4, 4, a, b) for a, b in combinations([1, 2, 3, 5, 6], 2)]
    assert len(hands) == 10
    for hand in hands:
        boss = keep_odds((5, 5), hand).flipped()
        assert boss == HandOdds(Fraction(5, 9), Fraction(0), Fraction(4, 9))
        assert boss.win / boss.lose == Fraction(5, 4)
    # and against an opponent who answers with his best keep, whatever else he rolled
    rolls = combinations_with_replacement(range(1, 7), 5)
    pair_of_5s = [r for r in rolls if first_roll_rank(r) == (1, 5)]
    assert len(pair_of_5s) > 10
    for roll in pair_of_5s:
        decision = call_odds((4, 4, 4, 1, 2), (4, 4, 4), roll)
        assert decision.reply.keep == (5, 5)
        assert decision.come_up.win / decision.come_up.lose == Fraction(5, 4)
        assert decision.should_come_up  # "the odds say yes"


# -- the engine --------------------------------------------------------------------------------


def brute_counts(keep: Dice) -> dict[tuple[int, ...], int]:
    counts: dict[tuple[int, ...], int] = {}
    for roll in product(range(1, 7), repeat=5 - len(keep)):
        rank = showdown_rank(keep + roll)
        counts[rank] = counts.get(rank, 0) + 1
    return counts


def test_seventy_classes_and_counts_sum_to_all_rolls() -> None:
    assert len(CLASSES) == 70 and list(CLASSES) == sorted(CLASSES)
    for size in range(6):
        keep = tuple(range(1, size + 1))
        assert int(final_counts(keep).sum()) == 6 ** (5 - size)
        assert abs(float(final_distribution(keep).sum()) - 1.0) < 1e-12


def test_keep_table_rows_are_the_final_distributions() -> None:
    keeps, table = keep_table()
    assert len(keeps) == 462 and table.shape == (462, 70)
    assert abs(table.sum(axis=1) - 1.0).max() < 1e-12
    for row in (0, 7, 100, 461):
        assert abs(table[row] - final_distribution(keeps[row])).max() < 1e-15


@pytest.mark.parametrize("keep", [(), (6,), (3, 3), (1, 2, 3), (2, 2, 2, 5), (1, 1, 1, 4, 4)])
def test_final_counts_match_brute_force(keep: Dice) -> None:
    counts = final_counts(keep)
    expected = brute_counts(keep)
    assert {CLASSES[i]: int(n) for i, n in enumerate(counts) if n} == expected


dice = st.integers(1, 6)


@settings(max_examples=40, deadline=None)
@given(
    hand=st.tuples(dice, dice, dice, dice, dice),
    keep=st.lists(dice, max_size=4).map(tuple),
)
def test_keep_odds_match_brute_force(hand: Dice, keep: Dice) -> None:
    if len({f for f in keep if keep.count(f) == 2}) >= 2:
        with pytest.raises(InvalidInput, match="two pairs"):
            keep_odds(keep, hand)
        return
    boss = showdown_rank(hand)
    win = push = 0
    for roll in product(range(1, 7), repeat=5 - len(keep)):
        mine = showdown_rank(keep + roll)
        win += mine > boss
        push += mine == boss
    total = 6 ** (5 - len(keep))
    odds = keep_odds(keep, hand)
    assert (odds.win, odds.push) == (Fraction(win, total), Fraction(push, total))
    assert odds.win + odds.push + odds.lose == 1


@pytest.mark.parametrize(
    ("keep", "kept"), [((3, 3), (6, 6, 6, 6)), ((6, 6, 1), (5, 5, 5)), ((2, 2, 2), (4, 4, 4, 4))]
)
def test_odds_against_kept_dice_match_brute_force(keep: Dice, kept: Dice) -> None:
    win = push = total = 0
    for mine in product(range(1, 7), repeat=5 - len(keep)):
        for his in product(range(1, 7), repeat=5 - len(kept)):
            a, b = showdown_rank(keep + mine), showdown_rank(kept + his)
            win += a > b
            push += a == b
            total += 1
    odds = keep_odds_vs_kept(keep, kept)
    assert (odds.win, odds.push) == (Fraction(win, total), Fraction(push, total))


def test_rank_keeps_covers_every_legal_keep_best_first() -> None:
    ranked = rank_keeps((3, 3, 6, 2, 1), boss_kept=(6, 6))
    assert sorted(r.keep for r in ranked) == sorted(legal_keeps((3, 3, 6, 2, 1)))
    equities = [r.odds.equity for r in ranked]
    assert equities == sorted(equities, reverse=True)
    assert ranked[0].keep == (3, 3)
    for r in ranked:
        assert r.odds == keep_odds_vs_kept(r.keep, (6, 6))
    by_win = rank_keeps((3, 3, 6, 2, 1), boss_kept=(6, 6), by="win")
    wins = [r.odds.win for r in by_win]
    assert wins == sorted(wins, reverse=True)


def test_rank_keeps_against_a_stated_hand() -> None:
    ranked = rank_keeps((3, 3, 6, 2, 1), boss_hand=(6, 6, 6, 4, 1), by="win")
    assert ranked[0].keep == (3, 3) and ranked[0].odds.odds_against == 5
    six = next(r for r in ranked if r.keep == (6,))
    assert six.odds == keep_odds((6,), (6, 6, 6, 4, 1))


def test_equity_and_win_rankings_can_differ() -> None:
    # Boss kept five 1s: keeping four 1s can only push (worth 1/12), a lone 2 wins 1/1296
    by_equity = rank_keeps((1, 1, 1, 1, 2), boss_kept=(1, 1, 1, 1, 1))
    by_win = rank_keeps((1, 1, 1, 1, 2), boss_kept=(1, 1, 1, 1, 1), by="win")
    assert by_equity[0].keep == (1, 1, 1, 1) and by_equity[0].odds.equity == Fraction(1, 12)
    assert by_win[0].keep == (2,) and by_win[0].odds.win == Fraction(1, 1296)


def test_call_odds_boss_side_and_pick_up_is_half() -> None:
    decision = call_odds((6, 6, 4, 4, 1), (6, 6), (3, 3, 6, 2, 1))
    assert decision.reply == best_keep((3, 3, 6, 2, 1), (6, 6))
    assert decision.reply.keep == (3, 3)
    assert decision.come_up == keep_odds((3, 3), (6, 6, 4, 4, 1)).flipped()
    assert decision.pick_up == Fraction(1, 2)
    assert decision.should_come_up
    weak = call_odds((6, 6, 5, 2, 1), (6, 6), (5, 5, 1, 2, 3))
    assert weak.come_up.equity < Fraction(1, 2) and not weak.should_come_up


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: keep_odds((3, 3), (6, 6, 4, 4)), "expected 5 dice, got 4"),
        (lambda: keep_odds((3, 3), (6, 6, 4, 4, 7)), "7 is not a die face"),
        (lambda: keep_odds((3, 3, 4, 4), (6, 6, 4, 4, 1)), "two pairs"),
        (lambda: keep_odds((1, 2, 3, 4, 5, 6), (6, 6, 4, 4, 1)), "0 to 5 dice"),
        (lambda: keep_odds_vs_kept((3, 3), (6, 5)), "dice that made him Boss"),
        (lambda: keep_odds_vs_kept((3, 3), (6, 6, 4, 4)), "dice that made him Boss"),
        (lambda: rank_keeps((6, 6, 1, 2, 3), boss_kept=(5, 5)), "not below the Boss's"),
        (lambda: rank_keeps((5, 5, 1, 2, 3), boss_kept=(5, 5)), "not below the Boss's"),
        (lambda: rank_keeps((3, 3, 1, 2, 4)), "kept dice or his whole hand"),
        (lambda: rank_keeps((3, 3, 1, 2), boss_kept=(5, 5)), "expected 5 dice"),
        (
            lambda: call_odds((5, 5, 4, 4, 1), (6, 6), (3, 3, 1, 2, 4)),
            "does not hold his kept dice",
        ),
    ],
)
def test_bad_input_is_a_clear_error(call: object, message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        call()  # type: ignore[operator]


def test_format_odds() -> None:
    assert format_odds(None) == "no chance"
    assert format_odds(Fraction(5, 4)) == "1.25 to 1"
    assert format_odds(Fraction(2, 3)) == "0.67 to 1"
    assert HandOdds(Fraction(0), Fraction(1, 2), Fraction(1, 2)).odds_against is None
