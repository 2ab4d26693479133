"""CPU per move with 1, 2 and 4 web workers, interleaved; prints one JSON object.

    python bench/web_workers.py [--db sqlite|postgresql] [--workers 1,2,4] [--rounds 3]
                                [--seconds 6] [--clients 16] [--warmup 1]

One ``dicehall serve --workers N`` per N (``tests.live.LiveServer``), each on a fresh
database of its own (on PostgreSQL with Redis, as in production), all started up front.
Each round loads them one after another with the same clients playing Ten Thousand
(bench/floor.py's ``play``: every move a POST with the expected version, plus the reads and
new games play needs), ``--seconds`` each; the order rotates every round. Only a server's
own load counts: its whole process group's CPU (bench/floor.py's ``measure``: the uvicorn
supervisor and workers) and, on PostgreSQL, its database's backends.

Per server, the medians of the rounds (bench/floor.py's ``summary``); and
``cpu_per_move_over_one_worker`` (web CPU, and web + backends on PostgreSQL) for each N,
with each round's. The issue's target: within +10% (<= 1.10) of one worker.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import psycopg

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.live import LiveServer, add_user  # noqa: E402

from bench.floor import (  # noqa: E402
    REDIS_DB,
    Server,
    datname,
    flush_redis,
    measure,
    medians,
    play,
    postmaster_of,
    summary,
)
from bench.load import PG_ADMIN, database  # noqa: E402
from dicehall.server.core.config import Settings  # noqa: E402
from dicehall.server.domain.services import build_services  # noqa: E402

TARGET = 1.10


def over(value: float | None, base: float | None) -> float | None:
    return None if value is None or not base else round(value / base, 3)


def bench(args: argparse.Namespace, work: str, result: dict[str, Any]) -> None:
    counts = [int(n) for n in args.workers.split(",")]
    redis = f"redis://127.0.0.1:6379/{REDIS_DB}" if args.db == "postgresql" else None
    if redis is not None:
        flush_redis(redis)
    admin = psycopg.connect(PG_ADMIN, autocommit=True) if args.db == "postgresql" else None
    postmaster = postmaster_of(admin) if admin is not None else 0
    sites: dict[int, LiveServer] = {}
    servers: dict[int, Server] = {}
    drops = []
    try:
        for n in counts:
            url, drop = database(args.db, f"{work}/w{n}")
            drops.append(drop)
            if args.db == "sqlite":
                os.makedirs(f"{work}/w{n}", exist_ok=True)
                url = f"sqlite:///{work}/w{n}/site.sqlite3"
            site = LiveServer(url, redis, workers=n)
            site.start(timeout=120)
            sites[n] = site
            services = build_services(Settings(db_url=url))
            try:
                users = [(f"w{i}", add_user(services, f"w{i}")) for i in range(args.clients)]
            finally:
                services.engine.dispose()
            assert site.process is not None

            def run(seconds: float, base: str = site.base, users: Any = users) -> Any:
                return asyncio.run(play(base, users, seconds))

            servers[n] = Server(f"workers={n}", site.process.pid, site.base, run, datname(url))
        if args.warmup > 0:
            for server in servers.values():
                server.run(args.warmup)
        detail: list[dict[str, Any]] = []
        for index in range(args.rounds):
            shift = index % len(counts)
            order = counts[shift:] + counts[:shift]
            got = {
                n: summary("site", measure(servers[n], args.seconds, admin, postmaster))
                for n in order
            }
            detail.append({"round": index + 1, "order": order, **{str(n): got[n] for n in counts}})
        base_n = counts[0]
        for n in counts:
            result[f"workers_{n}"] = medians([r[str(n)] for r in detail])
        one = result[f"workers_{base_n}"]
        result["cpu_per_move_over_one_worker"] = {
            str(n): {
                "web": over(result[f"workers_{n}"]["cpu_ms_per_move"], one["cpu_ms_per_move"]),
                "total": over(result[f"workers_{n}"]["total_cpu_ms_per"], one["total_cpu_ms_per"]),
                "per_round_web": [
                    over(r[str(n)]["cpu_ms_per_move"], r[str(base_n)]["cpu_ms_per_move"])
                    for r in detail
                ],
            }
            for n in counts
        }
        worst = max(
            (v["total"] or v["web"] or 0.0) for v in result["cpu_per_move_over_one_worker"].values()
        )
        result["target"] = TARGET
        result["met"] = worst <= TARGET
        result["rounds_detail"] = detail
    finally:
        for site in sites.values():
            site.stop()
        if admin is not None:
            admin.close()
        for drop in drops:
            drop()
        if redis is not None:
            flush_redis(redis)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--db", default="sqlite", choices=["sqlite", "postgresql"])
    parser.add_argument("--workers", default="1,2,4", help="comma-separated, the first is the base")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--warmup", type=float, default=1.0)
    args = parser.parse_args()
    result: dict[str, Any] = {
        "db": args.db,
        "workers": args.workers,
        "rounds": args.rounds,
        "seconds": args.seconds,
        "clients": args.clients,
        "cpus": os.cpu_count(),
        "load_at_start": os.getloadavg(),
    }
    with tempfile.TemporaryDirectory() as work:
        bench(args, work, result)
    result["load_at_end"] = os.getloadavg()
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
