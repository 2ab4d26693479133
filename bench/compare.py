"""dicehall side by side with its peers and with the floor of its own stack.

    python bench/compare.py [--rounds 5] [--rows help,serve,...] [--keep-venv DIR]

Each row runs both sides in fresh processes, interleaved (ours, theirs, ours, ...), for
``--rounds`` rounds, and reports the medians and their ratio (ours / theirs: below 1 is
better, except where more is better, as said). Peers from PyPI (``phevaluator``,
``farkle-simulation``, ``yatzy-solver``) go into a throwaway virtual environment this
script creates (or ``--keep-venv DIR``, made once and reused). Prints one JSON object with
the machine's load average at the start and at the end.

Rows:

- ``help``: CPU seconds of ``dicehall --help`` against a minimal Typer app's ``--help``.
- ``serve``: seconds from launch to the first 200 of ``dicehall serve`` (on a migrated
  SQLite file) against a one-route FastAPI app under uvicorn, and each one's resident
  memory once idle: the web process alone, and with its bot worker processes.
- ``holdem``: microseconds to rank the best five of seven dice, one hand per call, from the
  dice as text (``fastrank``) against ``phevaluator.evaluate_cards`` on seven cards as text
  (the same operation on 52 cards), and the site's showdown step (the best hand and which
  five) against the readable reference.
- ``tenthousand``: Ten Thousand games simulated per CPU-second (``dicehall sim``'s loop,
  heuristic against heuristic, which plays them by the game's ``fast_play``) against
  farkle-simulation's ``simulate_game`` with its naive strategies (its printing sent
  nowhere).
- ``boatzee``: the exact solver's peak memory and CPU, the first solve after install, a warm
  hint and the whole ``dicehall hint boatzee`` command against ``yatzy-solver``
  (``bench/compare_boatzee.py``).

The move path against a no-op POST and a one-INSERT transaction is ``bench/floor.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx2

ROOT = Path(__file__).resolve().parents[1]
ROWS = ("help", "serve", "holdem", "tenthousand", "boatzee")
sys.path.insert(0, str(ROOT))  # the tests' live server and SQLite template
from tests.live import free_port  # noqa: E402

from bench.compare_boatzee import row_boatzee  # noqa: E402

#: The Boatzee row's peer (see bench/compare_boatzee.py).
PEER_YATZY = "yatzy-solver"

MINIMAL_TYPER = """
import typer
app = typer.Typer(help="A minimal app.")
@app.command()
def hello(name: str) -> None:
    '''Say hello.'''
    print(name)
@app.command()
def bye() -> None:
    '''Say goodbye.'''
if __name__ == "__main__":
    app()
"""
MINIMAL_FASTAPI = """
from fastapi import FastAPI
app = FastAPI()
@app.get("/")
def root() -> dict[str, str]:
    return {}
"""
OURS_HOLDEM = """
import json, timeit
from dicehall.games.holdem import fastrank
from dicehall.games.holdem.ranking import best_hand
fastrank.warm()
hand = ["1r", "2k", "3w", "4y", "5r", "6k", "1w"]
n = 200_000
one = timeit.timeit(lambda: fastrank.dense_rank([fastrank.kind_of(d) for d in hand]), number=n)
fast = timeit.timeit(lambda: fastrank.best_hand(hand), number=20_000) / 20_000
ref = timeit.timeit(lambda: best_hand(hand), number=2_000) / 2_000
print(json.dumps({"one_us": one / n * 1e6, "showdown_us": fast * 1e6, "reference_us": ref * 1e6}))
"""
OURS_SIM = """
import json, time
from dicehall import games
from dicehall.cli.sim import simulate
entry = games.get("tenthousand")
simulate(entry, ["heuristic", "heuristic"], 20, 1, entry.game.options(), progress=False)
started = time.process_time()
simulate(entry, ["heuristic", "heuristic"], 1000, 7, entry.game.options(), progress=False)
print(json.dumps({"games_per_cpu_s": 1000 / (time.process_time() - started)}))
"""
PEER_SIM = """
import contextlib, io, json, time
from farkle_simulation.components.simulation import simulate_game
from farkle_simulation.components.strategy import NaiveStrategy
started = time.process_time()
with contextlib.redirect_stdout(io.StringIO()):  # its strategies print every roll
    for _ in range(1000):
        simulate_game(NaiveStrategy(), NaiveStrategy(), train=True)
