"""Double and Triple Boatzee: ``strong`` against the solitaire decomposition it improves on,
and an upper bound on what optimal play could score.

Both bots play the same solitaire games (the same seeded dice), so the difference of their
mean scores is measured game by game, with its 95% interval. ``decomposition`` is the
``strong`` of before: each column valued by its own solitaire table. ``--shares`` replays
the choice of :data:`flexible.SPARE_SHARE` (each share on the same games). ``--bound``
solves the relaxation of :mod:`relaxed` (about 1 CPU-minute for Double, 2.5 for Triple) and
states the gap between ``strong`` and the optimum at most. Prints JSON.

    python bench/bench_flex.py                    # 2000 games each, with the bound
    python bench/bench_flex.py --games 500 --no-bound --shares 0.1 0.2 0.3 0.4
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from dicehall import games
from dicehall.engine import Bot, Seeded, play_out
from dicehall.games.boatzee import GAME, BoatzeeOptions
from dicehall.games.boatzee.bots import PlanningBot
from dicehall.games.boatzee.flex_tables import SPARE, flex_table
from dicehall.games.boatzee.flexible import SPARE_SHARE, FlexValuation
from dicehall.games.boatzee.valuation import for_game

#: z for a two-sided 95% interval.
Z95 = 1.959964


def scores(make: Callable[[], Bot], columns: int, seeds: Sequence[int]) -> tuple[Any, float]:
    """Each game's final score, and the CPU seconds they took."""
    started = time.process_time()
    out = []
    for seed in seeds:
        _, result, _ = play_out(GAME, 1, BoatzeeOptions(columns), [make()], Seeded(seed))
        out.append(result.scores[0])
    return np.array(out, dtype=np.float64), time.process_time() - started


def _planner(valuation: FlexValuation) -> Callable[[], Bot]:
    return lambda: PlanningBot(valuation)


def summary(values: Any) -> dict[str, float]:
    """Mean and its 95% interval."""
    mean = float(values.mean())
    half = Z95 * float(values.std(ddof=1)) / math.sqrt(len(values))
    return {"mean": round(mean, 2), "low": round(mean - half, 2), "high": round(mean + half, 2)}


def compare(columns: int, games_each: int, seed: int, shares: Sequence[float]) -> dict[str, Any]:
    """``strong``, the decomposition and any extra shares on the same games."""
    seeds = [random.Random(f"{seed}:{columns}:{i}").getrandbits(63) for i in range(games_each)]
    entry = games.get("boatzee")
    base, base_cpu = scores(lambda: PlanningBot(for_game(columns, "boatzee")), columns, seeds)
    strong, strong_cpu = scores(lambda: entry.bot("strong", random.Random(0)), columns, seeds)
    gain = strong - base
    report: dict[str, Any] = {
        "columns": columns,
        "games": games_each,
        "share": SPARE_SHARE[columns],
        "decomposition": {**summary(base), "cpu_seconds": round(base_cpu, 1)},
        "strong": {**summary(strong), "cpu_seconds": round(strong_cpu, 1)},
        "gain": summary(gain),
        "gain_percent": summary(100 * gain / base.mean()),
    }
    if shares:
        bands = [flex_table(k).bands for k in range(1, columns + 1)]
        swept: dict[str, dict[str, Any]] = {}
        for share in shares:
            if share * 13 * (columns - 1) > SPARE:
                swept[str(share)] = {"skipped": f"needs more than the tables' {SPARE} spare turns"}
                continue
            found, _ = scores(_planner(FlexValuation(bands, share)), columns, seeds)
            swept[str(share)] = summary(found - base)
        report["gain_by_share"] = swept
    return report


def bound(columns: int) -> dict[str, Any]:
    """The relaxation's upper bound and the CPU seconds it took."""
    from dicehall.games.boatzee.relaxed import upper_bound

    started = time.process_time()
    found = upper_bound(columns)
    return {
        "upper_bound": round(found.bound, 2),
        "column_bounds": [round(v, 2) for v in found.column_values],
        "cpu_seconds": round(time.process_time() - started, 1),
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Run the comparison (and the bound) for Double and Triple; print JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000, help="games per bot and form")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--columns", type=int, nargs="+", choices=(2, 3), default=[2, 3])
    parser.add_argument("--shares", type=float, nargs="*", default=[], help="extra shares")
    parser.add_argument("--no-bound", dest="bound", action="store_false", help="skip the bound")
    args = parser.parse_args(argv)
    if args.games < 2:
        parser.error("--games must be at least 2")
    runs = []
    for columns in args.columns:
        report = compare(columns, args.games, args.seed, args.shares)
        if args.bound:
            report["bound"] = bound(columns)
            top = report["bound"]["upper_bound"]
            report["bound"]["strong_within_percent"] = round(
                100 * (top - report["strong"]["mean"]) / top, 2
            )
        runs.append(report)
    print(json.dumps({"game": "boatzee", "ruleset": "boatzee", "runs": runs}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
