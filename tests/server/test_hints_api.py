"""Hints over HTTP: worked out in a hint worker process for the caller's own seat, with a
time budget that turns a slow or crowded hint into a 503 the client can retry."""

from __future__ import annotations

import json
from typing import Any

from fastapi.testclient import TestClient

from dicehall import games
from dicehall.engine import codec
from dicehall.engine.dice import Seeded, resolve_request
from dicehall.engine.game import Chance
from dicehall.server.domain.services import Services
from dicehall.server.workers.hintwork import HintService, compute
from tests.games.hints import hint_for
from tests.server.conftest import Headers, MakeUser
from tests.server.test_five_games import state_of

API = "/api/v1"


def _holdem_against_bots(client: TestClient, alice: Headers) -> dict[str, Any]:
    created = client.post(
        f"{API}/games",
        json={"game": "holdem", "options": {"stack": 30}, "seats": ["me", "bot:random"]},
        headers=alice,
    )
    assert created.status_code == 201, created.text
    game: dict[str, Any] = created.json()
    assert game["to_act"] == 0
    return game


def test_a_hint_is_my_seats_hint_worked_out_in_a_worker(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    alice = make_user("alice")
    game = _holdem_against_bots(client, alice)
    answer = client.get(f"{API}/games/{game['id']}/hint", headers=alice)
    assert answer.status_code == 200, answer.text
    state, engine_game = state_of(services, game["id"])
    expected = hint_for("holdem")(engine_game.view(state, 0), engine_game.legal(state, 0))  # type: ignore[misc]
    assert answer.json() == {
        "game": "holdem",
        "version": game["version"],
        "hint": codec.encode(expected),
    }


def test_a_hint_over_its_budget_is_a_503_to_retry(client: TestClient, make_user: MakeUser) -> None:
    alice = make_user("alice")
    game = _holdem_against_bots(client, alice)
    hints: HintService = client.app.state.hints  # type: ignore[attr-defined]
    hints.budget = 0.0
    answer = client.get(f"{API}/games/{game['id']}/hint", headers=alice)
    assert answer.status_code == 503
    assert answer.headers["Retry-After"] == "2"
    assert answer.json()["code"] == "hints_busy"


def test_hints_are_only_for_my_own_seat(client: TestClient, make_user: MakeUser) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    game = _holdem_against_bots(client, alice)
    answer = client.get(f"{API}/games/{game['id']}/hint", headers=bob)
    assert answer.status_code == 403
    assert answer.json()["code"] == "not_your_game"


def test_every_game_has_a_hint_that_travels_as_json() -> None:
    """A worker answers JSON text: every game's hint survives the trip unchanged."""
    for kind in games.NAMES:
        entry = games.get(kind)
        extra = {"allow_two_seats": True} if kind == "bullseye" else {}
        options = entry.game.options(extra)
        state = entry.game.start(2, options)
        dice = Seeded(3)
        while isinstance(turn := entry.game.turn(state), Chance):
            state = entry.game.resolve(state, resolve_request(dice, turn.request))
        seat = turn.seat  # type: ignore[union-attr]
        function = hint_for(kind)
        assert function is not None
        direct = codec.encode(function(entry.game.view(state, seat), entry.game.legal(state, seat)))
        assert json.loads(compute(kind, codec.dumps(state), seat)) == direct
