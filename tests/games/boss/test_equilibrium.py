"""The equilibrium method on a reduced hand (3 faces, 4 dice), checked by brute force.

Brute force here means ordered dice and the rules' own ranking functions, nothing from the
model's tables: the chance of each public state, and each state's payoffs, are recounted
from scratch, and the solved strategies are checked to be a saddle point of every state.
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from itertools import product

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from dicehall.engine.errors import InvalidInput
from dicehall.games.boss.equilibrium import Equilibrium, solve, solve_fixed_point
from dicehall.games.boss.hand_game import HandGame, hand_game
from dicehall.games.boss.hands import (
    beats_first,
    boss_keep,
    first_roll_rank,
    legal_keeps,
    showdown_rank,
)
from dicehall.games.boss.profiles import (
    Profile,
    best_response_value,
    boss_best_value,
    exploitability,
    horse_value,
    opponent_best_value,
    outcome,
)

FACES, DICE = 3, 4
Dice = tuple[int, ...]


@pytest.fixture(scope="module")
def game() -> HandGame:
    return hand_game(FACES, DICE)


@pytest.fixture(scope="module")
def solved(game: HandGame) -> Equilibrium:
    profile, fresh = solve_fixed_point(game)
    return Equilibrium(game, profile, fresh)


def ordered(count: int) -> list[Dice]:
    return list(product(range(1, FACES + 1), repeat=count))


@cache
def brute_state_chances() -> dict[tuple[Dice, Dice], float]:
    """P(Boss keeps K, opponent rolled R | a Boss), from every ordered pair of first rolls."""
    counts: Counter[tuple[Dice, Dice]] = Counter()
    for first, second in product(ordered(DICE), repeat=2):
        a, b = first_roll_rank(first), first_roll_rank(second)
        if beats_first(a, b):
            counts[(boss_keep(first), tuple(sorted(second)))] += 1
        elif beats_first(b, a):
            counts[(boss_keep(second), tuple(sorted(first)))] += 1
    total = sum(counts.values())
    return {key: n / total for key, n in counts.items()}


@cache
def brute_payoffs(kept: Dice, keep: Dice, concealed: Dice) -> tuple[float, float]:
    """The Boss's (win, push) chances with ``kept + concealed`` against ``keep`` rolling on."""
    boss = showdown_rank(kept + concealed)
    rolls = ordered(DICE - len(keep))
    wins = sum(boss > showdown_rank(keep + r) for r in rolls)
    pushes = sum(boss == showdown_rank(keep + r) for r in rolls)
    return wins / len(rolls), pushes / len(rolls)


def brute_state(game: HandGame, eq: Equilibrium, kept: Dice, roll: Dice) -> tuple[float, ...]:
    """(value, the least any pure keep holds the Boss's strategy to, the most any Boss
    strategy makes against the keep mixture, the least a Boss best response makes against
    a pure keep), all at fresh = 1/2."""
    state = game.state(kept, roll)
    keeps = legal_keeps(roll)
    mix = eq.profile.keep[state, : len(keeps)]
    concealed_rolls = ordered(DICE - len(kept))
    value = 0.0
    against_pure = np.zeros(len(keeps))
    best_boss = 0.0
    pure_best_boss = np.zeros(len(keeps))
    for concealed in concealed_rolls:
        cls = game.classes.index(showdown_rank(kept + concealed))
        up = eq.profile.come_up[state, cls]
        worth = np.array(
            [w + 0.5 * p for w, p in (brute_payoffs(kept, k, concealed) for k in keeps)]
        )
        value += up * float(worth @ mix) + (1 - up) * 0.5
        against_pure += up * worth + (1 - up) * 0.5
        best_boss += max(0.5, float(worth @ mix))
        pure_best_boss += np.maximum(0.5, worth)
    n = len(concealed_rolls)
    return value / n, against_pure.min() / n, best_boss / n, pure_best_boss.min() / n


def test_state_chances_match_every_ordered_first_roll(game: HandGame) -> None:
    brute = brute_state_chances()
    assert game.n_states == len(brute)
    for (kept, roll), chance in brute.items():
        assert game.prob[game.state(kept, roll)] == pytest.approx(chance, abs=1e-12)
    pairs = FACES ** (2 * DICE)
    boss = sum(
        beats_first(first_roll_rank(a), first_roll_rank(b))
        or beats_first(first_roll_rank(b), first_roll_rank(a))
        for a, b in product(ordered(DICE), repeat=2)
    )
    assert game.boss_chance == pytest.approx(boss / pairs)


def test_payoff_tables_match_brute_force(game: HandGame) -> None:
    for group in game.groups[::3]:
        kept = game.kept[group.kept]
        win, push = group.payoffs()
        for row, state in list(enumerate(group.states))[::4]:
            keeps = game.legal_keeps(int(state))
            for concealed in ordered(DICE - len(kept)):
                t = list(group.types).index(game.hand_class(kept + concealed))
                for m, keep in enumerate(keeps):
                    assert (win[row, t, m], push[row, t, m]) == pytest.approx(
                        brute_payoffs(kept, keep, concealed)
                    )


def test_every_public_state_is_a_saddle_point(game: HandGame, solved: Equilibrium) -> None:
    total = 0.0
    for (kept, roll), chance in brute_state_chances().items():
        value, boss_guarantee, boss_best, _ = brute_state(game, solved, kept, roll)
        assert boss_guarantee == pytest.approx(value, abs=1e-9)  # no keep does better
        assert boss_best == pytest.approx(value, abs=1e-9)  # no call does better
        total += chance * value
    assert solved.report().boss_value == pytest.approx(total, abs=1e-12)


