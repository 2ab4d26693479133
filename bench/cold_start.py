"""A cold start: the site with an empty data directory, while its slow bots warm up.

    python bench/cold_start.py [--seconds 120] [--bot-workers 2]

Starts ``dicehall serve`` on SQLite with a fresh data directory (no cached solver tables)
and the slow bots warming in the background. At once it creates one game against each
game's slow bot, the bot in the first seat, and while those bots warm up it keeps asking for
pages and API reads as another visitor would. Prints one JSON object: for each slow bot, when
its first move landed (seconds after start, null if it had none in time) and whether the game
said "warming up" meanwhile; and the latency of every other request (p50, p99, max).

Each time a game says its bot is warming up, its ``eta_s`` is kept with the moment; once the
first move lands, each estimate is set against the time that was truly left:
``eta_over_truth`` gives the first one's ratio and the worst (the farthest from 1, either way)
among those made with at least ``TRUTH_MIN_S`` seconds left (an estimate rounded to whole
seconds says little about the last second), and ``eta_within_2x`` whether every one of those
was within 2x. ``--only tenthousand`` (comma-separated) makes games for those games alone.
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
#: Estimates made with less time than this truly left are not judged.
TRUTH_MIN_S = 2.0
PAGES = ["/rules/boss", "/waiting", f"{API}/games/kinds", f"{API}/games/open", f"{API}/fairness"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--bot-workers", type=int, default=2)
    parser.add_argument("--only", default="", help="comma-separated games (default: all)")
    args = parser.parse_args()
    only = {name for name in args.only.split(",") if name}
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
            result = measure(
                server.base, add_user(services, "coldplayer"), args.seconds, only or None
            )
        finally:
            server.stop()
            services.engine.dispose()
    print(json.dumps({"server_up_s": round(up, 2), "load_average": os.getloadavg(), **result}))


def play_one(client: httpx2.Client, me: dict[str, str], game: dict[str, Any]) -> int:
    """Make a passive legal move (check or call where there is one); the new version."""
    legal = game["legal"]
    action = next((a for a in legal if a["type"] in ("check", "call")), legal[0])
    body = {"action": action, "expected_version": game["version"]}
    moved = client.post(f"{API}/games/{game['id']}/actions", json=body, headers=me)
    moved.raise_for_status()
    version: int = moved.json()["version"]
    return version


def judge(estimates: list[tuple[float, int]], landed: float | None) -> dict[str, Any]:
    """Each estimate (moment, eta_s) against the time truly left before ``landed``."""
    if landed is None or not estimates:
        return {"eta_over_truth": None, "eta_within_2x": None}
    judged = [
        (eta / (landed - at), landed - at) for at, eta in estimates if landed - at >= TRUTH_MIN_S
    ]
    if not judged:
        return {"eta_over_truth": None, "eta_within_2x": None}
    ratios = [ratio for ratio, _ in judged]
    worst, worst_left = max(judged, key=lambda j: max(j[0], 1 / j[0]))
    return {
        "eta_over_truth": {
            "first": round(ratios[0], 2),
            "median": round(statistics.median(ratios), 2),
            "worst": round(worst, 2),
            "worst_with_s_left": round(worst_left, 1),
            "within_2x_share": round(sum(0.5 <= r <= 2.0 for r in ratios) / len(ratios), 3),
        },
        "eta_within_2x": all(0.5 <= r <= 2.0 for r in ratios),
    }


def measure(
    base: str, me: dict[str, str], seconds: float, only: set[str] | None = None
) -> dict[str, Any]:
    """Create the games, then poll them and the pages until every bot moved or time is up."""
    t0 = time.monotonic()
    games: dict[str, dict[str, Any]] = {}
    with httpx2.Client(base_url=base, timeout=60) as client:
        for kind, bot, options in GAMES:
            if only is not None and kind not in only:
                continue
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
                "estimates": [],
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
                if turn.get("warming_up") and turn.get("eta_s") is not None:
                    entry["estimates"].append((time.monotonic() - t0, turn["eta_s"]))
                if game["version"] > entry["version"] and not turn:
                    entry["first_move_s"] = round(time.monotonic() - t0, 1)
                elif game["your_turn"] and game["version"] == entry["version"]:
                    # The rules gave me the first move: make it, then wait for the bot.
                    entry["version"] = play_one(client, me, game)
            time.sleep(0.25)
    ms = sorted(x * 1000 for x in latencies)
    return {
        "bots": {
            kind: {
                **{k: g[k] for k in ("bot", "first_move_s", "warming_seen")},
                "estimates": len(g["estimates"]),
                **judge(g["estimates"], g["first_move_s"]),
            }
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
