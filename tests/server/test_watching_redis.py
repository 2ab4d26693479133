"""Spectators counted across server processes through Redis: each process's sockets add to
one count per game, a game's pushes reach its followers on every process (a spectator on
one server process sees a move made on another), and a process's places expire unless it
renews them (so a dead process drops out of the count)."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from typing import Any

import httpx2
import pytest
import redis
from websockets.sync.client import connect

from dicehall.server.domain.services import build_services
from dicehall.server.infra import push
from dicehall.server.infra.push import RedisBroker
from tests.live import LiveServer, add_user
from tests.server.conftest import site_settings
from tests.server.test_redis_isolation import REDIS_URL, need_redis
from tests.waiting import wait_until_async

GAME = 5


async def _next(queue: asyncio.Queue[dict[str, Any]], kind: str) -> dict[str, Any]:
    while True:
        message = await asyncio.wait_for(queue.get(), 5)
        if message["type"] == kind:
            return message


def test_spectators_are_counted_across_processes(monkeypatch: pytest.MonkeyPatch) -> None:
    need_redis()
    site = f"watch-{uuid.uuid4().hex[:8]}"
    key = f"dicehall:{site}:watching:{GAME}"
    # Places renewed often here, so that a lost one is seen to come back.
    monkeypatch.setattr(push, "WATCH_RENEW_SECONDS", 0.2)
    plain = redis.Redis.from_url(REDIS_URL)

    async def scenario() -> None:
        one, two = RedisBroker(REDIS_URL, site), RedisBroker(REDIS_URL, site)
        for broker in (one, two):
            await broker.start()  # returns once Redis confirmed its listener's subscription
            assert broker.subscribed
        first: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        second: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        player: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        try:
            async with one.watch(GAME, first, user_pk=None, counted=True):
                assert (await _next(first, "watching"))["watching"] == 1
                async with two.watch(GAME, second, user_pk=3, counted=True):
                    joined = await _next(first, "watching")
                    assert joined["watching"] == 2
                    assert (await _next(second, "watching"))["watching"] == 2
                    for broker in (one, two):
                        assert (await broker.watching(GAME))[0] == 2
                    # A player's board on a third socket follows the game, uncounted, and
                    # hears counts but not the spectators' game pushes.
                    async with one.watch(GAME, player, user_pk=4, counted=False):
                        assert (await two.watching(GAME))[0] == 2
                        one.publish_game(GAME, {"type": "game", "game": GAME, "version": 9})
                        assert (await _next(second, "game"))["version"] == 9
                        assert (await _next(first, "game"))["version"] == 9
                        # A marker published after the push: once it has come, so would have
                        # the push (one channel, one publisher: Redis keeps the order).
                        one.publish_game(GAME, {"type": "marker", "game": GAME})
                        heard = await _until(player, "marker")
                        assert all(m["type"] != "game" for m in heard + _drain(player))
                    # Redis lost the places (a restart): the processes put them back.
                    # (Checked before the loop runs again: a renewal may come at any await.)
                    plain.delete(key)
                    assert plain.zcard(key) == 0

                    async def both_back() -> bool:
                        return (await one.watching(GAME))[0] == 2

                    renewed: bool = await wait_until_async(
                        both_back, timeout=5, what="both processes to renew their places"
                    )
                    assert renewed
                left = await _next(first, "watching")
                assert left["watching"] == 1 and left["seq"] > joined["seq"]
            assert (await two.watching(GAME))[0] == 0
            # A place its process no longer renews (a dead process) is not counted.
            plain.zadd(key, {"gone:1": time.time() - 1})
            assert (await two.watching(GAME))[0] == 0
        finally:
            for broker in (one, two):
                await broker.stop()

    try:
        asyncio.run(scenario())
    finally:
        plain.delete(key)
        plain.close()


async def _until(queue: asyncio.Queue[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    """What the queue holds before the next message of type ``kind`` (which is taken)."""
    before = []
    while (message := await asyncio.wait_for(queue.get(), 5))["type"] != kind:
        before.append(message)
    return before


def _drain(queue: asyncio.Queue[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    while not queue.empty():
        out.append(queue.get_nowait())
    return out


def test_counts_stay_local_while_redis_is_down() -> None:
    async def scenario() -> tuple[int, int]:
        broker = RedisBroker("redis://127.0.0.1:1/0", f"down-{uuid.uuid4().hex[:8]}")
        await broker.start()
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        try:
            async with broker.watch(GAME, queue, user_pk=None, counted=True):
                heard = await _next(queue, "watching")
                counted = (await broker.watching(GAME))[0]
        finally:
            await broker.stop()
        return heard["watching"], counted

    assert asyncio.run(scenario()) == (1, 1)


def test_a_spectator_on_another_process_follows_the_game(tmp_path: Any) -> None:
    need_redis()
    url = f"sqlite:///{tmp_path}/shared.sqlite3"
    first, second = LiveServer(url, REDIS_URL), LiveServer(url, REDIS_URL)
    first.start()
    second.start()
    services = build_services(site_settings(url))
    try:
        alice = add_user(services, f"a{uuid.uuid4().hex[:8]}")
        game = httpx2.post(
            f"{first.base}/api/v1/games",
            json={"game": "boatzee", "seats": ["me", "bot:random"]},
            headers=alice,
            timeout=10,
        ).json()
        ws_url = second.base.replace("http", "ws") + f"/api/v1/ws?watch={game['id']}"
        with connect(ws_url, open_timeout=10) as socket:  # signed out
            assert json.loads(socket.recv(timeout=10)) == {"type": "hello"}
            assert json.loads(socket.recv(timeout=10))["watching"] == 1
            # The first process counts the spectator of the second.
            watchers = httpx2.get(f"{first.base}/api/v1/games/{game['id']}/watchers", timeout=10)
            assert watchers.json() == {"watchers": [], "watching": 1}
            action = next(a for a in game["legal"] if a["type"] == "score")
            moved = httpx2.post(
                f"{first.base}/api/v1/games/{game['id']}/actions",
                json={"action": action, "expected_version": game["version"]},
                headers=alice,
                timeout=10,
            )
            assert moved.status_code == 200, moved.text
            pushed = json.loads(socket.recv(timeout=10))
            assert pushed == {
                "type": "game",
                "game": game["id"],
                "version": pushed["version"],
                "status": "active",
            }
            assert pushed["version"] > game["version"]
    finally:
        first.stop()
        second.stop()
        services.engine.dispose()