def test_some_state_needs_a_mixed_keep(game: HandGame, solved: Equilibrium) -> None:
    mixed = [s for s in range(game.n_states) if np.count_nonzero(solved.profile.keep[s] > 1e-9) > 1]
    assert mixed
    for state in mixed:
        kept = game.kept[int(game.state_kept[state])]
        roll = game.rolls[int(game.state_roll[state])]
        value, _, _, pure = brute_state(game, solved, kept, roll)
        assert pure > value + 1e-4  # every pure keep lets the Boss gain; the mixture does not


def test_figures_of_the_reduced_hand(solved: Equilibrium) -> None:
    report = solved.report()
    assert report.fresh == 0.5
    assert 0.5 < report.boss_value < 1
    ending = report.outcome
    assert ending.win + ending.push + ending.lose + ending.pick_up == pytest.approx(1)
    assert report.boss_value == pytest.approx(ending.win + (ending.push + ending.pick_up) / 2)
    gain = report.exploitability
    assert max(gain.boss, gain.opponent, gain.horse) < 1e-9


def test_the_fixed_point_of_a_fresh_hand_is_one_half(game: HandGame) -> None:
    # from any guess: both seats use the same strategies and are Boss equally often
    for guess in (0.2, 0.8):
        profile, fresh = solve_fixed_point(game, start=guess)
        assert fresh == pytest.approx(0.5, abs=1e-9)
        assert horse_value(game, profile, profile) == pytest.approx(0.5)
    # a fresh hand worth more makes the Boss pick up more
    cheap = outcome(game, *_arrays(solve(game, 0.3)))
    dear = outcome(game, *_arrays(solve(game, 0.7)))
    assert dear.pick_up > cheap.pick_up


def _arrays(profile: Profile) -> tuple[np.ndarray, np.ndarray]:
    return profile.come_up, profile.keep


def always_come_up(game: HandGame) -> Profile:
    keep = np.zeros((game.n_states, game.width))
    keep[:, 0] = 1.0  # keep nothing, roll them all
    return Profile(np.ones((game.n_states, len(game.classes))), keep)


def test_exploitability_finds_a_poor_profile(game: HandGame) -> None:
    gain = exploitability(game, always_come_up(game))
    assert gain.boss > 0.01 and gain.opponent > 0.01
    assert gain.horse > gain.hand  # gains compound over the replayed hands


def test_policy_iteration_matches_value_iteration(game: HandGame) -> None:
    poor = always_come_up(game)
    best, answer = best_response_value(game, poor)
    assert horse_value(game, answer, poor) == pytest.approx(best)
    worth, previous = 0.5, -1.0
    for _ in range(3000):
        if abs(worth - previous) < 1e-13:
            break
        previous, worth = (
            worth,
            0.5
            * (
                boss_best_value(game, poor.keep, worth)
                + opponent_best_value(game, poor.come_up, worth)
            ),
        )
    assert best == pytest.approx(worth, abs=1e-9)


def random_profile(game: HandGame, data: st.DataObject) -> Profile:
    come_up = data.draw(
        hnp.arrays(np.float64, (game.n_states, len(game.classes)), elements=st.floats(0, 1))
    )
    weights = data.draw(
        hnp.arrays(np.float64, (game.n_states, game.width), elements=st.floats(0.01, 1))
    )
    weights = np.where(game.valid, weights, 0.0)
    return Profile(come_up, weights / weights.sum(axis=1, keepdims=True))


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_no_deviation_gains_against_the_equilibrium(
    game: HandGame, solved: Equilibrium, data: st.DataObject
) -> None:
    profile = solved.profile
    value = outcome(game, profile.come_up, profile.keep).boss_value(0.5)
    other = random_profile(game, data)
    assert outcome(game, profile.come_up, other.keep).boss_value(0.5) >= value - 1e-9
    assert outcome(game, other.come_up, profile.keep).boss_value(0.5) <= value + 1e-9
    # over a whole horse, too, and the two seats' chances add up to one
    mine = horse_value(game, profile, other)
    assert mine >= 0.5 - 1e-9
    assert mine + horse_value(game, other, profile) == pytest.approx(1)


def test_lookups_by_dice(game: HandGame, solved: Equilibrium) -> None:
    state = game.state((3, 3), (1, 1, 2, 3))
    kept, roll = (3, 3), (1, 1, 2, 3)
    keeps = solved.keep_chances(roll, kept)
    assert sum(p for _, p in keeps) == pytest.approx(1)
    assert all(k in legal_keeps(roll) for k, _ in keeps)
    calls = solved.calls(kept, roll)
    assert sum(chance for _, chance, _ in calls) == pytest.approx(1)
    assert game.legal_keeps(state) == legal_keeps(roll)
    hand = (3, 3, 3, 1)
    up = solved.come_up_chance(hand, kept, roll)
    assert up == dict((c, u) for c, _, u in calls)[game.hand_class(hand)]
    with pytest.raises(InvalidInput, match="no hand has the Boss keeping"):
        solved.keep_chances((3, 3, 1, 2), (1, 1))  # a pair of 3s is no opponent to 1s
    with pytest.raises(InvalidInput, match="holding his kept dice"):
        solved.come_up_chance((1, 2, 3, 1), (3, 3), (1, 2, 3, 1))
    with pytest.raises(InvalidInput, match="not a hand of 4 dice, 1 to 3"):
        solved.come_up_chance((3, 3, 3, 4), (3, 3), roll)
    assert not game.prob.flags.writeable and not solved.game.final.flags.writeable
