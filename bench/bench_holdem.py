"""Hold'em Dice benchmark: evaluator throughput, equity timings, engine speed (JSON).

Run ``python bench/bench_holdem.py [--hands N]``. Every figure is on one core: the Numba
kernels are single-threaded. Compilation is cached on disk (``cache=True``) and the rank
tables are built once per process; both are timed separately and left out of the rates.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import time

import numpy as np

from dicehall.engine import RandomBot, Seeded, play_out
from dicehall.games.holdem.bots import EquityBot
from dicehall.games.holdem.dice import COLOURS, PER_COLOUR, make
from dicehall.games.holdem.equity import equity
from dicehall.games.holdem.model import HoldemOptions
from dicehall.games.holdem.rules import GAME
from dicehall.games.holdem.tables import rank_batch, tables


def bench_tables() -> dict[str, float]:
    """Seconds to build the rank tables (first use in a process)."""
    start = time.perf_counter()
    t = tables()
    return {"seconds": round(time.perf_counter() - start, 3), "distinct_ranks": len(t.keys)}


def bench_evals(hands: int, seed: int) -> dict[str, float]:
    """Best-of-seven evaluations per second on a batch of random hands (best of 3 runs)."""
    batch = np.random.default_rng(seed).integers(0, 24, size=(hands, 7))
    rank_batch(batch[:100])
    times = []
    for _ in range(3):
        start = time.perf_counter()
        rank_batch(batch)
        times.append(time.perf_counter() - start)
    best = min(times)
    return {"hands": hands, "seconds": round(best, 4), "evals_per_second": round(hands / best)}


def _random_spot(rng: random.Random, board_size: int) -> tuple[list[str], list[str]]:
    bag = [c for c in COLOURS for _ in range(PER_COLOUR)]
    rng.shuffle(bag)
    dice = [make(rng.randint(1, 6), c) for c in bag[: 2 + board_size]]
    return dice[:2], dice[2:]


def bench_equity(spots: int, seed: int) -> dict[str, object]:
    """Exact heads-up equity at the flop (ms, over random spots), and a few other cases."""
    rng = random.Random(seed)
    pocket, board = _random_spot(rng, 3)
    equity(pocket, board, 1)  # warm up
    times = []
    for _ in range(spots):
        pocket, board = _random_spot(rng, 3)
        start = time.perf_counter()
        result = equity(pocket, board, 1)
        times.append(time.perf_counter() - start)
        assert result.exact
    pocket, board = _random_spot(rng, 0)
    start = time.perf_counter()
    preflop = equity(pocket, [], 1)
    preflop_s = time.perf_counter() - start
    pocket, board = _random_spot(rng, 3)
    start = time.perf_counter()
    three_way = equity(pocket, board, 2)
    three_way_s = time.perf_counter() - start
    return {
        "flop_heads_up_exact_ms": {
            "spots": spots,
            "median": round(statistics.median(times) * 1000, 2),
            "max": round(max(times) * 1000, 2),
        },
        "preflop_heads_up_exact_s": round(preflop_s, 3) if preflop.exact else None,
        "flop_two_opponents_exact_ms": round(three_way_s * 1000, 1) if three_way.exact else None,
    }


def bench_engine(games_count: int, seed: int, bot: str) -> dict[str, object]:
    """Engine steps (actions and chance outcomes) per second, three seats, stack 500."""
    master = random.Random(seed)
    steps = 0
    hands = 0
    start = time.perf_counter()
    for _ in range(games_count):
        factory = EquityBot if bot == "equity" else RandomBot
        bots = [factory(random.Random(master.getrandbits(64))) for _ in range(3)]
        _, result, events = play_out(GAME, 3, HoldemOptions(), bots, Seeded(master.getrandbits(64)))
        steps += len(events)
        hands += result.turns
    seconds = time.perf_counter() - start
    return {
        "bots": bot,
        "games": games_count,
        "hands": hands,
        "steps": steps,
        "seconds": round(seconds, 3),
        "steps_per_second": round(steps / seconds),
        "games_per_second": round(games_count / seconds, 3),
    }


def main() -> None:
    """Run every benchmark and print one JSON object."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=5_000_000)
    parser.add_argument("--spots", type=int, default=30)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    report = {
        "benchmark": "holdem",
        "python": platform.python_version(),
        "machine": platform.machine(),
        "tables": bench_tables(),
        "best_of_seven": bench_evals(args.hands, args.seed),
        "equity": bench_equity(args.spots, args.seed),
        "engine_random_bots": bench_engine(args.games, args.seed, "random"),
        "engine_equity_bots": bench_engine(max(1, args.games // 10), args.seed, "equity"),
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
