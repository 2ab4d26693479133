"""The PettingZoo environments pass PettingZoo's own API and seeding tests."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from dicehall.engine.errors import InvalidInput
from dicehall.rl.pettingzoo import env
from tests.rl.conftest import TABLES


@pytest.mark.parametrize(("game", "seats", "options"), TABLES)
def test_api_test_passes(game: str, seats: int, options: dict[str, Any]) -> None:
    api_test(env(game, seats=seats, **options), num_cycles=200)


@pytest.mark.parametrize(("game", "seats", "options"), TABLES)
def test_seed_test_passes(game: str, seats: int, options: dict[str, Any]) -> None:
    def make(render_mode: str | None = None) -> object:
        return env(game, seats=seats, render_mode=render_mode, **options)

    seed_test(make, num_cycles=60)


def _play(game: str, seats: int, seed: int, **options: Any) -> tuple[list[float], int]:
    """A whole game of legal random moves: each agent's summed reward, and the steps."""
    table = env(game, seats=seats, **options)
    table.reset(seed=seed)
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(table.possible_agents, 0.0)
    steps = 0
    for agent in table.agent_iter(max_iter=100_000):
        observation, reward, terminated, truncated, _ = table.last()
        totals[agent] += reward
        if terminated or truncated:
            table.step(None)
            continue
        table.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        steps += 1
    return [totals[a] for a in table.possible_agents], steps


def test_win_rewards_are_one_winner_against_the_rest_or_a_shared_nothing() -> None:
    for seed in range(6):
        rewards, _ = _play("tenthousand", 3, seed, target=500, entry_threshold=300)
        assert sorted(rewards) in ([-1.0, -1.0, 1.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 0.0])


def test_score_rewards_add_up_to_the_final_score() -> None:
    table = env("boatzee", seats=1)
    table.reset(seed=3)
    total = 0.0
    for _ in table.agent_iter():
        observation, reward, terminated, _, _ = table.last()
        total += reward
        if terminated:
            table.step(None)
            continue
        table.step(int(np.flatnonzero(observation["action_mask"])[-1]))
    result = table.match.result
    assert result is not None and total == result.scores[0] > 0


def test_an_illegal_action_is_refused_and_changes_nothing() -> None:
    table = env("tenthousand", seats=2, target=500, entry_threshold=300)
    table.reset(seed=1)
    agent = table.agent_selection
    mask = table.observe(agent)["action_mask"]
    before = table.match.table.state
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(ValueError, match="not legal now"):
        table.step(illegal)
    with pytest.raises(ValueError, match="not an action number"):
        table.step(len(mask))
    assert table.match.table.state is before and table.agent_selection == agent


def test_bad_settings_are_named() -> None:
    with pytest.raises(InvalidInput, match="reward must be one of"):
        env("boss", reward="money")
    with pytest.raises(InvalidInput, match="unknown game"):
        env("chess")
    with pytest.raises(InvalidInput, match="render_mode"):
        env("boss", render_mode="human")


def test_ansi_render_names_the_seat_to_act() -> None:
    table = env("boss", render_mode="ansi")
    table.reset(seed=2)
    text = table.render()
    assert text is not None and "Boss Dice" in text and f"{table.agent_selection} to act" in text
