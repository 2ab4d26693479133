"""Two-seat Boatzee: ``winmax`` against ``optimal`` head to head; prints one JSON object.

``winmax`` plays each seat in turn for ``--games`` seeded games (so ``2 x --games`` in all),
``optimal`` the other seat. Reported: ``winmax``'s share of the games (a tie counts half)
with the 95% Wilson interval, its share as the first and as the second seat, both bots'
mean scores with 95% intervals (playing to win costs points), the share of ties, and the
CPU time. The solved table and the final-score distributions are built on first use (about
20 s, then cached). Run: ``.venv/bin/python bench/bench_boatzee_winmax.py [--games 10000]``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time
from typing import Any

from dicehall import games
from dicehall.cli.sim import SeatStats, simulate, wilson_interval
from dicehall.games.boatzee.final_scores import final_scores
from dicehall.games.boatzee.rules import BoatzeeOptions


def _mean(stats: list[SeatStats], games_played: int) -> dict[str, Any]:
    total = sum(s.score_sum for s in stats)
    square = sum(s.score_sq for s in stats)
    mean = total / games_played
    half = 1.96 * math.sqrt(max(0.0, square / games_played - mean**2) / games_played)
    return {"mean": round(mean, 2), "mean_95": [round(mean - half, 2), round(mean + half, 2)]}


def main() -> None:
    """Play both seatings and print the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=10_000, help="games per seating")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    started = time.process_time()
    final_scores()  # built (or read) once, outside the timed games
    ready = time.process_time()
    entry = games.get("boatzee")
    mine: list[SeatStats] = []
    theirs: list[SeatStats] = []
    by_seat: dict[str, Any] = {}
    ties = 0.0
    for seat in (0, 1):
        line_up = ["optimal", "optimal"]
        line_up[seat] = "winmax"
        report = simulate(
            entry, line_up, args.games, args.seed + seat, BoatzeeOptions(), progress=False
        )
        mine.append(report.seats[seat])
        theirs.append(report.seats[1 - seat])
        # A game counts 1, 0 or (a tie) 0.5: the sum less the sum of squares is a quarter a tie.
        ties += 4 * (report.seats[seat].wins - report.seats[seat].wins_sq)
        share = report.seats[seat].wins / args.games
        by_seat[f"seat_{seat + 1}"] = {
            "win_share": round(share, 4),
            "win_share_95": [round(x, 4) for x in wilson_interval(share, args.games)],
        }
    played = 2 * args.games
    share = sum(s.wins for s in mine) / played
    result = {
        "benchmark": "boatzee_winmax_vs_optimal",
        "games": played,
        "win_share": round(share, 4),
        "win_share_95": [round(x, 4) for x in wilson_interval(share, played)],
        "by_seat": by_seat,
        "tie_share": round(ties / played, 4),
        "winmax_score": _mean(mine, played),
        "optimal_score": _mean(theirs, played),
        "table_cpu_seconds": round(ready - started, 1),
        "cpu_seconds": round(time.process_time() - ready, 1),
        "load": os.getloadavg()[0],
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
