"""The Gymnasium environments pass Gymnasium's checker; solitaire Boatzee pays its score."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from dicehall.engine.errors import InvalidInput
from dicehall.rl.gymnasium import BOATZEE_OPTIMUM, make
from tests.rl.conftest import DUELS


@pytest.mark.parametrize(("game", "opponents", "options"), DUELS)
def test_check_env_passes(game: str, opponents: list[str], options: dict[str, Any]) -> None:
    check_env(make(game, opponents=opponents, **options), skip_render_check=True)


def test_solitaire_boatzee_returns_the_final_score() -> None:
    environment = make("boatzee")
    observation, _ = environment.reset(seed=5)
    total, done = 0.0, False
    info: dict[str, Any] = {}
    while not done:
        action = int(np.flatnonzero(observation["action_mask"])[-1])  # score the last box
        observation, reward, done, truncated, info = environment.step(action)
        assert not truncated
        total += reward
    assert total == info["result"]["scores"][0] > 0
    assert BOATZEE_OPTIMUM == {"boatzee": 245.870775, "yahtzee": 254.587729}


def test_an_illegal_action_changes_nothing_and_says_so() -> None:
    environment = make("tenthousand", opponents=["bot:heuristic"], illegal_reward=-1.0)
    observation, _ = environment.reset(seed=4)
    before = environment.match.table.state
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    again, reward, done, _, info = environment.step(illegal)
    assert info == {"illegal_action": True} and reward == -1.0 and not done
    assert environment.match.table.state is before
    assert np.array_equal(again["observation"], observation["observation"])


def test_the_same_seed_plays_the_same_game() -> None:
    def trace(seed: int) -> list[float]:
        environment = make("boss", opponents=["random"])
        observation, _ = environment.reset(seed=seed)
        rng = np.random.default_rng(0)
        seen: list[float] = []
        done = False
        while not done:
            seen += observation["observation"].tolist()
            action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
            observation, _, done, _, _ = environment.step(action)
        return seen

    assert trace(11) == trace(11)
    assert trace(11) != trace(12)


def test_bad_opponents_and_seats_are_named() -> None:
    with pytest.raises(InvalidInput, match="has no bot 'nobody'"):
        make("boss", opponents=["bot:nobody"])
    with pytest.raises(InvalidInput, match="seat must be 0 to 1"):
        make("boss", opponents=["random"], seat=2)
