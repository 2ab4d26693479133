"""Tournaments end to end, through the API as users: a 6-player
Bull's Eye Swiss of 3 rounds in tables of 3 and a 4-player Boatzee cup in tables of 2,
played to the end by the games' bots choosing from each user's own view, with one player
of each timing out in the first round (the sweeper is called with a moment past their
deadline). The tournaments job is called by hand after each round (site jobs are off)."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from dicehall import games
from dicehall.engine import codec
from dicehall.engine.bots import Bot
from dicehall.server.app import create_app
from dicehall.server.core.clock import now
from dicehall.server.domain.games import ending
from dicehall.server.domain.services import Services
from dicehall.server.domain.tournaments import job
from tests.live import add_user
from tests.server.conftest import Headers, jobless_services
from tests.waiting import wait_until

API = "/api/v1"
#: Each player's bank for a whole game: ample for bots, so only the sweeper's moment ends one.
BANK = 300
BOTS = {"bullseye": "heuristic", "boatzee": "greedy"}


@pytest.fixture
def services(db_url: str) -> Iterator[Services]:
    """The site with its periodic jobs off: the test runs the tournaments job itself."""
    yield from jobless_services(db_url)


@pytest.fixture
def client(services: Services) -> Iterator[TestClient]:
    with TestClient(create_app(services=services)) as test_client:
        yield test_client


def _sweep_past_deadline(services: Services) -> None:
    # The sweeper, as if its run came after every running clock's deadline.
    with services.write_conn() as conn:
        ending.sweep(conn, services.pool, now() + timedelta(seconds=BANK + 1))


def play(
    client: TestClient,
    services: Services,
    game_id: int,
    users: dict[str, Headers],
    rng: random.Random,
    times_out: str | None = None,
) -> dict[str, Any]:
    """Play a game to its end, each seat's move chosen by the game's bot from that user's
    own view; ``times_out`` runs out of time at their first turn (the only game running)."""
    game = client.get(f"{API}/games/{game_id}").json()
    entry = games.get(game["game"])
    bots: dict[str, Bot] = {}

    def driven(game: dict[str, Any]) -> bool:
        """Dice or the autopilot are pending: the bot driver plays them."""
        seat = game["to_act"]
        player = None if seat is None else game["seats"][seat]
        return player is None or player["status"] != "playing" or game["bot_turn"] is not None

    def settled() -> dict[str, Any] | None:
        game: dict[str, Any] = client.get(f"{API}/games/{game_id}").json()
        return game if game["status"] != "active" or not driven(game) else None

    deadline = time.monotonic() + 60
    while game["status"] == "active":
        assert time.monotonic() < deadline, f"game {game_id} did not end"
        if driven(game):
            left = max(0.0, deadline - time.monotonic())
            game = wait_until(settled, timeout=left, what=f"the driver to play game {game_id} on")
            continue
        seat = game["to_act"]
        user = game["seats"][seat]["user"]
        if user == times_out:
            _sweep_past_deadline(services)
            times_out = None
            game = client.get(f"{API}/games/{game_id}").json()
            continue
        if game["my_seat"] != seat:
            game = client.get(f"{API}/games/{game_id}", headers=users[user]).json()
        bot = bots.setdefault(user, entry.bot(BOTS[entry.name], rng))
        view = codec.decode(game["view"], entry.game.view_type)
        legal = [codec.decode(a, entry.game.action_type) for a in game["legal"]]
        action = bot.choose(view, legal)
        answer = client.post(
            f"{API}/games/{game_id}/actions",
            json={"action": codec.encode(action), "expected_version": game["version"]},
            headers=users[user],
        )
        assert answer.status_code == 200, answer.text
        game = answer.json()
    assert times_out is None, "the player meant to time out never had a turn"
    ended: dict[str, Any] = game
    return ended


def run_tournament(
    client: TestClient,
    services: Services,
    body: dict[str, Any],
    names: list[str],
    victim: str,
) -> dict[str, Any]:
    """Create, fill and play a tournament to its end; check every round as it starts."""
    users = {name: add_user(services, name) for name in names}
    made = client.post(f"{API}/tournaments", json=body, headers=users[names[0]])
    assert made.status_code == 201, made.text
    tid = made.json()["id"]
    for name in names:
        joined = client.post(f"{API}/tournaments/{tid}/join", headers=users[name])
        assert joined.status_code == 200, joined.text
    rng = random.Random(body["name"])
    rounds_seen = 0
    while True:
        before = client.get(f"{API}/tournaments/{tid}").json()
        active = {s["user_id"] for s in before["standings"] if s["status"] == "active"}
        job.run(services, now())
        detail = client.get(f"{API}/tournaments/{tid}").json()
        if detail["status"] == "finished":
            break
        assert detail["status"] == "running" and detail["round"] == rounds_seen + 1, detail
        rounds_seen += 1
        tables = detail["rounds"][-1]["tables"]
        seated = [user for table in tables for user in table["seats"]]
        assert sorted(seated) == sorted(active), (rounds_seen, seated, active)
        games_ = [t for t in tables if t["game_id"] is not None]
        assert all(len(t["seats"]) == 1 for t in tables if t["game_id"] is None)
        # The victim's table last, so theirs is the only game running when they time out.
        games_.sort(key=lambda t: victim in t["seats"])
        for table in games_:
            out = victim if rounds_seen == 1 and victim in table["seats"] else None
            play(client, services, table["game_id"], users, rng, times_out=out)
    assert rounds_seen == detail["rounds_planned"]
    handed_out = sum(sum(t["points"]) for r in detail["rounds"] for t in r["tables"])
    assert sum(s["points"] for s in detail["standings"]) == pytest.approx(handed_out)
    assert all(t["done"] for r in detail["rounds"] for t in r["tables"])
    assert sorted(s["place"] for s in detail["standings"])[0] == 1
    banned = next(s for s in detail["standings"] if s["user_id"] == victim)
    assert banned["status"] == "timed_out", detail["standings"]
    for later in detail["rounds"][1:]:
        assert all(victim not in t["seats"] for t in later["tables"]), later
    # The ban: the player who timed out may not join another tournament.
    other = client.post(
        f"{API}/tournaments",
        json={**body, "name": "Next one", "starts_at": None, "size": len(names)},
        headers=users[names[0]],
    )
    assert other.status_code == 201, other.text
    refused = client.post(f"{API}/tournaments/{other.json()['id']}/join", headers=users[victim])
    assert refused.status_code == 403 and refused.json()["code"] == "tournament_ban"
    assert refused.json()["games_left"] == 2
    final: dict[str, Any] = detail
    return final


def test_a_swiss_and_a_cup_played_to_the_end(client: TestClient, services: Services) -> None:
    started = time.monotonic()
    swiss = run_tournament(
        client,
        services,
        {
            "name": "Bull's Eye Swiss",
            "game": "bullseye",
            "options": {"rounds": 1},
            "format": "swiss",
            "rounds": 3,
            "table": 3,
            "size": 6,
            "pace": {"bank": BANK},
        },
        ["ann", "ben", "cai", "dee", "eve", "fay"],
        victim="cai",
    )
    assert len(swiss["rounds"]) == 3
    cup = run_tournament(
        client,
        services,
        {
            "name": "Boatzee cup",
            "game": "boatzee",
            "format": "cup",
            "size": 4,
            "table": 2,
            "pace": {"bank": BANK},
        },
        ["gus", "hal", "ivy", "jon"],
        victim="hal",
    )
    assert len(cup["rounds"]) == 3
    # Every pair the cup seated met once; the victim's later opponents had byes.
    pairs = [
        frozenset(t["seats"]) for r in cup["rounds"] for t in r["tables"] if len(t["seats"]) == 2
    ]
    assert len(pairs) == len(set(pairs))
    byes = [t for r in cup["rounds"][1:] for t in r["tables"] if t["game_id"] is None]
    assert len(byes) == 2 and all(t["points"] == [2.0] for t in byes)
    assert time.monotonic() - started < 60
