"""Ten Thousand benchmark: engine steps per second and simulated games per second (JSON).

Run ``python bench/bench_tenthousand.py [--games N]``. The games figure goes through the same
path as ``dicehall sim tenthousand --bots heuristic,heuristic`` (one process, one core); the
steps figure plays games through the normal driver with the event log recorded and counts
every action and every roll.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import time

from dicehall import games
from dicehall.cli.sim import simulate
from dicehall.engine.dice import Seeded
from dicehall.engine.table import play_out
from dicehall.games.tenthousand.strategy import turn_tables


def bench_steps(games_count: int, seed: int) -> dict[str, float]:
    """Engine steps (actions plus chance outcomes) per second, heuristic against heuristic."""
    entry = games.get("tenthousand")
    options = entry.game.options()
    master = random.Random(seed)
    steps = 0
    start = time.perf_counter()
    for _ in range(games_count):
        bots = [entry.bot("heuristic", random.Random(master.getrandbits(64))) for _ in range(2)]
        _, _, events = play_out(entry.game, 2, options, bots, Seeded(master.getrandbits(64)))
        steps += len(events)
    seconds = time.perf_counter() - start
    return {
        "games": games_count,
        "steps": steps,
        "seconds": round(seconds, 3),
        "steps_per_second": round(steps / seconds),
        "steps_per_game": round(steps / games_count, 1),
    }


def bench_sim(games_count: int, seed: int, bots: list[str]) -> dict[str, float | str]:
    """Simulated games per second through ``dicehall sim``'s own loop."""
    entry = games.get("tenthousand")
    start = time.perf_counter()
    report = simulate(entry, bots, games_count, seed, entry.game.options(), progress=False)
    seconds = time.perf_counter() - start
    data = report.as_json()
    return {
        "bots": ",".join(bots),
        "games": games_count,
        "seconds": round(seconds, 3),
        "games_per_second": round(games_count / seconds, 1),
        "projected_seconds_for_10000": round(10_000 * seconds / games_count, 2),
        "win_share_seat_1": round(data["seats"][0]["win_share"], 4),
        "mean_turns": round(data["mean_turns"], 2),
    }


def main() -> None:
    """Run the benchmarks and print one JSON object."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=10_000, help="games for the sim figure")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    start = time.perf_counter()
    turn_tables()
    tables_seconds = time.perf_counter() - start
    result = {
        "benchmark": "tenthousand",
        "python": platform.python_version(),
        "machine": platform.machine(),
        "turn_tables_seconds": round(tables_seconds, 3),
        "engine_steps": bench_steps(max(1, args.games // 5), args.seed),
        "sim_heuristic_vs_heuristic": bench_sim(args.games, args.seed, ["heuristic", "heuristic"]),
        "sim_threshold_vs_heuristic": bench_sim(
            max(1, args.games // 5), args.seed, ["threshold", "heuristic"]
        ),
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
