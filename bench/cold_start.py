"""A cold start: the site with an empty data directory, while its slow bots warm up.

    python bench/cold_start.py [--seconds 120] [--bot-workers 2]

Starts ``dicehall serve`` on SQLite with a fresh data directory (no cached solver tables)
and the slow bots warming in the background. At once it creates one game against each
game's slow bot, the bot in the first seat, and while those bots warm up it keeps asking for
pages and API reads as another visitor would. Prints one JSON object: for each slow bot, when
its first move landed (seconds after start, null if it had none in time) and whether the game
said "warming up" meanwhile; and the latency of every other request (p50, p99, max).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx2

from dicehall.server.core.config import Settings
from dicehall.server.domain.services import build_services

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' live server
from tests.live import LiveServer, add_user

API = "/api/v1"
#: One game against each slow bot, the bot in seat 0 (the seat that acts first where the
#: rules fix it), with options that need its table.
GAMES: list[tuple[str, str, dict[str, Any]]] = [
    ("tenthousand", "optimal", {}),
    ("boatzee", "optimal", {}),
    ("boss", "equilibrium", {}),
    ("holdem", "equity", {}),
    ("bullseye", "optimal", {"allow_two_seats": True}),
]
PAGES = ["/rules/boss", "/waiting", f"{API}/games/kinds", f"{API}/games/open", f"{API}/fairness"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--bot-workers", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        os.environ.update(
            DICEHALL_DATA=f"{workdir}/data",
            DICEHALL_WARM_BOTS="1",
            DICEHALL_BOT_WORKERS=str(args.bot_workers),
        )
        url = f"sqlite:///{workdir}/cold.sqlite3"
        server = LiveServer(url)
        started = time.monotonic()
        server.start(timeout=60)
        up = time.monotonic() - started
        services = build_services(Settings(db_url=url))
        try:
            result = measure(server.base, add_user(services, "coldplayer"), args.seconds)
        finally:
            server.stop()
            services.engine.dispose()
    print(json.dumps({"server_up_s": round(up, 2), **result}))


def play_one(client: httpx2.Client, me: dict[str, str], game: dict[str, Any]) -> int:
    """Make a passive legal move (check or call where there is one); the new version."""
    legal = game["legal"]
    action = next((a for a in legal if a["type"] in ("check", "call")), legal[0])
    body = {"action": action, "expected_version": game["version"]}
    moved = client.post(f"{API}/games/{game['id']}/actions", json=body, headers=me)
    moved.raise_for_status()
    version: int = moved.json()["version"]
    return version


def measure(base: str, me: dict[str, str], seconds: float) -> dict[str, Any]:
    """Create the games, then poll them and the pages until every bot moved or time is up."""
    t0 = time.monotonic()
    games: dict[str, dict[str, Any]] = {}
    with httpx2.Client(base_url=base, timeout=60) as client:
        for kind, bot, options in GAMES:
            body = {"game": kind, "seats": [f"bot:{bot}", "me"], "options": options}
            created = client.post(f"{API}/games", json=body, headers=me)
            created.raise_for_status()
            game = created.json()
            games[kind] = {
                "id": game["id"],
                "bot": bot,
                "version": game["version"],
                "warming_seen": bool((game.get("bot_turn") or {}).get("warming_up")),
                "first_move_s": None,
            }
        latencies: list[float] = []
        deadline = t0 + seconds
        while time.monotonic() < deadline:
            for path in PAGES:
                begun = time.perf_counter()
                client.get(path).raise_for_status()
                latencies.append(time.perf_counter() - begun)
            waiting = [g for g in games.values() if g["first_move_s"] is None]
            if not waiting:
                break
            for entry in waiting:
                begun = time.perf_counter()
                game = client.get(f"{API}/games/{entry['id']}", headers=me).json()
                latencies.append(time.perf_counter() - begun)
                turn = game.get("bot_turn") or {}
                entry["warming_seen"] |= bool(turn.get("warming_up"))
                if game["version"] > entry["version"] and not turn:
                    entry["first_move_s"] = round(time.monotonic() - t0, 1)
                elif game["your_turn"] and game["version"] == entry["version"]:
                    # The rules gave me the first move: make it, then wait for the bot.
                    entry["version"] = play_one(client, me, game)
            time.sleep(0.25)
    ms = sorted(x * 1000 for x in latencies)
    return {
        "bots": {
            kind: {k: g[k] for k in ("bot", "first_move_s", "warming_seen")}
            for kind, g in games.items()
        },
        "other_requests": len(ms),
        "latency_ms": {
            "p50": round(statistics.median(ms), 2),
            "p99": round(ms[int(len(ms) * 0.99) - 1], 2),
            "max": round(ms[-1], 2),
        },
    }


if __name__ == "__main__":
    main()
