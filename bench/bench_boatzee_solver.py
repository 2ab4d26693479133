"""Benchmark the exact Boatzee solver and hints; prints one JSON object.

Solves both rulesets (each ``repeat`` times, reporting the fastest and the median wall time
and the CPU time of the fastest), then times hints against the cached table: the first in a
process (table memory-mapped from the cache) and warm ones. Peak memory is the process's
maximum resident set. Run: ``.venv/bin/python bench/bench_boatzee_solver.py [--repeat N]``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import tempfile
import time
from typing import Any

import numba

from dicehall.games.boatzee import table_cache
from dicehall.games.boatzee.card import Card
from dicehall.games.boatzee.hints import hint, scored_card
from dicehall.games.boatzee.scoring import BOXES
from dicehall.games.boatzee.solver import Solution, compile_kernels, solve
from dicehall.games.boatzee.valuation import for_game


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _solve(ruleset: str, repeat: int) -> dict[str, Any]:
    runs: list[Solution] = [solve(ruleset) for _ in range(repeat)]  # type: ignore[arg-type]
    fastest = min(runs, key=lambda s: s.seconds)
    return {
        "expected": fastest.expected,
        "std": fastest.std,
        "states": fastest.states,
        "wall_seconds_min": fastest.seconds,
        "wall_seconds_median": statistics.median(s.seconds for s in runs),
        "cpu_seconds": fastest.cpu_seconds,
        "runs": repeat,
    }


def _hints(repeat: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as data:
        os.environ["DICEHALL_DATA"] = data
        table_cache.solve_and_store("boatzee")
        table_cache.forget()
        card = scored_card({"ones": 2, "fives": 15, "full_house": 25}, "boatzee")
        start = time.perf_counter()
        valuation = for_game(1, "boatzee")
        loaded = time.perf_counter() - start
        hint(card, (1, 1, 2, 3, 4), 2, "boatzee", valuation)
        first = time.perf_counter() - start
        times = []
        for i in range(repeat):
            table_cache.forget()
            dice = (1 + i % 6, 2, 3, 4, 6)
            start = time.perf_counter()
            hint(card, dice, 1 + i % 2, "boatzee", for_game(1, "boatzee"))
            times.append(time.perf_counter() - start)
        empty = Card(((None,) * len(BOXES),))
        start = time.perf_counter()
        hint(empty, (1, 1, 2, 3, 4), 2, "boatzee", valuation)
        empty_card = time.perf_counter() - start
    return {
        "table_open_ms": loaded * 1e3,
        "first_hint_in_process_ms": first * 1e3,
        "warm_hint_ms_median": statistics.median(times) * 1e3,
        "warm_hint_ms_max": max(times) * 1e3,
        "empty_card_hint_ms": empty_card * 1e3,
        "hints": repeat,
    }


def main() -> None:
    """Run the benchmark and print its JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3, help="solves per ruleset")
    args = parser.parse_args()
    compile_seconds = compile_kernels()
    report = {
        "benchmark": "boatzee_solver",
        "cpus": os.cpu_count(),
        "numba_threads": numba.get_num_threads(),
        "load_average": os.getloadavg()[0],
        "kernel_compile_or_load_seconds": compile_seconds,
        "boatzee": _solve("boatzee", args.repeat),
        "yahtzee": _solve("yahtzee", args.repeat),
        "hint": _hints(200),
        "peak_rss_mib": _peak_mib(),
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
