"""The site's move path against the floor of its own stack; prints one JSON object.

    python bench/floor.py [--db sqlite|postgresql] [--clients 16] [--seconds 10]

Three servers, one after the other, each one uvicorn worker on loopback, loaded by the same
number of aiohttp clients for the same time:

- ``site``: ``dicehall serve``, clients playing Ten Thousand (bench/load.py's load: every
  move a POST with the expected version, plus the reads and new games that play needs);
- ``noop``: a FastAPI POST that parses a move-shaped body and answers ``{}``;
- ``insert``: the same POST running one INSERT in a SQLAlchemy transaction on the same
  database kind.

For each: requests per second, the server's CPU milliseconds per request (its whole process
group, from ``/proc``), and the latency. The site's ratios are its moves per second against
the floors' requests per second, and its CPU per move (every request it served, reads and
new games included, charged to the moves) against theirs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp
import httpx2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.live import LiveServer, add_user, free_port  # noqa: E402

from bench.load import Tally, database, run_clients  # noqa: E402
from dicehall.server.core.config import Settings  # noqa: E402
from dicehall.server.domain.services import build_services  # noqa: E402

BODY = {"action": {"type": "set_aside", "dice": [1, 5]}, "expected_version": 7}
TICKS = os.sysconf("SC_CLK_TCK")


def group_cpu_s(group: int) -> float:
    """CPU seconds (user + system) used so far by every live process in a process group."""
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == group:  # pgrp
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / TICKS


async def hammer(base: str, clients: int, seconds: float) -> Tally:
    """``clients`` loops POSTing a move-shaped body until the deadline."""
    tally = Tally()
    deadline = time.monotonic() + seconds
    connector = aiohttp.TCPConnector(limit=clients)
    headers = {"Authorization": "Bearer floor-token-of-a-usual-length-0123456789"}
    async with aiohttp.ClientSession(base, connector=connector) as client:

        async def one() -> None:
            while time.monotonic() < deadline:
                started = time.perf_counter()
                async with client.post("/move", json=BODY, headers=headers) as answer:
                    await answer.read()
                    if answer.status != 200:
                        tally.errors += 1
                        continue
                tally.latencies.append(time.perf_counter() - started)
                tally.moves += 1

        await asyncio.gather(*(one() for _ in range(clients)))
    return tally


def floor_server(app: str, env: dict[str, str]) -> tuple[subprocess.Popen[bytes], str]:
    """A floor app under uvicorn, answering."""
    port = free_port()
    args = [sys.executable, "-m", "uvicorn", "--factory", f"bench.floor_apps:{app}"]
    args += ["--port", str(port), "--log-level", "warning", "--no-access-log"]
    process = subprocess.Popen(args, cwd=ROOT, env=env, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            httpx2.post(f"{base}/move", json=BODY, timeout=1)
            return process, base
        except httpx2.HTTPError:
            time.sleep(0.05)
    process.kill()
    raise RuntimeError(f"the {app} floor did not start")


def summary(tally: Tally, cpu: float, seconds: float, requests: int) -> dict[str, Any]:
    """Rate, CPU per request and latency of one run."""
    lat = sorted(tally.latencies) or [0.0]
    return {
        "per_s": round(tally.moves / seconds, 1),
        "requests": requests,
        "cpu_ms_per": round(1000 * cpu / max(1, tally.moves), 3),
        "p50_ms": round(1000 * statistics.median(lat), 2),
        "p99_ms": round(1000 * lat[min(len(lat) - 1, int(0.99 * len(lat)))], 2),
        "errors": tally.errors,
    }


def run_site(url: str, clients: int, seconds: float) -> dict[str, Any]:
    """The site under bench/load.py's play."""
    server = LiveServer(url)
    server.start()
    services = build_services(Settings(db_url=url))
    try:
        users = [(f"floor{i}", add_user(services, f"floor{i}")) for i in range(clients)]
        assert server.process is not None
        before = group_cpu_s(server.process.pid)
        tally = asyncio.run(run_clients(server.base, users, "tenthousand", seconds))
        cpu = group_cpu_s(server.process.pid) - before
    finally:
        server.stop()
        services.engine.dispose()
    requests = tally.moves + tally.reads + 2 * tally.finished
    return summary(tally, cpu, seconds, requests)


def run_floor(app: str, url: str, clients: int, seconds: float) -> dict[str, Any]:
    """One floor app under the same number of clients."""
    env = {**os.environ, "FLOOR_DB_URL": url, "PYTHONPATH": str(ROOT)}
    process, base = floor_server(app, env)
    try:
        before = group_cpu_s(process.pid)
        tally = asyncio.run(hammer(base, clients, seconds))
        cpu = group_cpu_s(process.pid) - before
    finally:
        process.terminate()
        process.wait(timeout=10)
    return summary(tally, cpu, seconds, tally.moves)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", default="sqlite", choices=["sqlite", "postgresql"])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    result: dict[str, Any] = {"db": args.db, "load_at_start": os.getloadavg()}
    with tempfile.TemporaryDirectory() as work:
        site_url, drop_site = database(args.db, work)
        floor_url, drop_floor = database(args.db, work + "/floor")
        if args.db == "sqlite":
            Path(work, "floor").mkdir()
            floor_url = f"sqlite:///{work}/floor/floor.sqlite3"
        try:
            result["site"] = run_site(site_url, args.clients, args.seconds)
            result["noop"] = run_floor("noop", floor_url, args.clients, args.seconds)
            result["insert"] = run_floor("insert", floor_url, args.clients, args.seconds)
        finally:
            drop_site()
            drop_floor()
    site, noop, insert = result["site"], result["noop"], result["insert"]
    result["site_moves_per_s_over_noop"] = round(site["per_s"] / noop["per_s"], 3)
    result["site_moves_per_s_over_insert"] = round(site["per_s"] / insert["per_s"], 3)
    result["site_cpu_per_move_over_insert"] = round(
        site["cpu_ms_per"] / max(insert["cpu_ms_per"], 1e-9), 2
    )
    result["load_at_end"] = os.getloadavg()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
