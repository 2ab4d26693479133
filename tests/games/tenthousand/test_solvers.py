"""The exact solvers: merged outcomes, one-seat and two-seat tables, against independent
reference solvers on small targets, and their own Bellman equations."""

from __future__ import annotations

import numpy as np
import pytest

from dicehall.games.tenthousand.duel import (
    DuelTables,
    cap_for,
    last_turn_tables,
    solve_duel,
    steps_up,
)
from dicehall.games.tenthousand.scoring import set_asides
from dicehall.games.tenthousand.solitaire import solve_solitaire
from dicehall.games.tenthousand.strategy import roll_probabilities, zero_chance
from dicehall.games.tenthousand.transitions import transitions
from tests.games.tenthousand.reference import (
    duel_reference,
    last_turn_reference,
    solitaire_reference,
)

RULES = transitions(False)


# -- merged outcomes ---------------------------------------------------------------------------


@pytest.mark.parametrize("four_and_pair", [False, True])
def test_merged_groups_keep_every_roll_and_option(four_and_pair: bool) -> None:
    rules = transitions(four_and_pair)
    for n in range(1, 7):
        groups = range(rules.group_start[n], rules.group_start[n + 1])
        merged = {
            tuple(
                (int(rules.entry_hand[j]), int(rules.entry_gain[j]))
                for j in range(rules.entry_start[k], rules.entry_start[k + 1])
            ): float(rules.group_prob[k])
            for k in groups
        }
        expected: dict[tuple[tuple[int, int], ...], float] = {}
        for roll, p in roll_probabilities(n):
            options = set_asides(roll, four_and_pair)
            if options:
                key = tuple(sorted({(n - len(k) or 6, pts // 50) for k, pts in options}))
                expected[key] = expected.get(key, 0.0) + p
        assert merged.keys() == expected.keys()
        for key, p in expected.items():
            assert merged[key] == pytest.approx(p, abs=1e-15)
        assert rules.zero_prob[n] == pytest.approx(zero_chance(n, four_and_pair), abs=1e-15)
        assert sum(merged.values()) + rules.zero_prob[n] == pytest.approx(1.0, abs=1e-12)


def test_merging_shrinks_the_outcomes() -> None:
    assert (RULES.groups, RULES.entries) == (228, 1091)


# -- one seat ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("target", "entry"), [(500, 0), (500, 200), (400, 400)])
def test_solitaire_matches_plain_value_iteration(target: int, entry: int) -> None:
    solved = solve_solitaire(RULES, target, entry)
    reference = solitaire_reference(steps_up(target), steps_up(entry))
    np.testing.assert_allclose(solved.expected_turns, reference, rtol=1e-10, atol=0)


def test_solitaire_default_rules_need_about_twenty_turns() -> None:
    solved = solve_solitaire(RULES, 10_000, 1000)
    assert solved.turns_to_target() == pytest.approx(20.0308, abs=5e-5)
    # More banked never needs more turns: a seat further on can copy the play of one behind.
    assert np.all(np.diff(solved.expected_turns) <= 1e-12)
    assert solved.turns_to_target(10_000) == 0.0
    # Without the entry threshold the race is shorter.
    assert solve_solitaire(RULES, 10_000, 0).turns_to_target() < solved.turns_to_target() - 0.5


def test_solitaire_plans_satisfy_their_fixed_point() -> None:
    solved = solve_solitaire(RULES, 3000, 1000)
    for banked in (0, 50, 1000, 2950):
        plan = solved.plan(banked)
        # The turn's value is minus the turns needed after it: E(B) = 1 + that.
        assert 1 - plan.start == pytest.approx(solved.turns_to_target(banked), rel=1e-12)
    assert solved.plan(0).bank_value(950) is None  # entry threshold
    assert solved.plan(0).bank_value(3000) == 0.0  # reaching the target: nothing more needed


def test_thresholds_in_points_round_up_to_steps() -> None:
    assert solve_solitaire(RULES, 1020, 980).target_steps == 21
    assert solve_solitaire(RULES, 1020, 980).entry_steps == 20
    with pytest.raises(ValueError):
        solve_solitaire(RULES, 40, 0)
    with pytest.raises(ValueError):
        solve_solitaire(RULES, 500, 600)


# -- two seats ---------------------------------------------------------------------------------


def test_last_turn_tables_match_the_reference_and_shrink() -> None:
    last_roll, last_after = last_turn_tables(RULES, 60)
    np.testing.assert_allclose(last_roll[6], last_turn_reference(60), atol=1e-14)
    assert last_roll[6, 1] == pytest.approx(0.9709, abs=1e-4)  # beat by 50: rarely missed
    assert np.all(np.diff(last_roll[6]) <= 1e-15)
    # Level after a set-aside: banking for a half is there when rolling is worth less.
    assert last_after[1, 0] == 0.5 > last_roll[1, 0]
    assert last_after[6, 0] == last_roll[6, 0] > 0.5


@pytest.mark.parametrize("epsilon", [0.2, 1e-3, 1e-7])
def test_cap_is_the_first_deficit_a_last_turn_rarely_beats(epsilon: float) -> None:
    cap = cap_for(RULES, epsilon)
    roll = last_turn_tables(RULES, cap + 1)[0][6]
    assert roll[cap] <= epsilon < roll[cap - 1]


@pytest.mark.parametrize(("target", "entry"), [(200, 200), (250, 100)])
def test_duel_matches_plain_value_iteration(target: int, entry: int) -> None:
    solved = solve_duel(RULES, target, entry, epsilon=0.2)
    reference = duel_reference(solved.target_steps, solved.entry_steps, solved.cap_steps)
    np.testing.assert_allclose(solved.win, reference, atol=1e-11, rtol=0)


@pytest.fixture(scope="module")
def duel_1500() -> DuelTables:
    return solve_duel(RULES, 1500, 500, epsilon=1e-4)


def test_every_pair_satisfies_its_bellman_equation(duel_1500: DuelTables) -> None:
    for a in range(duel_1500.target_steps):
        for b in range(duel_1500.target_steps):
            plan = duel_1500.plan(a * 50, b * 50)
            assert plan.start == pytest.approx(duel_1500.win[a, b], abs=1e-11)


def test_duel_tables_read_as_chances(duel_1500: DuelTables) -> None:
    win = duel_1500.win
    assert np.all((win >= 0) & (win <= 1))
    assert 0.5 < duel_1500.first_seat_win < 0.6  # moving first is an edge
    assert duel_1500.win_chance(0, 0) == duel_1500.first_seat_win
    assert duel_1500.win_chance(0, 1400) < 0.25 < 0.9 < duel_1500.win_chance(1400, 0)
    with pytest.raises(ValueError):
        duel_1500.win_chance(1500, 0)
    with pytest.raises(ValueError):
        duel_1500.win_chance(75, 0)


def test_entry_threshold_and_final_round_in_the_plans(duel_1500: DuelTables) -> None:
    plan = duel_1500.plan(0, 700)
    assert plan.bank_value(450) is None and plan.bank_value(500) is not None
    assert duel_1500.plan(100, 700).bank_value(50) is not None
    # Banking 1500 from 1000 against 1400 starts the final round: the opponent needs 150.
    assert duel_1500.plan(1000, 1400).bank_value(500) == pytest.approx(
        1 - duel_1500.last_turn_chance(1400, 1500), abs=1e-15
    )
    # A last turn's plan agrees with the last-turn table, and banks a lead at once.
    last = duel_1500.last_turn_plan(800, 1500)
    assert last.start == pytest.approx(duel_1500.last_turn_chance(800, 1500), abs=1e-14)
    assert last.bank_value(750) == 1.0 and last.should_bank(1, 750)
    assert last.bank_value(700) == 0.5
    assert not last.should_bank(6, 700)  # six dice beat a half


def test_plans_reach_past_their_cap_on_request(duel_1500: DuelTables) -> None:
    plan = duel_1500.plan(500, 500)
    with pytest.raises(ValueError):
        plan.roll_value(6, plan.cap * 50)
    wider = duel_1500.plan(500, 500, reach=plan.cap * 50 + 2000)
    assert wider.roll_value(6, plan.cap * 50) <= 1.0
    assert wider.start == pytest.approx(plan.start, abs=duel_1500.epsilon)


def test_solve_reports_progress_to_the_end() -> None:
    seen: list[tuple[int, int]] = []
    solve_duel(RULES, 300, 0, epsilon=0.1, progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (21, 21)  # 6 x 7 / 2 pairs a <= b
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
