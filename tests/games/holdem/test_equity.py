"""Odds: exact distributions and equity against brute force, Monte Carlo within its error."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction

import pytest

from dicehall.engine.errors import InvalidInput
from dicehall.games.holdem.dice import COLOURS, KINDS, parse_dice
from dicehall.games.holdem.equity import category_distribution, equity, odds
from dicehall.games.holdem.ranking import CATEGORIES, HandRank, best_hand


def draws(known: Sequence[str], count: int) -> list[tuple[Fraction, tuple[str, ...]]]:
    """Every ordered draw of ``count`` dice from the bag left after ``known``, with odds."""
    left = Counter({c: 5 for c in COLOURS})
    left.subtract(d[1] for d in known)
    total = sum(left.values())
    out = []
    for dice in itertools.product(KINDS, repeat=count):
        p = Fraction(1, 6**count)
        bag = left.copy()
        size = total
        for d in dice:
            p *= Fraction(bag[d[1]], size)
            bag[d[1]] -= 1
            size -= 1
        if p:
            out.append((p, dice))
    return out


def brute_equity(
    pocket: Sequence[str], board: Sequence[str], opponents: int
) -> tuple[Fraction, Fraction, Fraction]:
    """(win, tie, share) by enumerating every ordered draw with the reference ranking."""
    missing = 5 - len(board)
    ranks: dict[tuple[str, ...], HandRank] = {}

    def rank_of(dice: tuple[str, ...]) -> HandRank:
        key = tuple(sorted(dice))
        if key not in ranks:
            ranks[key] = best_hand(key).rank
        return ranks[key]

    win = tie = share = Fraction(0)
    for p, dice in draws([*pocket, *board], missing + 2 * opponents):
        full = (*board, *dice[:missing])
        me = rank_of((*pocket, *full))
        others = [
            rank_of((*full, *dice[missing + 2 * i : missing + 2 * i + 2])) for i in range(opponents)
        ]
        best = max(others)
        if me > best:
            win += p
            share += p
        elif me == best:
            tie += p
            share += p / (1 + others.count(best))
    return win, tie, share


@pytest.mark.parametrize(
    ("pocket", "board", "opponents"),
    [
        ("6r,6k", "6w,2y,3r,1k,5w", 1),
        ("4w,5y", "1k,2k,3y,6r", 1),
    ],
)
def test_exact_equity_matches_brute_force(pocket: str, board: str, opponents: int) -> None:
    mine, shared = parse_dice(pocket), parse_dice(board)
    win, tie, share = brute_equity(mine, shared, opponents)
    got = equity(mine, shared, opponents)
    assert got.exact and got.stderr is None
    assert got.win == pytest.approx(float(win), abs=1e-12)
    assert got.tie == pytest.approx(float(tie), abs=1e-12)
    assert got.share == pytest.approx(float(share), abs=1e-12)


def test_flop_equity_exact_and_monte_carlo_agree() -> None:
    pocket, board = parse_dice("6r,6k"), parse_dice("6w,2y,3r")
    exact = equity(pocket, board, 1)
    estimate = equity(pocket, board, 1, samples=100_000, seed=3, exact_limit=0)
    assert exact.exact and not estimate.exact and estimate.samples == 100_000
    assert estimate.stderr is not None
    for name in ("win", "tie", "share"):
        error = estimate.stderr[name]
        assert 0 < error < 0.01
        assert abs(getattr(estimate, name) - getattr(exact, name)) < 4 * error
    assert equity(pocket, board, 1, samples=5000, seed=9, exact_limit=0) == equity(
        pocket, board, 1, samples=5000, seed=9, exact_limit=0
    )


def test_exact_equity_against_two_and_three_matches_monte_carlo() -> None:
    for pocket, board, opponents in (("5w,5y", "5k,1r,2r,3k", 2), ("4w,5y", "1k,2k,3y,6r,6w", 3)):
        mine, shared = parse_dice(pocket), parse_dice(board)
        exact = equity(mine, shared, opponents)
        estimate = equity(mine, shared, opponents, samples=60_000, seed=1, exact_limit=0)
        assert exact.exact and estimate.stderr is not None
        for name in ("win", "tie", "share"):
            error = max(estimate.stderr[name], 1e-4)
            assert abs(getattr(estimate, name) - getattr(exact, name)) < 4 * error, name


def test_the_nut_flush_cannot_lose() -> None:
    # Every red die is in my hand: nobody else can make a flush or better.
    result = equity(parse_dice("6r,1r"), parse_dice("2r,3r,4r,6k"), 3)
    assert (result.win, result.tie, result.share) == (1.0, 0.0, 1.0)


def test_seven_random_dice_distribution_is_exact() -> None:
    dist = category_distribution()
    assert list(dist) == list(CATEGORIES)
    assert sum(dist.values()) == pytest.approx(1.0, abs=1e-12)
    assert dist["nothing"] == 0.0 and dist["one_pair"] == 0.0
    # Five of one colour among seven drawn, all showing one face.
    five_of_a_colour = 4 * math.comb(5, 5) * math.comb(15, 2) / math.comb(20, 7)
    assert dist["yahtzee_flush"] == pytest.approx(five_of_a_colour * 6 / 6**5, rel=1e-12)


def test_distribution_with_known_dice() -> None:
    full = category_distribution(parse_dice("6r,6k"), parse_dice("6w,6y,2r,2k,1w"))
    assert full["four_kind"] == 1.0
    river = category_distribution(parse_dice("6r,6k"), parse_dice("6w,2y,3r,1k"))
    # The river die: a 6 (four of a kind), a 2, 3 or 1 (full house), 4 or 5 (straight, 6
    # high needs 4 and 5 both, so three of a kind)...
    assert river["four_kind"] == pytest.approx(1 / 6)
    assert river["full_house"] == pytest.approx(3 / 6)
    assert river["three_kind"] == pytest.approx(2 / 6)
    assert sum(category_distribution(parse_dice("1r,1k")).values()) == pytest.approx(1.0)


def test_odds_json_shape() -> None:
    data = odds(parse_dice("6r,6k"), parse_dice("6w,2y,3r")).as_json()
    assert list(data) == ["categories", "win", "tie", "share", "exact"]
    categories = data["categories"]
    assert isinstance(categories, dict)
    assert list(categories) == list(reversed(CATEGORIES))
    assert data["exact"] is True
    plain = odds().as_json()
    assert list(plain) == ["categories", "exact"]
    estimated = odds(parse_dice("6r,6k"), (), 3, samples=2000).as_json()
    assert estimated["exact"] is False and estimated["samples"] == 2000
    stderr = estimated["stderr"]
    assert isinstance(stderr, dict) and set(stderr) == {"win", "tie", "share"}


@pytest.mark.parametrize(
    ("pocket", "board", "opponents", "message"),
    [
        ("6r", "", 1, "pocket: expected 2 dice, got 1"),
        ("6r,6k", "1r,2r,3r,4r,5k,6k", 1, "board: expected at most 5 dice, got 6"),
        ("6r,6k", "", 0, "opponents: expected 1 to 5, got 0"),
        ("6r,6k", "", 6, "opponents: expected 1 to 5, got 6"),
        ("6r,6r", "1r,2r,3r,4r", 1, "6 red dice"),
    ],
)
def test_bad_odds_input(pocket: str, board: str, opponents: int, message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        odds(parse_dice(pocket), parse_dice(board), opponents)


def test_samples_must_be_positive() -> None:
    with pytest.raises(InvalidInput, match="samples"):
        equity(parse_dice("6r,6k"), (), 3, samples=0)