print(json.dumps({"games_per_cpu_s": 1000 / (time.process_time() - started)}))
"""
PEER_HOLDEM = """
import json, timeit
from phevaluator import evaluate_cards
n = 200_000
one = timeit.timeit(lambda: evaluate_cards("9c", "4c", "4s", "9d", "4h", "Qc", "6c"), number=n)
print(json.dumps({"one_us": one / n * 1e6}))
"""


def cpu_of(args: list[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> float:
    """CPU seconds (user + system) of a command run to its end."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(args, cwd=cwd, env=env, stdout=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def tree_rss_mib(pid: int, children: bool = True) -> float:
    """Resident memory of a process (and its children), in MiB."""
    out = subprocess.run(["ps", "-e", "-o", "pid=,ppid=,rss="], capture_output=True, text=True)
    rows = [tuple(int(x) for x in line.split()) for line in out.stdout.splitlines()]
    family, total, grew = {pid}, 0, True
    while grew and children:
        grew = False
        for child, parent, _ in rows:
            if parent in family and child not in family:
                family.add(child)
                grew = True
    total = sum(rss for child, _, rss in rows if child in family)
    return total / 1024


def first_200(args: list[str], url: str, env: dict[str, str]) -> tuple[float, float, float]:
    """Seconds from launch to the first 200 at ``url``, and the idle web process's RSS and
    its whole tree's (MiB)."""
    started = time.monotonic()
    process = subprocess.Popen(
        args,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"{args[:4]} exited early")
            try:
                if httpx2.get(url, timeout=1).status_code == 200:
                    break
            except httpx2.HTTPError:
                pass
            time.sleep(0.01)
        took = time.monotonic() - started
        time.sleep(2)  # idle: background start-up work done
        return took, tree_rss_mib(process.pid, children=False), tree_rss_mib(process.pid)
    finally:
        process.terminate()
        process.wait(timeout=10)


def interleaved(
    rounds: int, ours: Callable[[], Any], theirs: Callable[[], Any]
) -> tuple[list[Any], list[Any]]:
    """Both sides, alternating, ``rounds`` times each."""
    a: list[Any] = []
    b: list[Any] = []
    for _ in range(rounds):
        a.append(ours())
        b.append(theirs())
    return a, b


def ratio(ours: float, theirs: float) -> dict[str, float]:
    """Medians and ours / theirs."""
    return {"ours": round(ours, 4), "theirs": round(theirs, 4), "ratio": round(ours / theirs, 2)}


def row_help(rounds: int, work: Path) -> dict[str, Any]:
    """``dicehall --help`` CPU against a minimal Typer app's."""
    script = work / "minimal_typer.py"
    script.write_text(MINIMAL_TYPER)
    ours, theirs = interleaved(
        rounds,
        lambda: cpu_of([sys.executable, "-m", "dicehall", "--help"]),
        lambda: cpu_of([sys.executable, str(script), "--help"]),
    )
    return {"cpu_s": ratio(statistics.median(ours), statistics.median(theirs))}


def row_serve(rounds: int, work: Path) -> dict[str, Any]:
    """``dicehall serve`` to its first 200 and idle RSS, against a minimal FastAPI app."""
    from tests.sqlite_template import migrated_sqlite

    (work / "minimal_app.py").write_text(MINIMAL_FASTAPI)
    env = {**os.environ, "DICEHALL_ACCESS_LOG": "0", "DICEHALL_TOURNAMENT_SCHEDULE": ""}

    def ours() -> tuple[float, float, float]:
        folder = Path(tempfile.mkdtemp(dir=work))
        port = free_port()
        db = migrated_sqlite(folder / "site.sqlite3")
        args = [sys.executable, "-m", "dicehall", "serve", "--db", db, "--port", str(port)]
        return first_200(args, f"http://127.0.0.1:{port}/api/v1/games/kinds", env)

    def theirs() -> tuple[float, float, float]:
        port = free_port()
        args = [sys.executable, "-m", "uvicorn", "--app-dir", str(work), "minimal_app:app"]
        args += ["--port", str(port), "--log-level", "warning"]
        return first_200(args, f"http://127.0.0.1:{port}/", env)

    a, b = interleaved(rounds, ours, theirs)

    def column(rows: list[tuple[float, float, float]], i: int) -> float:
        return statistics.median(row[i] for row in rows)

    return {
        "first_200_s": ratio(column(a, 0), column(b, 0)),
        "idle_rss_mib_web_process": ratio(column(a, 1), column(b, 1)),
        # With the bot worker process, which loads the solvers and warms their tables.
        "idle_rss_mib_with_workers": ratio(column(a, 2), column(b, 2)),
    }


