"""Each of the five games played to the end over HTTP, against bots and between two users,
with every response checked to hold exactly its seat's view (no hidden die of another seat)."""

from __future__ import annotations

import json
import random
import uuid
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from dicehall import games
from dicehall.engine import codec
from dicehall.engine.events import apply_event, decode_event
from dicehall.server.core.models import EventRow, GameRow
from dicehall.server.domain.services import Services
from tests.server.conftest import Headers, MakeUser
from tests.waiting import wait_until

API = "/api/v1"

#: Short games: options that end them quickly, and a bot for each.
SHORT: dict[str, tuple[dict[str, object], str]] = {
    "tenthousand": ({"target": 1500, "entry_threshold": 0}, "heuristic"),
    "boatzee": ({}, "greedy"),
    "boss": ({"horses": 1}, "odds"),
    "holdem": ({"stack": 30}, "random"),
    "bullseye": ({"rounds": 1, "allow_two_seats": True}, "heuristic"),
}
ENDERS = {"bank", "hold", "stop", "score", "fold", "call", "check", "come_up", "keep"}


def state_of(services: Services, game_id: int) -> tuple[Any, Any]:
    """The game's current state straight from the database, and the game."""
    with services.sessions() as db:
        row = db.scalar(select(GameRow).where(GameRow.id == game_id))
        assert row is not None and row.snapshot is not None
        game = games.get(row.kind).game
        return codec.loads(row.snapshot, game.state_type), game


def states_passed(services: Services, game_id: int) -> tuple[list[Any], Any, int]:
    """Every state the game has been in (replayed from its log), the game and its version."""
    with services.sessions() as db:
        row = db.scalar(select(GameRow).where(GameRow.id == game_id))
        assert row is not None
        entry = games.get(row.kind)
        options = codec.loads(row.options, entry.game.options_type)
        logged = db.scalars(
            select(EventRow.data).where(EventRow.game_id == game_id).order_by(EventRow.seq)
        ).all()
    state = entry.game.start(row.seats, options)
    passed = [state]
    for data in logged:
        state = apply_event(entry.game, state, decode_event(entry.game, json.loads(data)))
        passed.append(state)
    return passed, entry.game, row.version


def _seen(game: Any, state: Any, seat: int | None, active: bool) -> tuple[Any, Any]:
    """What a seat is shown of a state: its view and its legal moves."""
    playing = active and seat is not None
    legal = [codec.encode(a) for a in game.legal(state, seat)] if playing else []
    return codec.encode(game.view(state, seat)), legal


def check_only_own_view(services: Services, payload: Any) -> None:
    """The response's view is exactly what its seat may know, and nothing else leaks.

    The bot driver may move the game on between the response and this check: then the
    response must match the state the game was in at one step of its log.
    """
    seat = payload["my_seat"]
    if payload["game"] == "holdem" and seat is not None:
        assert "pockets" not in payload["view"]
    if payload["game"] == "boss" and seat is not None:
        view = payload["view"]
        if view["boss"] is not None and view["boss"] != seat:
            assert view["concealed"] is None
    active = payload["status"] == "active"
    shown = (payload["view"], payload["legal"])
    state, game = state_of(services, payload["id"])
    if shown == _seen(game, state, seat, active):
        return
    passed, game, version = states_passed(services, payload["id"])
    assert version != payload["version"], "the response differs from the stored state"
    assert any(shown == _seen(game, state, seat, active) for state in reversed(passed))


def _wait_for_the_driver(client: TestClient, game: Any, seconds: float = 20) -> Any:
    """The game once no dice or bots are pending (the driver plays them after the request)."""
    game_id = game["id"]

    def settled() -> Any:
        nonlocal game
        if game["status"] != "active" or game["to_act"] is not None:
            return game
        assert game["bot_turn"] is not None, "nobody to act and nothing pending"
        game = client.get(f"{API}/games/{game_id}").json()
        return None

    return wait_until(settled, timeout=seconds, what=f"the driver to play game {game_id} on")


