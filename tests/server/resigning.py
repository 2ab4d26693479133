"""Resigning through the API as a real client does: read the game's version, send it, and
read it again when a bot or the dice driver moved the game on in between."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.server.conftest import Headers

API = "/api/v1"


def resign(client: TestClient, headers: Headers, game_id: int) -> Any:
    """Resign ``game_id`` for ``headers``' seat; the finished game."""
    for _ in range(50):
        version = client.get(f"{API}/games/{game_id}", headers=headers).json()["version"]
        answer = client.post(
            f"{API}/games/{game_id}/resign",
            json={"expected_version": version},
            headers=headers,
        )
        if answer.status_code == 409 and answer.json()["code"] == "stale":
            continue  # the bot driver moved in between: read the version again
        assert answer.status_code == 200, answer.text
        assert answer.json()["status"] == "finished", answer.text
        return answer.json()
    raise AssertionError(f"game {game_id} kept moving on: no resign got through")
