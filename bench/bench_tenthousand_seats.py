"""Ten Thousand with 3 and 4 seats: each bot alone against a table of ``max_expected``;
prints one JSON object.

For each seat count and each candidate (``optimal``, which plays the exact two-seat tables
against the current leader, ``max_expected`` as the control, ``heuristic``), the candidate
sits in every seat in turn, ``--games`` games per seating, the other seats ``max_expected``.
Reported: its share of the wins (a shared win split) with the 95% Wilson interval, against
the fair share 1 / seats, and the CPU time. The duel tables are solved on first use (about
20 s, then cached). Run: ``.venv/bin/python bench/bench_tenthousand_seats.py [--games 2000]``.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from typing import Any

from dicehall import games
from dicehall.cli.sim import simulate, wilson_interval
from dicehall.games.tenthousand.rules import TenThousandOptions

CANDIDATES = ("optimal", "max_expected", "heuristic")
FIELD = "max_expected"


def measure(seats: int, candidate: str, games_per_seat: int, seed: int) -> dict[str, Any]:
    """The candidate's win share over every seating."""
    entry = games.get("tenthousand")
    options = TenThousandOptions()
    wins = 0.0
    for seat in range(seats):
        line_up = [FIELD] * seats
        line_up[seat] = candidate
        report = simulate(entry, line_up, games_per_seat, seed + seat, options, progress=False)
        wins += report.seats[seat].wins
    played = seats * games_per_seat
    share = wins / played
    low, high = wilson_interval(share, played)
    return {"games": played, "win_share": share, "win_share_95": [low, high], "fair": 1 / seats}


def main() -> None:
    """Measure every seat count and candidate, and print the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=2000, help="games per seating")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    started = time.process_time()
    result: dict[str, Any] = {"benchmark": "tenthousand_three_and_four_seats", "field": FIELD}
    for seats in (3, 4):
        for candidate in CANDIDATES:
            result[f"{seats}_seats_{candidate}"] = measure(seats, candidate, args.games, args.seed)
    result["cpu_seconds"] = round(time.process_time() - started, 1)
    result["load"] = os.getloadavg()[0]
    print(json.dumps(result))


if __name__ == "__main__":
    main()