def peer_venv(keep: Path | None, packages: list[str]) -> Path:
    """A virtual environment with the peers installed (made now, or reused from ``keep``)."""
    folder = keep or Path(tempfile.mkdtemp(prefix="dicehall-peers-"))
    python = folder / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", *packages], check=True)
    return python


def row_holdem(rounds: int, work: Path, peer_python: Path) -> dict[str, Any]:
    """One best-of-seven rank per call, against phevaluator's."""
    ours_script, peer_script = work / "ours_holdem.py", work / "peer_holdem.py"
    ours_script.write_text(textwrap.dedent(OURS_HOLDEM))
    peer_script.write_text(textwrap.dedent(PEER_HOLDEM))

    def run(python: Path | str, script: Path) -> dict[str, float]:
        out = subprocess.run([str(python), str(script)], capture_output=True, text=True, check=True)
        found: dict[str, float] = json.loads(out.stdout)
        return found

    a, b = interleaved(
        rounds, lambda: run(sys.executable, ours_script), lambda: run(peer_python, peer_script)
    )
    return {
        "one_hand_us": ratio(
            statistics.median(x["one_us"] for x in a), statistics.median(x["one_us"] for x in b)
        ),
        "showdown_best_hand_us": ratio(
            statistics.median(x["showdown_us"] for x in a),
            statistics.median(x["reference_us"] for x in a),
        ),
    }


def row_tenthousand(rounds: int, work: Path, peer_python: Path) -> dict[str, Any]:
    """Ten Thousand games simulated per CPU-second against farkle-simulation's."""
    ours_script, peer_script = work / "ours_sim.py", work / "peer_sim.py"
    ours_script.write_text(textwrap.dedent(OURS_SIM))
    peer_script.write_text(textwrap.dedent(PEER_SIM))

    def run(python: Path | str, script: Path) -> float:
        out = subprocess.run([str(python), str(script)], capture_output=True, text=True, check=True)
        return float(json.loads(out.stdout.strip().splitlines()[-1])["games_per_cpu_s"])

    a, b = interleaved(
        rounds, lambda: run(sys.executable, ours_script), lambda: run(peer_python, peer_script)
    )
    # Higher is better here: the ratio is ours / theirs all the same (target >= 2).
    return {"games_per_cpu_s": ratio(statistics.median(a), statistics.median(b))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--rows", default=",".join(ROWS))
    parser.add_argument("--keep-venv", type=Path, default=None)
    args = parser.parse_args()
    rows = [r.strip() for r in args.rows.split(",") if r.strip()]
    unknown = set(rows) - set(ROWS)
    if unknown:
        parser.error(f"unknown rows: {', '.join(sorted(unknown))} ({', '.join(ROWS)})")
    result: dict[str, Any] = {"load_at_start": os.getloadavg(), "rounds": args.rounds}
    # An installed wheel's bytecode is compiled when it is installed, as the peers' is; an
    # editable checkout's is not (and PYTHONDONTWRITEBYTECODE keeps it so), which would
    # charge every start-up row with compiling the package.
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "src")], check=True)
    with tempfile.TemporaryDirectory(prefix="dicehall-compare-") as tmp:
        work = Path(tmp)
        if "help" in rows:
            result["help"] = row_help(args.rounds, work)
        if "serve" in rows:
            result["serve"] = row_serve(args.rounds, work)
        if {"holdem", "tenthousand", "boatzee"} & set(rows):
            python = peer_venv(args.keep_venv, ["phevaluator", "farkle-simulation", PEER_YATZY])
            if "holdem" in rows:
                result["holdem"] = row_holdem(args.rounds, work, python)
            if "tenthousand" in rows:
                result["tenthousand"] = row_tenthousand(args.rounds, work, python)
            if "boatzee" in rows:
                result["boatzee"] = row_boatzee(
                    args.rounds, work, python, interleaved, ratio, cpu_of
                )
    result["load_at_end"] = os.getloadavg()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
