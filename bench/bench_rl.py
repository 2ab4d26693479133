"""Steps per second of the reinforcement-learning environments; prints one JSON object.

Each PettingZoo environment plays random legal actions (one core, one process) for
``--seconds`` seconds; OpenSpiel's own Yacht and Pig, played the same way through pyspiel
(chance outcomes sampled by their probabilities), are the baseline measured in the same run.
A step is one decision of a seat. Run: ``.venv/bin/python bench/bench_rl.py [--seconds 3]``.
"""

from __future__ import annotations

import argparse
import json
import os
import time
import warnings
from typing import Any

import numpy as np
import pyspiel

from dicehall.rl.pettingzoo import env

TABLES: list[tuple[str, dict[str, Any]]] = [
    ("tenthousand", {"seats": 2}),
    ("boatzee", {"seats": 1}),
    ("boatzee", {"seats": 2, "columns": 3}),
    ("boss", {"seats": 2}),
    ("holdem", {"seats": 4}),
    ("bullseye", {"seats": 3}),
]


def dicehall_rate(game: str, options: dict[str, Any], seconds: float) -> float:
    """Decisions per second of random legal play in a PettingZoo environment."""
    table = env(game, **options)
    rng = np.random.default_rng(0)
    steps, seed = 0, 0
    started = time.process_time()
    while time.process_time() - started < seconds:
        table.reset(seed=seed)
        seed += 1
        for _ in table.agent_iter():
            observation, _, terminated, truncated, _ = table.last()
            if terminated or truncated:
                table.step(None)
                continue
            table.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
            steps += 1
    return steps / (time.process_time() - started)


def openspiel_rate(name: str, seconds: float) -> float:
    """Decisions per second of random play in an OpenSpiel game, with its observations."""
    game = pyspiel.load_game(name)
    rng = np.random.default_rng(0)
    steps = 0
    started = time.process_time()
    while time.process_time() - started < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(outcomes, p=probabilities)))
                continue
            player = state.current_player()
            state.observation_tensor(player)  # what an agent reads, as ours builds it
            state.apply_action(int(rng.choice(state.legal_actions())))
            steps += 1
    return steps / (time.process_time() - started)


def main() -> None:
    """Measure every environment and the baselines; print the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    result: dict[str, Any] = {"benchmark": "rl_steps_per_second", "load": os.getloadavg()[0]}
    for game, options in TABLES:
        label = f"{game}:{options['seats']}" + (
            f"x{options['columns']}" if "columns" in options else ""
        )
        result[label] = round(dicehall_rate(game, options, args.seconds))
    for name in ("yacht", "pig"):
        result[f"openspiel_{name}"] = round(openspiel_rate(name, args.seconds))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
