"""Ten Thousand exact solver benchmark: the full solve's time and memory, its figures, and the
optimal bot's win share against the others (JSON).

Run ``python bench/bench_tenthousand_solver.py [--target 10000] [--games N] [--seed S]``. The
solve is always computed afresh (never read from the cache) after a warm-up solve of a tiny
target, so Numba's compilation is not counted; wall and CPU seconds are both reported (CPU
counts every thread). ``--games`` seat-balanced games per pairing (half from each seat) go
through ``dicehall sim``'s own loop; 0 skips them.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import resource
import time
from typing import Any

from dicehall import games
from dicehall.cli.sim import simulate
from dicehall.games.tenthousand import TenThousandOptions, cache
from dicehall.games.tenthousand.strategy import turn_tables


def bench_solve(target: int, entry: int) -> tuple[cache.Solution, dict[str, Any]]:
    """Solve afresh and time it; the solution is also stored in the cache."""
    start = time.perf_counter()
    cache.compute(cache.SolveKey(target=200, entry_threshold=0))  # compile or load kernels
    warmup = time.perf_counter() - start
    key = cache.SolveKey(target=target, entry_threshold=entry)
    solved = cache.solution(key, recompute=True)
    tables = turn_tables(entry)
    figures = {
        "target": target,
        "entry_threshold": entry,
        "max_expected_turn": round(tables.expected_if_rolling(6, 0, True), 4),
        "bank_thresholds": {n: tables.bank_threshold(n) for n in range(1, 7)},
        "expected_turns_to_target": round(solved.solitaire.turns_to_target(), 6),
        "first_seat_win": round(solved.duel.first_seat_win, 6),
        "error_bound": key.epsilon,
        "cap_points_over_opponent": solved.duel.cap_steps * 50,
        "warmup_seconds": round(warmup, 2),
        "solve_wall_seconds": round(solved.seconds, 2),
        "solve_cpu_seconds": round(solved.cpu_seconds, 2),
        "peak_memory_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
    return solved, figures


def bench_share(
    other: str, games_count: int, seed: int, options: TenThousandOptions
) -> dict[str, Any]:
    """``optimal``'s seat-balanced win share against ``other`` with a 95% interval."""
    entry = games.get("tenthousand")
    half = games_count // 2
    start = time.perf_counter()
    first = simulate(entry, ["optimal", other], half, seed, options, progress=False).as_json()
    second = simulate(entry, [other, "optimal"], half, seed + 1, options, progress=False).as_json()
    seconds = time.perf_counter() - start
    share = (first["seats"][0]["win_share"] + second["seats"][1]["win_share"]) / 2
    # The two halves are independent; each half's interval is 1.96 standard errors wide.
    halves = [
        (first["seats"][0]["win_share_95"][1] - first["seats"][0]["win_share_95"][0]) / 2,
        (second["seats"][1]["win_share_95"][1] - second["seats"][1]["win_share_95"][0]) / 2,
    ]
    margin = math.sqrt(sum(h * h for h in halves)) / 2
    return {
        "against": other,
        "games": 2 * half,
        "win_share": round(share, 4),
        "win_share_95": [round(share - margin, 4), round(share + margin, 4)],
        "from_seat_1": round(first["seats"][0]["win_share"], 4),
        "from_seat_2": round(second["seats"][1]["win_share"], 4),
        "seconds": round(seconds, 1),
    }


def main() -> None:
    """Run the benchmark and print one JSON object."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--target", type=int, default=10_000)
    parser.add_argument("--entry", type=int, default=1000)
    parser.add_argument("--games", type=int, default=0, help="games per pairing (0: none)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    _, figures = bench_solve(args.target, args.entry)
    result: dict[str, Any] = {
        "benchmark": "tenthousand_solver",
        "python": platform.python_version(),
        "machine": platform.machine(),
        "solve": figures,
    }
    if args.games:
        options = TenThousandOptions(target=args.target, entry_threshold=args.entry)
        result["optimal_vs"] = [
            bench_share(other, args.games, args.seed, options)
            for other in ("heuristic", "max_expected")
        ]
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
