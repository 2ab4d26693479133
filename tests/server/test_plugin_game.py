"""A game from another installed package (Pig, through the dicehall.games entry point) is
offered and playable on the site like the five, with the generic board."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.server.conftest import MakeUser

API = "/api/v1"


@pytest.mark.usefixtures("installed_pig")
def test_an_installed_game_is_played_on_the_site(client: TestClient, make_user: MakeUser) -> None:
    kinds = {k["game"]: k for k in client.get(f"{API}/games/kinds").json()}
    assert "pig" in kinds and "random" in kinds["pig"]["bots"]
    alice = make_user("alice")
    created = client.post(
        f"{API}/games",
        json={"game": "pig", "seats": ["me", "bot:random"], "options": {"target": 10}},
        headers=alice,
    )
    assert created.status_code == 201, created.text
    game = created.json()
    for _ in range(200):
        if game["status"] == "finished":
            break
        game = client.get(f"{API}/games/{game['id']}", headers=alice).json()
        action = next(a for a in game["legal"] if a["type"] == "hold")
        moved = client.post(
            f"{API}/games/{game['id']}/actions",
            json={"action": action, "expected_version": game["version"]},
            headers=alice,
        )
        assert moved.status_code == 200, moved.text
        game = moved.json()
    assert game["status"] == "finished"
    page = client.get(f"/games/{game['id']}")
    assert page.status_code == 200 and "Pig" in page.text
    assert "The smallest dice game" in client.get("/").text
