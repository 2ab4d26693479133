"""Bot moves per second with one worker node against two, on PostgreSQL; prints one JSON object.

    python bench/worker_nodes.py [--rounds 3] [--games 64] [--bot-workers 1]
                                 [--game bullseye] [--bot optimal] [--timeout 300]

One web node (``dicehall serve --no-background``, Redis for pushes) serves the requests that
set games up; the background work runs on ``dicehall worker`` processes only: one node in
one configuration, two in the other, each with ``--bot-workers`` bot processes, each in a
session of its own. The configurations alternate (1, 2, then 2, 1, ... so neither always
goes first). In each round:

1. ``--games`` games of ``--game`` are made, a person and two of the slow ``--bot``, and the
   person resigns at once: from then on only bots play (the autopilot takes the seat), so
   every move is background work. No worker node runs yet, and the web node plays none;
2. the round's worker nodes start (``DICEHALL_WARM_BOTS=0``: each builds the bot's tables
   at its first decision, as a node added to a running site does), and the clock starts
   when the last says it runs;
3. the bench waits until every game of the batch has finished and counts the batch's
   ``acted`` events (every one a bot's move) over that time, and the CPU (user + system,
   from ``/proc``) of every process of the worker nodes (bot processes included) and of the
   PostgreSQL backends connected to the database (sampled every half second from
   ``pg_stat_activity``; a backend that exits between samples is not counted, so the
   backend figure is a floor);
4. the worker nodes are stopped (SIGTERM).

Reported per configuration (medians of the rounds): ``bot_moves_per_s``,
``worker_cpu_ms_per_move``, ``backend_cpu_ms_per_move``; and ``speedup`` = moves/s with two
nodes over one (target ``>= 1.7``), with each round's. The web node, PostgreSQL and the
bench itself share the machine's cores with the workers: where one node already keeps every
core busy, a second adds contention, not work, and the CPU per move says so.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import httpx2
import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' live server
from tests.live import LiveServer, LiveWorker, add_user
from tests.server.conftest import site_settings

from dicehall.server.domain.services import Services, build_services

API = "/api/v1"
PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
REDIS = "redis://127.0.0.1:6379/0"
TICKS = os.sysconf("SC_CLK_TCK")


def tree_cpu_s(root: int) -> float:
    """CPU seconds (user + system) of ``root`` and every live process in its session."""
    total = 0.0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # After the name: state(0) ppid(1) pgrp(2) session(3) ... utime(11) stime(12)
        if int(fields[3]) == root:
            total += (int(fields[11]) + int(fields[12])) / TICKS
    return total


def backend_pids(conn: psycopg.Connection[Any], database: str) -> set[int]:
    rows = conn.execute(
        "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
        (database,),
    ).fetchall()
    return {int(row[0]) for row in rows}


def pid_cpu_s(pid: int) -> float | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / TICKS


def bot_games(server: LiveServer, services: Services, game: str, bot: str, count: int) -> list[int]:
    """``count`` games of a person and two ``bot``s, the person resigned: bots only (each
    made by a fresh person, so no quota of games per person stands in the way)."""
    ids = []
    with httpx2.Client(base_url=server.base, timeout=60) as client:
        for _ in range(count):
            headers = add_user(services, f"p{uuid.uuid4().hex[:12]}")
            made = client.post(
                f"{API}/games",
                json={"game": game, "seats": ["me", f"bot:{bot}", f"bot:{bot}"]},
                headers=headers,
            )
            made.raise_for_status()
            game_id = made.json()["id"]
            for _attempt in range(50):
                version = client.get(f"{API}/games/{game_id}", headers=headers).json()["version"]
                resigned = client.post(
                    f"{API}/games/{game_id}/resign",
                    json={"expected_version": version},
                    headers=headers,
                )
                if resigned.status_code != 409:
                    resigned.raise_for_status()
                    break
            ids.append(game_id)
    return ids


def moves(conn: psycopg.Connection[Any], ids: list[int]) -> int:
    row = conn.execute(
        "SELECT count(*) FROM game_events WHERE game_id = ANY(%s) "
        "AND (data::jsonb ->> 'type') = 'acted'",
        (ids,),
    ).fetchone()
    assert row is not None
    return int(row[0])


def one_round(
    nodes: int,
    args: argparse.Namespace,
    url: str,
    database: str,
    server: LiveServer,
    services: Services,
) -> dict[str, Any]:
    environ = {"DICEHALL_WARM_BOTS": "0", "DICEHALL_BOT_WORKERS": str(args.bot_workers)}
    workers = [LiveWorker(url, redis_url=REDIS, environ=environ) for _ in range(nodes)]
    # The round's games are made before any worker node runs (the web node plays none), so
    # every node starts on the same whole batch.
    ids = bot_games(server, services, args.game, args.bot, args.games)
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            seen: dict[int, tuple[float, float]] = {}  # backend pid: first and last CPU
            for worker in workers:
                worker.start(timeout=120)
            roots = [w.process.pid for w in workers if w.process is not None]
            started = time.monotonic()
            first_cpu = sum(tree_cpu_s(root) for root in roots)
            left: int | None = None
            while time.monotonic() - started < args.timeout:
                for pid in backend_pids(conn, database):
                    cpu = pid_cpu_s(pid)
                    if cpu is not None:
                        seen[pid] = (seen.get(pid, (cpu, cpu))[0], cpu)
                row = conn.execute(
                    "SELECT count(*) FROM games WHERE id = ANY(%s) AND status = 'active'", (ids,)
                ).fetchone()
                left = None if row is None else int(row[0])
                if not left:
                    break
                time.sleep(0.5)
            elapsed = time.monotonic() - started
            done = moves(conn, ids)
            worker_cpu = sum(tree_cpu_s(root) for root in roots) - first_cpu
            backend_cpu = sum(last - first for first, last in seen.values())
        return {
            "nodes": nodes,
            "bot_moves": done,
            "seconds": round(elapsed, 2),
            "bot_moves_per_s": round(done / elapsed, 2),
            "worker_cpu_ms_per_move": round(1000 * worker_cpu / max(done, 1), 2),
            "backend_cpu_ms_per_move": round(1000 * backend_cpu / max(done, 1), 2),
            "games_unfinished": left,
        }
    finally:
        for worker in workers:
            worker.stop()
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("UPDATE games SET bot_due = false WHERE status = 'active'")


def median_of(rounds: list[dict[str, Any]], key: str) -> float:
    return round(float(statistics.median(r[key] for r in rounds)), 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--games", type=int, default=64)
    parser.add_argument("--timeout", type=float, default=300.0, help="per round")
    parser.add_argument("--bot-workers", type=int, default=1)
    parser.add_argument("--game", default="bullseye")
    parser.add_argument("--bot", default="optimal")
    args = parser.parse_args()
    database = f"dicehall_nodes_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(PG_ADMIN, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{database}"')
    url = f"postgresql://postgres@127.0.0.1:5432/{database}"
    services = build_services(site_settings(url))
    server = LiveServer(url, redis_url=REDIS, background=False)
    results: dict[int, list[dict[str, Any]]] = {1: [], 2: []}
    try:
        server.start(timeout=120)
        for number in range(args.rounds):
            order = (1, 2) if number % 2 == 0 else (2, 1)
            for nodes in order:
                print(f"round {number + 1}: {nodes} worker node(s)", file=sys.stderr)
                outcome = one_round(nodes, args, url, database, server, services)
                print(json.dumps(outcome), file=sys.stderr)
                results[nodes].append(outcome)
    finally:
        server.stop()
        services.engine.dispose()
        with psycopg.connect(PG_ADMIN, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
    summary = {
        str(nodes): {
            key: median_of(rounds, key)
            for key in ("bot_moves_per_s", "worker_cpu_ms_per_move", "backend_cpu_ms_per_move")
        }
        for nodes, rounds in results.items()
    }
    per_round = [
        round(two["bot_moves_per_s"] / one["bot_moves_per_s"], 2)
        for one, two in zip(results[1], results[2], strict=True)
        if one["bot_moves_per_s"]
    ]
    speedup = round(summary["2"]["bot_moves_per_s"] / max(summary["1"]["bot_moves_per_s"], 1e-9), 2)
    print(
        json.dumps(
            {
                "game": args.game,
                "bot": args.bot,
                "games": args.games,
                "bot_workers_per_node": args.bot_workers,
                "cpus": os.cpu_count(),
                "load_average": os.getloadavg(),
                "nodes": summary,
                "speedup": speedup,
                "per_round_speedups": per_round,
                "target": 1.7,
                "met": speedup >= 1.7,
                "rounds_detail": results,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
