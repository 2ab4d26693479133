"""OpenSpiel's CFR on Boss Dice's public states against the exact LP equilibrium; prints JSON.

Draws ``--states`` public states by their chance in a hand, runs CFR for ``--iterations``
on each state's game (:mod:`dicehall.rl.openspiel_boss`) and reports, over them: the
largest gap between CFR's value for the Boss and the LP's, the largest exploitability of
CFR's average policy and of the LP's own strategies (both as OpenSpiel measures them), and
the chance-weighted Boss value of the sample against the hand's 0.738746.
Run: ``.venv/bin/python bench/bench_boss_cfr.py [--states 20] [--iterations 300]``.
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

from dicehall.games.boss.equilibrium_store import load_or_solve
from dicehall.rl.openspiel_boss import compare_with_lp


def main() -> None:
    """Compare and print the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--states", type=int, default=20)
    parser.add_argument("--iterations", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    equilibrium, _ = load_or_solve()
    chances = equilibrium.game.prob / equilibrium.game.prob.sum()
    rng = np.random.default_rng(args.seed)
    states = rng.choice(len(chances), size=args.states, p=chances, replace=False)
    started = time.process_time()
    found = [compare_with_lp(equilibrium, int(s), args.iterations) for s in states]
    weights = chances[states] / chances[states].sum()
    print(
        json.dumps(
            {
                "benchmark": "boss_cfr_against_lp",
                "states": args.states,
                "iterations": args.iterations,
                "max_value_gap": max(abs(a.cfr_value - a.lp_value) for a in found),
                "mean_value_gap": float(np.mean([abs(a.cfr_value - a.lp_value) for a in found])),
                "max_cfr_exploitability": max(a.cfr_exploitability for a in found),
                "max_lp_exploitability": max(a.lp_exploitability for a in found),
                "sample_lp_value": float(weights @ [a.lp_value for a in found]),
                "sample_cfr_value": float(weights @ [a.cfr_value for a in found]),
                "hand_lp_value": equilibrium.report().boss_value,
                "cpu_seconds": round(time.process_time() - started, 1),
                "load": os.getloadavg()[0],
            }
        )
    )


if __name__ == "__main__":
    main()
