"""The domain's typed game payloads and the API's response models name the same keys, and
what the domain builds passes the models' own (strict) validation."""

from __future__ import annotations

from typing import get_type_hints

from fastapi.testclient import TestClient

from dicehall.server.api.schemas import Game, GameMove
from dicehall.server.domain.games.payloads import GamePayload, MovePayload
from tests.server.conftest import MakeUser

API = "/api/v1"


def test_the_typed_payloads_name_the_response_models_keys() -> None:
    assert list(get_type_hints(GamePayload)) == list(Game.model_fields)
    assert list(get_type_hints(MovePayload)) == list(GameMove.model_fields)
    assert GamePayload.__required_keys__ == frozenset(Game.model_fields)


def test_what_the_domain_builds_is_valid_for_the_model(
    client: TestClient, make_user: MakeUser
) -> None:
    alice = make_user("alice")
    made = client.post(
        f"{API}/games", json={"game": "tenthousand", "seats": ["me", "bot:random"]}, headers=alice
    )
    assert made.status_code == 201, made.text
    game = client.get(f"{API}/games/{made.json()['id']}", headers=alice).json()
    Game.model_validate(game)
    body = {"action": game["legal"][0], "expected_version": game["version"]}
    moved = client.post(f"{API}/games/{game['id']}/actions", json=body, headers=alice).json()
    assert GameMove.model_validate(moved).replayed is False
