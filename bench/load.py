"""Load on loopback: N clients playing each other over HTTP; moves/s and latency.

    python bench/load.py [--db sqlite|postgresql|URL] [--clients 16] [--seconds 10]
                         [--game tenthousand] [--workers 1] [--redis URL]

Prints one JSON object. Each pair of clients plays one game after another; every move is a
POST with the expected version; the other player's view is fetched when the turn passes.
Afterwards ``dicehall check`` replays every game of the run to its snapshot
(``replay_check``).
The clients use aiohttp: with httpx the load generator, not the server, was the bottleneck.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import psycopg

from dicehall.server.core.config import Settings
from dicehall.server.domain.services import build_services

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' live server
from tests.live import LiveServer, add_user

API = "/api/v1"
PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
FINISHING = {"bank", "hold", "stop", "score", "fold", "check", "call", "come_up", "keep"}


@dataclass
class Tally:
    """What the clients measured."""

    latencies: list[float] = field(default_factory=list)
    moves: int = 0
    reads: int = 0
    finished: int = 0
    errors: int = 0


def choose(legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """A random legal action, leaning towards ones that end turns so games finish."""
    enders = [a for a in legal if a.get("type") in FINISHING]
    if enders and rng.random() < 0.5:
        return rng.choice(enders)
    return rng.choice(legal)


async def play_pair(
    client: aiohttp.ClientSession,
    seats: list[tuple[str, dict[str, str]]],
    game_name: str,
    deadline: float,
    tally: Tally,
    rng: random.Random,
) -> None:
    """Two users play ``game_name`` against each other until the deadline."""
    while time.monotonic() < deadline:
        async with client.post(
            f"{API}/games",
            json={"game": game_name, "seats": ["me", seats[1][0]]},
            headers=seats[0][1],
        ) as response:
            if response.status != 201:
                tally.errors += 1
                return
            invited = await response.json()
        # Naming a user is an invitation: the game starts when they accept it.
        async with client.post(
            f"{API}/games/{invited['id']}/accept", headers=seats[1][1]
        ) as response:
            if response.status != 200:
                tally.errors += 1
                return
            latest = {1: await response.json()}
        game = latest[1]
        while game["status"] == "active" and time.monotonic() < deadline:
            seat = game["to_act"]
            mine = latest.get(seat)
            if mine is None or mine["version"] != game["version"]:
                async with client.get(f"{API}/games/{game['id']}", headers=seats[seat][1]) as got:
                    mine = await got.json()
                tally.reads += 1
            body = {"action": choose(mine["legal"], rng), "expected_version": mine["version"]}
            started = time.perf_counter()
            async with client.post(
                f"{API}/games/{game['id']}/actions", json=body, headers=seats[seat][1]
            ) as answer:
                payload = await answer.json()
                tally.latencies.append(time.perf_counter() - started)
                if answer.status != 200:
                    tally.errors += 1
                    break
            tally.moves += 1
            game = payload
            latest[seat] = game
        if game["status"] == "finished":
            tally.finished += 1


async def run_clients(
    base: str, users: list[tuple[str, dict[str, str]]], game: str, seconds: float
) -> Tally:
    """All pairs at once on one connection pool."""
    tally = Tally()
    deadline = time.monotonic() + seconds
    connector = aiohttp.TCPConnector(limit=len(users))
    async with aiohttp.ClientSession(base, connector=connector) as client:
        pairs = [users[i : i + 2] for i in range(0, len(users) - 1, 2)]
        await asyncio.gather(
            *(
                play_pair(client, pair, game, deadline, tally, random.Random(i))
                for i, pair in enumerate(pairs)
            )
        )
    return tally


def database(kind: str, workdir: str) -> tuple[str, Any]:
    """A fresh database URL for the run, and how to drop it."""
    if kind == "sqlite":
        return f"sqlite:///{workdir}/load.sqlite3", lambda: None
    if kind == "postgresql":
        name = f"dicehall_load_{uuid.uuid4().hex[:10]}"
        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')

        def drop() -> None:
            with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

        return f"postgresql://postgres@127.0.0.1:5432/{name}", drop
    return kind, lambda: None


def replay_check(url: str, plugins: str) -> dict[str, Any]:
    """``dicehall check`` on the run's database: every game replays to its snapshot."""
    env = {**os.environ, "DICEHALL_PLUGINS": plugins}
    out = subprocess.run(
        [sys.executable, "-m", "dicehall", "check", "--db", url, "--json"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    found: dict[str, Any] = json.loads(out.stdout)
    return {"ok": found["ok"], "games": found["checked"], "discrepancies": found["discrepancies"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", default="sqlite", help="sqlite, postgresql or a database URL")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--game", default="tenthousand")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--plugins", default="", help="DICEHALL_PLUGINS for the server")
    parser.add_argument("--redis", default=None, help="Redis URL (the scale-out path's pushes)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        url, drop = database(args.db, workdir)
        server = LiveServer(url, args.redis, workers=args.workers, plugins=args.plugins)
        server.start()
        services = build_services(Settings(db_url=url))
        try:
            users = [(f"load{i}", add_user(services, f"load{i}")) for i in range(args.clients)]
            tally = asyncio.run(run_clients(server.base, users, args.game, args.seconds))
        finally:
            server.stop()
            services.engine.dispose()
        try:
            replayed = replay_check(url, args.plugins)
        finally:
            drop()
    lat = sorted(tally.latencies) or [0.0]
    print(
        json.dumps(
            {
                "db": args.db,
                "game": args.game,
                "clients": args.clients,
                "workers": args.workers,
                "redis": args.redis is not None,
                "seconds": args.seconds,
                "moves": tally.moves,
                "moves_per_s": round(tally.moves / args.seconds, 1),
                "reads": tally.reads,
                "games_finished": tally.finished,
                "errors": tally.errors,
                "replay_check": replayed,
                "latency_ms": {
                    "p50": round(1000 * statistics.median(lat), 2),
                    "p99": round(1000 * lat[min(len(lat) - 1, int(0.99 * len(lat)))], 2),
                    "max": round(1000 * lat[-1], 2),
                },
            }
        )
    )


if __name__ == "__main__":
    main()
