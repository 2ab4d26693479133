"""The exact Bull's Eye distribution and the optimal-stopping values, checked independently."""

from __future__ import annotations

import random
from fractions import Fraction
from functools import cache
from itertools import combinations

import pytest

from dicehall.engine.dice import Seeded
from dicehall.engine.errors import InvalidInput
from dicehall.engine.table import play_out
from dicehall.games.bullseye import GAME, BullseyeOptions
from dicehall.games.bullseye.bots import OptimalBot
from dicehall.games.bullseye.odds import lead_part_distribution, target_distribution, target_mean
from dicehall.games.bullseye.stopping import (
    best_choice,
    check_position,
    hint,
    reachable_totals,
    score_distribution,
    turn_value,
    value,
)

FACES = range(1, 7)


def _points(total: int, target: int) -> int:
    d = abs(total - target)
    return 50 if d == 0 else 30 if d <= 3 else 20 if d <= 5 else 10 if d <= 7 else 0


@cache
def _brute(target: int, total: int, taken: int) -> Fraction:
    """Best expected points by direct enumeration of equally likely sets of faces."""
    if taken == 3:
        return Fraction(_points(total, target))
    sets = list(combinations(FACES, 3 - taken))
    go = sum((_brute(target, total + sum(s), taken + 1) for s in sets), Fraction(0)) / len(sets)
    return go if taken == 0 else max(Fraction(_points(total, target)), go)


def test_target_distribution_by_enumeration() -> None:
    triples = list(combinations(FACES, 3))
    counts: dict[int, int] = {}
    for a in triples:
        for b in triples:
            for c in triples:
                t = sum(a) + b[1] + b[2] + c[2]  # combinations come ascending
                counts[t] = counts.get(t, 0) + 1
    assert target_distribution() == {t: Fraction(n, 20**3) for t, n in sorted(counts.items())}


def test_target_distribution_facts() -> None:
    dist = target_distribution()
    assert sum(dist.values()) == 1
    assert (min(dist), max(dist)) == (14, 32)
    assert dist[14] == Fraction(1, 8000)  # 1 2 3, then 1 2 3 (adds 5), then 1 2 3 (adds 3)
    assert dist[32] == Fraction(1, 200)  # 4 5 6, then any set with 5 and 6, then any with 6
    assert target_mean() == Fraction(49, 2)
    assert lead_part_distribution(2) == {
        3: Fraction(1, 20),
        4: Fraction(3, 20),
        5: Fraction(6, 20),
        6: Fraction(10, 20),
    }


def test_target_distribution_matches_play() -> None:
    source = Seeded(99)
    rng = random.Random(5)
    seen: dict[int, int] = {}
    n = 600
    for _ in range(n):
        state, _, _ = play_out(
            GAME, 3, BullseyeOptions(rounds=1), [OptimalBot(rng) for _ in range(3)], source
        )
        target = state.history[0].target
        seen[target] = seen.get(target, 0) + 1
    dist = target_distribution()
    mean = sum(t * c for t, c in seen.items()) / n
    assert abs(mean - 24.5) < 4 * 3.0 / n**0.5  # the Bull's Eye's sd is about 3
    # Cells with enough weight: none differs by more than 4.5 standard errors.
    for t, p in dist.items():
        if p * n >= 10:
            sd = float(p * (1 - p) * n) ** 0.5
            assert abs(seen.get(t, 0) - float(p) * n) < 4.5 * sd, t


@pytest.mark.parametrize("target", [14, 19, 23, 24, 27, 32])
def test_values_equal_brute_force(target: int) -> None:
    for taken in range(4):
        for total in sorted(reachable_totals(taken)):
            assert value(target, total, taken) == _brute(target, total, taken)


def test_hint_values() -> None:
    h = hint(27, 12, 1)
    assert h.stop == 0 and h.throw == Fraction(175, 9) and h.best == "throw"
    first = hint(27, 0, 0)
    assert first.stop is None and first.throw == _brute(27, 0, 0) and first.best == "throw"
    last = hint(27, 22, 3)
    assert last.stop == 20 and last.throw is None and last.best == "stop"
    exact = hint(23, 23, 2)
    assert exact.stop == 50 and exact.throw is not None and exact.throw < 50
    assert exact.best == "stop"


def test_equal_values_prefer_stopping() -> None:
    # E.g. 13 after two throws against 14: stopping scores 30, one more die averages 30.
    assert hint(14, 13, 2).stop == hint(14, 13, 2).throw == 30
    ties = [
        (t, total, k)
        for t in target_distribution()
        for k in (1, 2)
        for total in reachable_totals(k)
        if hint(t, total, k).throw == hint(t, total, k).stop
    ]
    assert ties, "some position has equal values"
    assert all(best_choice(*p) == "stop" for p in ties)


def test_score_distribution_is_consistent_with_value() -> None:
    for target in (18, 24, 30):
        for total, taken in [(0, 0), (10, 1), (15, 1), (20, 2)]:
            dist = score_distribution(target, total, taken)
            assert sum(dist.values()) == 1
            mean = sum((s * p for s, p in dist.items()), Fraction(0))
            assert mean == value(target, total, taken)
    forced = score_distribution(24, 10, 1, "stop")
    assert forced == {0: Fraction(1)}


def test_turn_value_is_the_mean_over_targets() -> None:
    expected = sum((p * _brute(t, 0, 0) for t, p in target_distribution().items()), Fraction(0))
    assert turn_value() == expected
    assert 21.1 < float(expected) < 21.2


def test_optimal_play_scores_the_exact_expectation() -> None:
    rng = random.Random(11)
    source = Seeded(12)
    scores: list[int] = []
    for _ in range(60):
        state, _, _ = play_out(
            GAME, 4, BullseyeOptions(), [OptimalBot(rng) for _ in range(4)], source
        )
        scores.extend(s for r in state.history for s in r.scores if s is not None)
    n = len(scores)
    mean = sum(scores) / n
    sd = (sum((s - mean) ** 2 for s in scores) / (n - 1)) ** 0.5
    assert n == 60 * 8 * 3
    assert abs(mean - float(turn_value())) < 4 * sd / n**0.5


@pytest.mark.parametrize(
    ("target", "total", "taken", "message"),
    [
        (13, 0, 0, "a Bull's Eye is 14 to 32, not 13"),
        (33, 0, 0, "14 to 32"),
        (20, 0, 4, "throws taken must be 0 to 3"),
        (20, 3, 0, "before the first throw the total is 0"),
        (20, 5, 1, "a total of 5 is impossible after 1 throw .6 to 15."),
        (20, 27, 2, "impossible after 2 throws .9 to 26."),
        (20, 9, 3, "10 to 32"),
    ],
)
def test_impossible_positions_are_clear_errors(
    target: int, total: int, taken: int, message: str
) -> None:
    with pytest.raises(InvalidInput, match=message):
        check_position(target, total, taken)
    with pytest.raises(InvalidInput):
        hint(target, total, taken)


def test_reachable_totals() -> None:
    assert reachable_totals(0) == {0}
    assert reachable_totals(1) == set(range(6, 16))
    assert reachable_totals(2) == set(range(9, 27))
    assert reachable_totals(3) == set(range(10, 33))
