"""Games played quickly through the API for the fair-dice tests: one person against a bot,
random legal moves leaning to the ones that end a turn, the bot driver waited for."""

from __future__ import annotations

import random
from typing import Any

from fastapi.testclient import TestClient

from tests.server.conftest import Headers
from tests.waiting import wait_until

API = "/api/v1"

#: Options that end each game quickly, and its bot.
SHORT: dict[str, tuple[dict[str, object], str]] = {
    "tenthousand": ({"target": 1500, "entry_threshold": 0}, "heuristic"),
    "boatzee": ({}, "greedy"),
    "boss": ({"horses": 1}, "odds"),
    "holdem": ({"stack": 30}, "random"),
    "bullseye": ({"rounds": 1, "allow_two_seats": True}, "heuristic"),
}
#: Options that keep a game going for longer than a few moves.
LONG: dict[str, dict[str, object]] = {
    "tenthousand": {"target": 10000},
    "boatzee": {},
    "boss": {"horses": 25},
    "holdem": {"stack": 200},
    "bullseye": {"rounds": 50, "allow_two_seats": True},
}
ENDERS = {"bank", "hold", "stop", "score", "fold", "call", "check", "come_up", "keep"}
#: Moves that never put a Hold'em stack at risk (for a game that must go on).
CAREFUL = {"check", "fold"}


def create(
    client: TestClient, headers: Headers, kind: str, options: dict[str, object], **extra: Any
) -> dict[str, Any]:
    """A new game of ``kind`` between the caller and the kind's bot."""
    body = {"game": kind, "options": options, "seats": ["me", f"bot:{SHORT[kind][1]}"], **extra}
    response = client.post(f"{API}/games", json=body, headers=headers)
    assert response.status_code == 201, response.text
    game: dict[str, Any] = response.json()
    return game


def settled(client: TestClient, headers: Headers, game: dict[str, Any]) -> dict[str, Any]:
    """The game once no dice or bot move is pending (the bot driver plays those)."""
    if game["status"] != "active" or game["legal"]:
        return game
    game_id = game["id"]

    def played() -> dict[str, Any] | None:
        fresh: dict[str, Any] = client.get(f"{API}/games/{game_id}", headers=headers).json()
        return fresh if fresh["status"] != "active" or fresh["legal"] else None

    return wait_until(played, timeout=20, what=f"the driver to play game {game_id} on")


def step(
    client: TestClient,
    headers: Headers,
    game: dict[str, Any],
    rng: random.Random,
    careful: bool = False,
) -> dict[str, Any]:
    """One move of mine (once the bot and the dice are done), or the game as it is if over
    (``careful``: never risk my stack when a move can avoid it)."""
    game = settled(client, headers, game)
    if game["status"] != "active":
        return game
    legal = game["legal"]
    safe = [a for a in legal if a["type"] in CAREFUL]
    enders = [a for a in legal if a["type"] in ENDERS]
    if careful and safe:
        action = rng.choice(safe)
    else:
        action = rng.choice(enders if enders and rng.random() < 0.7 else legal)
    body = {"action": action, "expected_version": game["version"]}
    response = client.post(f"{API}/games/{game['id']}/actions", json=body, headers=headers)
    assert response.status_code == 200, response.text
    moved: dict[str, Any] = response.json()
    return moved


def finish(
    client: TestClient, headers: Headers, game: dict[str, Any], rng: random.Random
) -> dict[str, Any]:
    """Play ``game`` to its end."""
    for _ in range(3000):
        if game["status"] == "finished":
            return game
        game = step(client, headers, game, rng)
    raise AssertionError(f"{game['game']} did not end")
