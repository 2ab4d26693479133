"""How soon a timeout shows: games whose clocks run out while nobody looks at them.

    python bench/timeouts.py [--games 200] [--db sqlite|postgresql] [--servers 1]

Starts ``dicehall serve`` (one or more processes on one database; with PostgreSQL they
share the local Redis), creates ``--games`` two-person games with a 5-second pace that
nobody moves in, and waits until the sweepers have aborted them all. Prints one JSON object:
the delay from each game's deadline to the moment it was aborted (p50, p99, max, in
seconds; the issue's bar is 5 s), how many timeouts were recorded per game (exactly one),
and the latency of reads made meanwhile.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx2
import psycopg
from sqlalchemy import func, select

from dicehall.server.core.clock import aware
from dicehall.server.core.models import GameRow, SeatTimeout
from dicehall.server.domain.services import Services, build_services

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' live server
from tests.live import LiveServer, add_user
from tests.server.conftest import site_settings

API = "/api/v1"
PACE = {"initial": 5, "increment": 5, "cap": 5}
PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def create_games(servers: list[LiveServer], services: Services, count: int) -> dict[int, datetime]:
    """``count`` two-person games nobody will move in, with each one's deadline."""
    people = [add_user(services, f"p{i}") for i in range(2 * count)]
    ids: dict[int, datetime] = {}
    with httpx2.Client(timeout=30) as client:
        for n in range(count):
            host = servers[n % len(servers)].base
            created = client.post(
                f"{host}{API}/games",
                json={
                    "game": "boss",
                    "seats": ["me", f"p{2 * n + 1}"],
                    "pace": PACE,
                    "vacation": False,
                },
                headers=people[2 * n],
            )
            created.raise_for_status()
            game_id = created.json()["id"]
            accepted = client.post(f"{host}{API}/games/{game_id}/accept", headers=people[2 * n + 1])
            accepted.raise_for_status()
            running = [c for c in accepted.json()["clock"]["seats"] if c["running"]]
            ids[game_id] = datetime.fromisoformat(running[0]["deadline"])
    return ids


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--db", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--servers", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        name = f"dicehall_bench_{uuid.uuid4().hex[:8]}"
        if args.db == "sqlite":
            url, redis = f"sqlite:///{workdir}/bench.sqlite3", None
        else:
            with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
                conn.execute(f'CREATE DATABASE "{name}"')
            url, redis = f"postgresql://postgres@127.0.0.1:5432/{name}", "redis://127.0.0.1:6379/0"
        services = build_services(site_settings(url))
        servers = [LiveServer(url, redis_url=redis) for _ in range(args.servers)]
        try:
            for server in servers:
                server.start(timeout=60)
            ids = create_games(servers, services, args.games)
            reads: list[float] = []
            deadline = time.monotonic() + 120
            with httpx2.Client(timeout=30) as client:
                while time.monotonic() < deadline:
                    started = time.perf_counter()
                    client.get(f"{servers[0].base}{API}/games/open").raise_for_status()
                    reads.append(time.perf_counter() - started)
                    with services.sessions() as db:
                        left = db.scalar(
                            select(func.count())
                            .select_from(GameRow)
                            .where(GameRow.id.in_(ids), GameRow.status == "active")
                        )
                    if not left:
                        break
                    time.sleep(0.1)
            report = measure(services, ids)
            report.update(
                games=args.games,
                db=args.db,
                servers=args.servers,
                read_ms={
                    "p50": round(1000 * statistics.median(reads), 1),
                    "p99": round(1000 * percentile(reads, 0.99), 1),
                },
            )
            print(json.dumps(report))
        finally:
            for server in servers:
                server.stop()
            services.engine.dispose()
            if args.db == "postgresql":
                with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
                    conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def measure(services: Services, ids: dict[int, datetime]) -> dict[str, Any]:
    """Each game's delay from its deadline to its abort, and the timeouts recorded."""
    with services.sessions() as db:
        rows = db.execute(
            select(GameRow.id, GameRow.status, GameRow.ended_at).where(GameRow.id.in_(ids))
        ).all()
        counts = dict(
            db.execute(
                select(SeatTimeout.game_id, func.count())
                .where(SeatTimeout.game_id.in_(ids))
                .group_by(SeatTimeout.game_id)
            ).all()
        )
    delays = []
    for row in rows:
        if row.status != "aborted" or row.ended_at is None:
            continue
        delays.append((aware(row.ended_at) - ids[row.id]).total_seconds())
    return {
        "aborted": len(delays),
        "delay_s": {
            "p50": round(statistics.median(delays), 2),
            "p99": round(percentile(delays, 0.99), 2),
            "max": round(max(delays), 2),
        }
        if delays
        else None,
        "timeouts_per_game": sorted(set(counts.get(i, 0) for i in ids)),
    }


if __name__ == "__main__":
    main()
