"""bench/compare.py's ``boatzee`` row: the exact solver and hints against ``yatzy-solver``.

Both sides solve the same game, American rules with the forced joker (dicehall's ``yahtzee``
ruleset, against yatzy-solver's ``american+forced-joker``: both give 254.58772873), each in a
fresh process:

- ``solve_peak_rss_mib``: the process's peak resident memory through one solve (imports
  included), Numba's compiled kernels already cached on our side.
- ``solve_cpu_s``: CPU seconds of that solve (every thread).
- ``first_solve_cpu_s``: the first solve after install: ours with an empty Numba cache
  (compilation included), against the peer's solve (it has nothing to compile).
- ``warm_hint_us``: one hint per call, table in memory: ours ranks every choice
  (``boatzee.hints.hint``), the peer's ``option_values`` does the same; the same positions.
- ``hint_command_cpu_s``: the whole ``dicehall hint boatzee ...`` command (table cached in
  the data directory) against a peer script that loads its saved table and answers the
  same query.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dicehall.games.boatzee.scoring import BOXES

#: (filled boxes with points, dice, re-rolls left): ours and the peer's notation of each.
POSITIONS: list[tuple[dict[str, int], tuple[int, ...], int]] = [
    ({}, (1, 1, 2, 3, 4), 2),
    ({"ones": 2, "fives": 15, "full_house": 25}, (1, 1, 2, 3, 4), 2),
    ({"ones": 2, "fives": 15, "full_house": 25}, (2, 2, 5, 6, 6), 1),
    ({"sixes": 24, "chance": 22, "small_straight": 30}, (3, 3, 3, 4, 6), 0),
    ({"twos": 6, "threes": 9, "large_straight": 40, "four_kind": 17}, (1, 4, 4, 5, 6), 2),
]
#: Our box names as the peer spells its categories.
PEER_NAMES = {"four_kind": "four_of_a_kind", "three_kind": "three_of_a_kind"}
#: The upper boxes, whose points make the peer's ``upper`` figure.
UPPER_BOXES = BOXES[:6]

OURS_SOLVE = """
import json, resource, time
from dicehall.games.boatzee.solver import solve
started = time.process_time()
solve("yahtzee")
cpu = time.process_time() - started
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"cpu_s": cpu, "peak_mib": peak}))
"""
PEER_SOLVE = """
import json, resource, time
import yatzy_solver as ys
started = time.process_time()
ys.Solver.build(ys.Variant("american+forced-joker"))
cpu = time.process_time() - started
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"cpu_s": cpu, "peak_mib": peak}))
"""
OURS_HINTS = """
import json, sys, time
from dicehall.games.boatzee.hints import hint, scored_card
from dicehall.games.boatzee.valuation import for_game
positions = json.loads(sys.argv[1])
valuation = for_game(1, "yahtzee")
cards = [(scored_card(s, "yahtzee"), tuple(d), r) for s, d, r in positions]
for card, dice, rolls in cards:
    hint(card, dice, rolls, "yahtzee", valuation)
n = 400
started = time.perf_counter()
for i in range(n):
    card, dice, rolls = cards[i % len(cards)]
    hint(card, dice, rolls, "yahtzee", valuation)
print(json.dumps({"us": (time.perf_counter() - started) / n * 1e6}))
"""
PEER_HINTS = """
import json, sys, time
import yatzy_solver as ys
queries = json.loads(sys.argv[1])
solver = ys.Solver.load(sys.argv[2], ys.Variant("american+forced-joker"))
for q in queries:
    solver.option_values(q)
n = 400
started = time.perf_counter()
for i in range(n):
    solver.option_values(queries[i % len(queries)])
print(json.dumps({"us": (time.perf_counter() - started) / n * 1e6}))
"""
PEER_COMMAND = """
import sys
import yatzy_solver as ys
solver = ys.Solver.load(sys.argv[2], ys.Variant("american+forced-joker"))
for action, value in solver.option_values(sys.argv[1]):
    print(action, value)