def play(
    client: TestClient,
    services: Services,
    players: dict[int, Headers],
    game: Any,
    rng: random.Random,
    spectator: bool = True,
) -> Any:
    """Random legal moves (leaning to turn-enders) until the end; every answer is checked."""
    for _ in range(5000):
        if game["status"] == "finished":
            return game
        if game["to_act"] is None:
            # More dice than one request may roll: the bot driver rolls the rest.
            game = _wait_for_the_driver(client, game)
            continue
        seat = game["to_act"]
        mine = client.get(f"{API}/games/{game['id']}", headers=players[seat]).json()
        check_only_own_view(services, mine)
        for other, headers in players.items():
            if other != seat:
                check_only_own_view(
                    services, client.get(f"{API}/games/{game['id']}", headers=headers).json()
                )
        if spectator:
            watched = client.get(f"{API}/games/{game['id']}").json()
            assert watched["my_seat"] is None
            check_only_own_view(services, watched)
        legal = mine["legal"]
        enders = [a for a in legal if a["type"] in ENDERS]
        action = rng.choice(enders if enders and rng.random() < 0.6 else legal)
        response = client.post(
            f"{API}/games/{game['id']}/actions",
            json={"action": action, "expected_version": mine["version"]},
            headers=players[seat],
        )
        assert response.status_code == 200, response.text
        game = response.json()
        check_only_own_view(services, game)
    raise AssertionError(f"{game['game']} did not end")


@pytest.mark.parametrize("kind", sorted(SHORT))
def test_each_game_against_a_bot_to_the_end(
    kind: str, client: TestClient, make_user: MakeUser, services: Services
) -> None:
    options, bot = SHORT[kind]
    alice = make_user("alice")
    response = client.post(
        f"{API}/games",
        json={"game": kind, "options": options, "seats": ["me", f"bot:{bot}"]},
        headers=alice,
    )
    assert response.status_code == 201, response.text
    final = play(client, services, {0: alice}, response.json(), random.Random(kind))
    assert final["result"]["winners"]
    log = client.get(f"{API}/games/{final['id']}/log").json()
    assert log["events"] and log["result"] == final["result"]


@pytest.mark.both_databases
@pytest.mark.parametrize("kind", sorted(SHORT))
def test_each_game_between_two_users_to_the_end(
    kind: str, client: TestClient, make_user: MakeUser, services: Services
) -> None:
    options, _ = SHORT[kind]
    alice, bob = make_user("alice"), make_user("bob")
    response = client.post(
        f"{API}/games",
        json={"game": kind, "options": options, "seats": ["me", "open"]},
        headers=alice,
    )
    assert response.status_code == 201, response.text
    joined = client.post(f"{API}/games/{response.json()['id']}/join", json={}, headers=bob)
    assert joined.status_code == 200 and joined.json()["status"] == "active"
    final = play(client, services, {0: alice, 1: bob}, joined.json(), random.Random(kind + "2"))
    assert final["status"] == "finished"


@settings(
    max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(seed=st.integers(0, 2**32 - 1), kind=st.sampled_from(["boss", "holdem"]))
def test_no_response_shows_another_seats_hidden_dice(
    seed: int, kind: str, client: TestClient, make_user: MakeUser, services: Services
) -> None:
    rng = random.Random(seed)
    names = [f"p{uuid.uuid4().hex[:12]}" for _ in range(2)]  # examples share one database
    first, second = make_user(names[0]), make_user(names[1])
    created = client.post(
        f"{API}/games",
        json={"game": kind, "options": SHORT[kind][0], "seats": ["me", names[1]]},
        headers=first,
    )
    assert created.status_code == 201, created.text
    accepted = client.post(f"{API}/games/{created.json()['id']}/accept", headers=second)
    assert accepted.status_code == 200, accepted.text
    play(client, services, {0: first, 1: second}, accepted.json(), rng)
