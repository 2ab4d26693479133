"""The OpenSpiel games pass OpenSpiel's random simulation test, and CFR on a Boss Dice public
state agrees with the exact LP equilibrium (which OpenSpiel finds unexploitable)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pyspiel
import pytest

from dicehall.games.boss.equilibrium_store import load_or_solve
from dicehall.rl.openspiel import register
from dicehall.rl.openspiel_boss import compare_with_lp, state_game

GAMES: list[tuple[str, dict[str, Any]]] = [
    ("boss", {}),
    ("holdem", {"seats": 2, "stack": 60}),
    ("tenthousand", {"target": 500, "entry_threshold": 300}),
    ("boatzee", {"seats": 1}),
    ("bullseye", {}),
]


@pytest.mark.parametrize(("game", "options"), GAMES)
def test_random_sim_test_passes(game: str, options: dict[str, Any]) -> None:
    loaded = pyspiel.load_game(register(game, **options))
    pyspiel.random_sim_test(loaded, num_sims=2, serialize=False, verbose=False)


def test_chance_nodes_are_one_die_or_one_draw_with_exact_chances() -> None:
    state = pyspiel.load_game(register("holdem", seats=2, stack=60)).new_initial_state()
    assert state.is_chance_node()
    outcomes = state.chance_outcomes()
    assert abs(sum(p for _, p in outcomes) - 1) < 1e-12
    assert [a for a, _ in outcomes] == [6, 7, 8, 9]  # the bag's four colours, equally many
    boss = pyspiel.load_game(register("boss")).new_initial_state()
    assert boss.chance_outcomes() == [(face, 1 / 6) for face in range(6)]


def test_the_information_state_of_the_opponent_never_shows_the_concealed_roll() -> None:
    game = pyspiel.load_game(register("boss"))
    for seed in range(30):
        state = game.new_initial_state()
        rng = random.Random(seed)
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
                continue
            inner = state.state
            if inner.concealed and inner.boss is not None:
                text = state.information_state_string(1 - inner.boss)
                assert '"concealed":null' in text and str(list(inner.concealed)) not in text
                assert f'"concealed":{list(inner.concealed)}'.replace(" ", "") in (
                    state.information_state_string(inner.boss)
                )
                return
            state.apply_action(rng.choice(state.legal_actions()))
    pytest.fail("no concealed roll in 30 hands")


def test_cfr_agrees_with_the_lp_in_a_public_state(tmp_path: Path) -> None:
    equilibrium, _ = load_or_solve(directory=tmp_path)
    chances = equilibrium.game.prob
    state = int(max(range(len(chances)), key=lambda s: chances[s]))
    assert state_game(equilibrium, state).keeps >= 2
    found = compare_with_lp(equilibrium, state, iterations=200)
    assert found.lp_exploitability < 1e-9
    assert found.cfr_exploitability < 0.01
    assert abs(found.cfr_value - found.lp_value) < 0.005