"""


def peer_query(scored: dict[str, int], dice: tuple[int, ...], rolls: int) -> str:
    """A position in yatzy-solver's notation."""
    upper = min(63, sum(v for box, v in scored.items() if box in UPPER_BOXES))
    in_card_order = sorted(scored, key=BOXES.index)  # the peer lists them in card order
    filled = ",".join(PEER_NAMES.get(box, box) for box in in_card_order) or "-"
    faces = " ".join(map(str, dice))
    return f"dice {faces} | rolls {rolls} | upper {upper} | filled {filled}"


def row_boatzee(
    rounds: int,
    work: Path,
    peer_python: Path,
    interleaved: Callable[..., tuple[list[Any], list[Any]]],
    ratio: Callable[[float, float], dict[str, float]],
    cpu_of: Callable[..., float],
) -> dict[str, Any]:
    """The Boatzee solver and hints against yatzy-solver's (see the module notes)."""
    scripts = {}
    for name, text in [
        ("ours_solve", OURS_SOLVE),
        ("peer_solve", PEER_SOLVE),
        ("ours_hints", OURS_HINTS),
        ("peer_hints", PEER_HINTS),
        ("peer_command", PEER_COMMAND),
    ]:
        scripts[name] = work / f"{name}.py"
        scripts[name].write_text(textwrap.dedent(text))
    data = work / "boatzee-data"
    env = {**os.environ, "DICEHALL_DATA": str(data)}
    subprocess.run(
        [sys.executable, "-m", "dicehall", "solve", "boatzee", "--ruleset", "yahtzee"],
        env=env,
        stdout=subprocess.DEVNULL,
        check=True,
    )
    peer_table = work / "american.table"
    subprocess.run(
        [
            str(peer_python),
            "-c",
            "import sys, yatzy_solver as ys; ys.Solver.build_table("
            "ys.Variant('american+forced-joker'), sys.argv[1], precision='f64')",
            str(peer_table),
        ],
        check=True,
    )

    def run(python: Path | str, script: str, *args: str, **extra: str) -> dict[str, float]:
        out = subprocess.run(
            [str(python), str(scripts[script]), *args],
            env={**env, **extra},
            capture_output=True,
            text=True,
            check=True,
        )
        found: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
        return found

    def fresh_numba() -> dict[str, float]:
        return run(sys.executable, "ours_solve", NUMBA_CACHE_DIR=tempfile.mkdtemp(dir=work))

    solves = interleaved(
        rounds, lambda: run(sys.executable, "ours_solve"), lambda: run(peer_python, "peer_solve")
    )
    cold, _ = interleaved(rounds, fresh_numba, lambda: None)
    ours_positions = json.dumps([[s, list(d), r] for s, d, r in POSITIONS])
    peer_positions = json.dumps([peer_query(*p) for p in POSITIONS])
    hints = interleaved(
        rounds,
        lambda: run(sys.executable, "ours_hints", ours_positions),
        lambda: run(peer_python, "peer_hints", peer_positions, str(peer_table)),
    )
    scored, dice, rolls = POSITIONS[1]
    ours_command = [sys.executable, "-m", "dicehall", "hint", "boatzee", "--ruleset", "yahtzee"]
    ours_command += ["--dice", ",".join(map(str, dice)), "--rolls-left", str(rolls)]
    ours_command += ["--scored", ",".join(f"{box}={v}" for box, v in scored.items())]
    peer_command = [str(peer_python), str(scripts["peer_command"])]
    peer_command += [peer_query(scored, dice, rolls), str(peer_table)]
    commands = interleaved(
        rounds, lambda: cpu_of(ours_command, env=env), lambda: cpu_of(peer_command)
    )

    def median(rows: list[dict[str, float]], key: str) -> float:
        return statistics.median(row[key] for row in rows)

    ours_solve, peer_solve = solves
    return {
        "solve_peak_rss_mib": ratio(median(ours_solve, "peak_mib"), median(peer_solve, "peak_mib")),
        "solve_cpu_s": ratio(median(ours_solve, "cpu_s"), median(peer_solve, "cpu_s")),
        "first_solve_cpu_s": ratio(median(cold, "cpu_s"), median(peer_solve, "cpu_s")),
        "warm_hint_us": ratio(median(hints[0], "us"), median(hints[1], "us")),
        "hint_command_cpu_s": ratio(statistics.median(commands[0]), statistics.median(commands[1])),
    }
