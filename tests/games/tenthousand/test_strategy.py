"""The exact single-turn tables: zero-out odds, the Bellman equation, and a simulation."""

from __future__ import annotations

import random
from fractions import Fraction
from itertools import product

import pytest

from dicehall.games.tenthousand.scoring import set_asides
from dicehall.games.tenthousand.strategy import (
    TurnTables,
    roll_probabilities,
    turn_tables,
    zero_chance,
)


@pytest.mark.parametrize(
    ("n", "zero"),
    [
        (1, Fraction(4, 6)),
        (2, Fraction(16, 36)),
        (3, Fraction(60, 216)),
        (4, Fraction(204, 1296)),
        (5, Fraction(600, 7776)),
        (6, Fraction(1080, 46656)),
    ],
)
def test_zero_out_chance_matches_counting_every_ordered_roll(n: int, zero: Fraction) -> None:
    dead = sum(1 for roll in product(range(1, 7), repeat=n) if not set_asides(tuple(sorted(roll))))
    assert Fraction(dead, 6**n) == zero
    assert zero_chance(n) == pytest.approx(float(zero), abs=1e-12)


def test_roll_probabilities_sum_to_one() -> None:
    for n in range(1, 7):
        assert sum(p for _, p in roll_probabilities(n)) == pytest.approx(1.0, abs=1e-12)


def _bellman(tables: TurnTables, n: int, total: int, entered: bool) -> float:
    """``W(n, total)`` recomputed from the decision values by plain loops."""
    expected = 0.0
    for roll, p in roll_probabilities(n):
        options = set_asides(roll, tables.four_and_pair)
        if options:
            expected += p * max(
                tables.after_set_aside(n - len(keep) or 6, total + points, entered)
                for keep, points in options
            )
    return expected


@pytest.mark.parametrize("entered", [True, False])
def test_tables_satisfy_the_bellman_equation(entered: bool) -> None:
    tables = turn_tables(1000, False)
    for n in range(1, 7):
        for total in (0, 300, 950, 1000, 2500, 12_000):
            assert tables.expected_if_rolling(n, total, entered) == pytest.approx(
                _bellman(tables, n, total, entered), rel=1e-12
            )
            bank = total if entered or total >= 1000 else float("-inf")
            assert tables.after_set_aside(n, total, entered) == pytest.approx(
                max(bank, tables.expected_if_rolling(n, total, entered)), rel=1e-12
            )


def test_entry_threshold_and_option_shape_the_tables() -> None:
    tables = turn_tables(1000, False)
    assert not tables.should_bank(1, 950, entered=False)
    assert tables.should_bank(1, 1000, entered=False)
    assert tables.should_bank(1, 300, entered=True)
    assert not tables.should_bank(6, 3000, entered=True)  # hot dice at 3000: roll on
    assert tables.bank_threshold(1) == 300
    # A seat not yet in banks less on average: part of its turns cannot be banked.
    assert tables.expected_if_rolling(6, 0, False) < tables.expected_if_rolling(6, 0, True)
    house = turn_tables(1000, True)
    assert house.expected_if_rolling(6, 0, True) > tables.expected_if_rolling(6, 0, True)
    assert tables.expected_if_rolling(3, 10**6, True) == 10**6  # beyond the cap: bank


def test_simulated_turns_average_what_the_tables_promise() -> None:
    tables = turn_tables(1000, False)
    rng = random.Random(2024)
    games = 20_000
    total_banked = 0
    for _ in range(games):
        in_hand, total = 6, 0
        while True:
            roll = tuple(sorted(rng.randint(1, 6) for _ in range(in_hand)))
            options = set_asides(roll)
            if not options:
                break
            keep, points = max(
                options,
                key=lambda kp: tables.after_set_aside(
                    in_hand - len(kp[0]) or 6, total + kp[1], True
                ),
            )
            in_hand, total = in_hand - len(keep) or 6, total + points
            if tables.should_bank(in_hand, total, True):
                total_banked += total
                break
    promised = tables.expected_if_rolling(6, 0, True)
    assert 530 < promised < 545
    assert abs(total_banked / games - promised) < 15  # about four standard errors (3.4)
