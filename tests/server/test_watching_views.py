"""Hidden dice stay hidden from spectators (the property of test_five_games, extended): a
spectator's push says only which version the game reached, never a view; after each push
the spectator reads exactly ``game.view(state, None)``; the live list carries summaries
only, no view of any seat."""

from __future__ import annotations

import json
import random
import uuid
from typing import Any

from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dicehall.server.api.schemas import GameSummary
from dicehall.server.domain.services import Services
from tests.server.conftest import MakeUser
from tests.server.test_five_games import (
    API,
    ENDERS,
    SHORT,
    _wait_for_the_driver,
    check_only_own_view,
)

#: Keys that hold dice in a view; none may appear in a summary.
VIEW_KEYS = {"view", "pocket", "pockets", "concealed", "dice", "legal"}


def _keys(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in _keys(v)}
    return set()


def _pushes_until(socket: Any, version: int) -> list[dict[str, Any]]:
    """The spectator's game pushes up to the one for ``version`` (counts skipped)."""
    got = []
    while True:
        message = socket.receive_json()
        if message["type"] != "game":
            assert message["type"] == "watching", message
            continue
        # Which game, which version, which status: nothing else, so never a die.
        assert set(message) == {"type", "game", "version", "status"}, message
        assert all(isinstance(message[k], int) for k in ("game", "version"))
        got.append(message)
        if message["version"] >= version:
            return got


def _live_summary_of(client: TestClient, kind: str, game_id: int) -> Any:
    answer = client.get(f"{API}/games/live?game={kind}")
    assert answer.status_code == 200
    for summary in answer.json():
        assert set(summary) == set(GameSummary.model_fields)
        assert not _keys(summary) & VIEW_KEYS, json.dumps(summary)
    return next((s for s in answer.json() if s["id"] == game_id), None)


@settings(
    max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(seed=st.integers(0, 2**32 - 1), kind=st.sampled_from(["boss", "holdem"]))
def test_a_spectator_never_hears_or_reads_hidden_dice(
    seed: int, kind: str, client: TestClient, make_user: MakeUser, services: Services
) -> None:
    rng = random.Random(seed)
    names = [f"p{uuid.uuid4().hex[:12]}" for _ in range(2)]  # examples share one database
    players = {0: make_user(names[0]), 1: make_user(names[1])}
    created = client.post(
        f"{API}/games",
        json={"game": kind, "options": SHORT[kind][0], "seats": ["me", names[1]]},
        headers=players[0],
    )
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    with client.websocket_connect(f"{API}/ws?watch={game_id}") as spectator:
        assert spectator.receive_json() == {"type": "hello"}
        accepted = client.post(f"{API}/games/{game_id}/accept", headers=players[1])
        assert accepted.status_code == 200, accepted.text
        game = accepted.json()
        _pushes_until(spectator, game["version"])
        for _ in range(5000):
            if game["status"] == "finished":
                break
            if game["to_act"] is None:
                game = _wait_for_the_driver(client, game)
                _pushes_until(spectator, game["version"])
                continue
            watched = client.get(f"{API}/games/{game_id}").json()
            assert watched["my_seat"] is None
            check_only_own_view(services, watched)
            summary = _live_summary_of(client, kind, game_id)
            assert summary is not None and summary["version"] == watched["version"]
            seat = game["to_act"]
            mine = client.get(f"{API}/games/{game_id}", headers=players[seat]).json()
            legal = mine["legal"]
            enders = [a for a in legal if a["type"] in ENDERS]
            action = rng.choice(enders if enders and rng.random() < 0.6 else legal)
            answer = client.post(
                f"{API}/games/{game_id}/actions",
                json={"action": action, "expected_version": mine["version"]},
                headers=players[seat],
            )
            assert answer.status_code == 200, answer.text
            game = answer.json()
            pushed = _pushes_until(spectator, game["version"])
            assert pushed[-1]["version"] == game["version"]
            assert pushed[-1]["status"] == game["status"]
        else:
            raise AssertionError(f"{kind} did not end")
        # At the end the spectator reads what the rules reveal, and still only that.
        final = client.get(f"{API}/games/{game_id}").json()
        assert final["status"] == "finished" and final["my_seat"] is None
        check_only_own_view(services, final)
        assert _live_summary_of(client, kind, game_id) is None
