"""Pushes over the WebSocket: in-process, and between two server processes through Redis."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
import redis
from fastapi.testclient import TestClient
from websockets.sync.client import connect

from dicehall.server.domain.services import build_services
from tests.live import LiveServer, add_user
from tests.server.conftest import MakeUser, site_settings
from tests.server.pig_entry import PIG_PLUGIN, register_pig

register_pig()
API = "/api/v1"


def test_socket_needs_a_user(client: TestClient) -> None:
    from starlette.websockets import WebSocketDisconnect

    with pytest.raises(WebSocketDisconnect) as refused, client.websocket_connect(f"{API}/ws"):
        pass
    assert refused.value.code == 4401


def next_game_push(socket: Any, told: list[dict[str, Any]]) -> Any:
    """The next push about a game; the notifications pushed on the way go into ``told``."""
    while True:
        message = socket.receive_json()
        if message["type"] != "notification":
            return message
        told.append(message)


def test_your_turn_push_in_process(client: TestClient, make_user: MakeUser) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    told: list[dict[str, Any]] = []
    with client.websocket_connect(f"{API}/ws", headers=bob) as socket:
        assert socket.receive_json() == {"type": "hello"}
        while True:
            invited = client.post(
                f"{API}/games", json={"game": "pig", "seats": ["me", "bob"]}, headers=alice
            ).json()
            invitation = next_game_push(socket, told)
            assert invitation["game"] == invited["id"]
            assert (invitation["status"], invitation["your_turn"]) == ("waiting", False)
            game = client.post(f"{API}/games/{invited['id']}/accept", headers=bob).json()
            started = next_game_push(socket, told)
            assert (started["game"], started["status"]) == (game["id"], "active")
            assert started["your_turn"] is (game["to_act"] == 1)
            if game["to_act"] == 0:  # not passed to bob by a first roll of 1
                break
        response = client.post(
            f"{API}/games/{game['id']}/actions",
            json={"action": {"type": "hold"}, "expected_version": game["version"]},
            headers=alice,
        )
        assert response.status_code == 200
        told.clear()
        pushed = next_game_push(socket, told)
        if response.json()["to_act"] == 1:
            # Bob is also told, in his notifications (pushed as the move commits).
            assert [(n["kind"], n["game"]) for n in told] == [("your_turn", game["id"])]
        assert pushed == {
            "type": "game",
            "game": game["id"],
            "version": response.json()["version"],
            "status": "active",
            # bob's turn now, unless bob's first roll was a 1 and passed it back
            "your_turn": response.json()["to_act"] == 1,
        }


def _redis_ok() -> bool:
    try:
        return bool(redis.Redis.from_url("redis://127.0.0.1:6379/0").ping())
    except redis.RedisError:
        return False


def test_push_crosses_processes_through_redis(tmp_path: Any) -> None:
    import os

    if not _redis_ok():
        if os.environ.get("CI"):
            pytest.fail("Redis at 127.0.0.1:6379 is required in CI")
        pytest.skip("Redis is not running here")
    url = f"sqlite:///{tmp_path}/shared.sqlite3"
    redis_url = "redis://127.0.0.1:6379/0"
    first, second = (
        LiveServer(url, redis_url, plugins=PIG_PLUGIN),
        LiveServer(url, redis_url, plugins=PIG_PLUGIN),
    )
    first.start()
    second.start()
    services = build_services(site_settings(url))
    try:
        alice = add_user(services, f"a{uuid.uuid4().hex[:8]}")
        bob_name = f"b{uuid.uuid4().hex[:8]}"
        bob = add_user(services, bob_name)
        ws_url = second.base.replace("http", "ws") + f"{API}/ws"
        with connect(ws_url, additional_headers=bob, open_timeout=10) as socket:
            assert json.loads(socket.recv(timeout=10)) == {"type": "hello"}
            import httpx2

            game = httpx2.post(
                f"{first.base}{API}/games",
                json={"game": "pig", "seats": ["me", bob_name]},
                headers=alice,
                timeout=10,
            ).json()
            # Bob hears of the game twice: his invitation (a notification) and the game.
            messages = [json.loads(socket.recv(timeout=10)) for _ in range(2)]
            heard = sorted((m["type"], m.get("kind", ""), m["game"]) for m in messages)
            assert heard == [
                ("game", "", game["id"]),
                ("notification", "invitation", game["id"]),
            ]
    finally:
        first.stop()
        second.stop()
        services.engine.dispose()
