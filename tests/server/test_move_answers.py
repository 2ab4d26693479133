"""The move and game answers are serialised once, by the route, not by FastAPI's response
model: every answer must be exactly what the model would have produced from it."""

from __future__ import annotations

import random
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import BaseModel

from dicehall import games
from dicehall.server.api.schemas import Game, GameMove
from tests.server.conftest import Headers, MakeUser

API = "/api/v1"


def as_the_model_writes_it(model: type[BaseModel], answer: dict[str, Any]) -> Any:
    return model.model_validate(answer).model_dump(mode="json")


@pytest.mark.parametrize("game", games.NAMES)
def test_every_answer_of_a_game_is_its_response_model_exactly(
    client: TestClient, make_user: MakeUser, game: str
) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    options = {"allow_two_seats": True} if game == "bullseye" else {}
    made = client.post(
        f"{API}/games",
        json={"game": game, "seats": ["me", "bob"], "options": options},
        headers=alice,
    )
    assert made.status_code == 201, made.text
    accepted = client.post(f"{API}/games/{made.json()['id']}/accept", headers=bob)
    assert accepted.status_code == 200, accepted.text
    answer = accepted.json()
    heads: dict[int, Headers] = {0: alice, 1: bob}
    rng = random.Random(game)
    checked = 0
    while answer["status"] == "active" and checked < 40:
        seat = answer["to_act"]
        got = client.get(f"{API}/games/{answer['id']}", headers=heads[seat])
        assert got.status_code == 200
        mine = got.json()
        assert mine == as_the_model_writes_it(Game, mine)
        body = {"action": rng.choice(mine["legal"]), "expected_version": mine["version"]}
        moved = client.post(f"{API}/games/{answer['id']}/actions", json=body, headers=heads[seat])
        assert moved.status_code == 200, moved.text
        assert moved.headers["content-type"] == "application/json"
        answer = moved.json()
        assert answer == as_the_model_writes_it(GameMove, answer)
        checked += 1
    assert checked > 3
