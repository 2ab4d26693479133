"""Boatzee benchmark: engine steps per second and whole games per second, as one JSON object.

Run: ``.venv/bin/python bench/bench_boatzee.py``.
"""

from __future__ import annotations

import json
import random
import time
from typing import Any

from dicehall import games
from dicehall.engine import Seeded, play_out
from dicehall.games.boatzee import GAME, BoatzeeOptions


def _run(bot: str, seats: int, options: BoatzeeOptions, n_games: int) -> dict[str, Any]:
    entry = games.get("boatzee")
    steps = 0
    points = 0
    start = time.perf_counter()
    for seed in range(n_games):
        players = [entry.bot(bot, random.Random(seed * 8 + s)) for s in range(seats)]
        _, result, events = play_out(GAME, seats, options, players, Seeded(seed))
        steps += len(events)
        points += sum(result.scores)
    elapsed = time.perf_counter() - start
    return {
        "bot": bot,
        "seats": seats,
        "columns": options.columns,
        "ruleset": options.ruleset,
        "games": n_games,
        "seconds": round(elapsed, 3),
        "games_per_s": round(n_games / elapsed, 1),
        "steps_per_s": round(steps / elapsed),
        "mean_score": round(points / (n_games * seats), 2),
    }


def main() -> None:
    """Time random play (the engine itself) and the two planning bots."""
    _run("heuristic", 1, BoatzeeOptions(), 2)  # warm the tables and imports
    runs = [
        _run("random", 2, BoatzeeOptions(), 400),
        _run("random", 2, BoatzeeOptions(3, "yahtzee"), 150),
        _run("greedy", 1, BoatzeeOptions(), 300),
        _run("heuristic", 1, BoatzeeOptions(), 300),
        _run("heuristic", 1, BoatzeeOptions(3), 100),
    ]
    print(json.dumps({"game": "boatzee", "runs": runs}))


if __name__ == "__main__":
    main()
