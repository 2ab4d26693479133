"""Redis down, and two sites on one Redis: rate limits and pushes keep working and apart."""

from __future__ import annotations

import asyncio
import os
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from fastapi.testclient import TestClient

from dicehall.server.app import create_app
from dicehall.server.asgi import settings_from_env
from dicehall.server.core.config import Settings
from dicehall.server.core.sitename import derive_site_name, site_name
from dicehall.server.domain.services import Services, build_services
from dicehall.server.infra.push import LocalBroker, RedisBroker, make_broker
from dicehall.server.infra.ratelimit import RedisLimiter, make_limiter
from tests.live import add_user
from tests.server.conftest import site_settings
from tests.server.pig_entry import register_pig

register_pig()
API = "/api/v1"
REDIS_URL = "redis://127.0.0.1:6379/0"
DEAD_REDIS = "redis://127.0.0.1:1/0"


def _redis_ok() -> bool:
    try:
        return bool(redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1).ping())
    except redis.RedisError:
        return False


def need_redis() -> None:
    if not _redis_ok():
        if os.environ.get("CI"):
            pytest.fail("Redis at 127.0.0.1:6379 is required in CI")
        pytest.skip("Redis is not running here")


@pytest.fixture
def dead_redis_site(db_url: str) -> Iterator[Services]:
    """A site whose Redis URL points at a closed port; 3 log-in attempts a minute."""
    built = build_services(site_settings(db_url, redis_url=DEAD_REDIS, auth_rate_per_minute=3))
    try:
        yield built
    finally:
        built.engine.dispose()


def test_rate_limits_hold_while_redis_is_down(dead_redis_site: Services) -> None:
    assert isinstance(dead_redis_site.limiter, RedisLimiter)
    with TestClient(create_app(services=dead_redis_site), client=("192.0.2.7", 1)) as client:
        body = {"user_id": "nobody1", "password": "wrong password"}
        statuses = [client.post(f"{API}/auth/login", json=body).status_code for _ in range(4)]
    assert statuses == [401, 401, 401, 429]


def test_games_and_pushes_work_while_redis_is_down(dead_redis_site: Services) -> None:
    alice, bob = add_user(dead_redis_site, "alice"), add_user(dead_redis_site, "bob")
    with (
        TestClient(create_app(services=dead_redis_site)) as client,
        client.websocket_connect(f"{API}/ws", headers=bob) as socket,
    ):
        assert socket.receive_json() == {"type": "hello"}
        started = time.monotonic()
        created = client.post(
            f"{API}/games", json={"game": "pig", "seats": ["me", "bob"]}, headers=alice
        )
        assert created.status_code == 201, created.text
        game = created.json()
        # The push still reaches a socket of this process.
        assert game_push(socket)["game"] == game["id"]
        accepted = client.post(f"{API}/games/{game['id']}/accept", headers=bob)
        assert accepted.status_code == 200, accepted.text
        game = accepted.json()
        assert game_push(socket)["status"] == "active"
        if game["to_act"] == 0:
            moved = client.post(
                f"{API}/games/{game['id']}/actions",
                json={"action": {"type": "hold"}, "expected_version": game["version"]},
                headers=alice,
            )
            assert moved.status_code == 200, moved.text
        assert time.monotonic() - started < 10


def game_push(socket: Any) -> Any:
    """The next game push on ``socket`` (a notification may come first: "your turn")."""
    for _ in range(10):
        message = socket.receive_json()
        if message["type"] == "game":
            return message
        assert message["type"] == "notification", message
    raise AssertionError("no game push")


def test_publish_to_a_dead_redis_never_raises() -> None:
    async def scenario() -> list[dict[str, Any]]:
        broker = RedisBroker(DEAD_REDIS, "dead-site", timeout=0.2)
        await broker.start()
        try:
            async with broker.subscribe(7) as subscription:
                for version in range(5):
                    broker.publish(7, {"type": "game", "version": version})
                got = [await asyncio.wait_for(subscription.queue.get(), 5) for _ in range(5)]
        finally:
            await broker.stop()
        return got

    assert [m["version"] for m in asyncio.run(scenario())] == [0, 1, 2, 3, 4]


def test_site_name_is_derived_from_the_database() -> None:
    one = derive_site_name("postgresql://postgres:secret@db.example:5432/dicehall")
    assert one == derive_site_name("postgresql://postgres:other@db.example:5432/dicehall")
    assert one != derive_site_name("postgresql://postgres@db.example:5432/dicehall_two")
    assert "secret" not in one and len(one) <= 20
    assert site_name(Settings(db_url="sqlite:///a.sqlite3")) != site_name(
        Settings(db_url="sqlite:///b.sqlite3")
    )
    assert site_name(Settings(db_url="sqlite:///a.sqlite3", site_name="blue")) == "blue"
    with pytest.raises(ValueError, match="site name"):
        site_name(Settings(db_url="sqlite://", site_name="has space"))


def test_site_name_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DICEHALL_DB_URL", "sqlite:////tmp/x.sqlite3")
    monkeypatch.setenv("DICEHALL_SITE_NAME", "green-site")
    assert settings_from_env().site_name == "green-site"
    monkeypatch.setenv("DICEHALL_SITE_NAME", "no/slashes")
    with pytest.raises(ValueError, match="site name"):
        settings_from_env()


def test_rate_limit_keys_carry_the_site_name() -> None:
    first = make_limiter(Settings(db_url="sqlite:///one.sqlite3", redis_url=REDIS_URL))
    second = make_limiter(Settings(db_url="sqlite:///two.sqlite3", redis_url=REDIS_URL))
    named = make_limiter(Settings(db_url="sqlite://", redis_url=REDIS_URL, site_name="blue"))
    assert isinstance(first, RedisLimiter) and isinstance(second, RedisLimiter)
    assert isinstance(named, RedisLimiter)
    assert first.prefix != second.prefix
    assert named.prefix == "dicehall:blue:ratelimit:"


def test_brokers_of_two_sites_do_not_hear_each_other() -> None:
    need_redis()
    red, blue = f"red-{uuid.uuid4().hex[:8]}", f"blue-{uuid.uuid4().hex[:8]}"

    async def scenario() -> tuple[list[Any], list[Any]]:
        red_one, red_two = RedisBroker(REDIS_URL, red), RedisBroker(REDIS_URL, red)
        blue_one = RedisBroker(REDIS_URL, blue)
        brokers = [red_one, red_two, blue_one]
        for broker in brokers:
            await broker.start()  # returns once Redis confirmed its listener's subscription
            assert broker.subscribed
        try:
            async with (
                red_two.subscribe(1) as red_socket,
                blue_one.subscribe(1) as blue_socket,
            ):
                red_one.publish(1, {"type": "game", "site": "red"})
                heard_red = [await asyncio.wait_for(red_socket.queue.get(), 5)]
                # Redis has handled the red push (red_two heard it). A marker published on
                # blue's channel after it reaches blue's listener after anything Redis sent
                # there before: so whatever blue heard of red is queued before the marker.
                blue_one.publish(1, {"type": "marker"})
                heard_blue = []
                while (message := await asyncio.wait_for(blue_socket.queue.get(), 5)) != {
                    "type": "marker"
                }:
                    heard_blue.append(message)
                while not blue_socket.queue.empty():
                    heard_blue.append(blue_socket.queue.get_nowait())
        finally:
            for broker in brokers:
                await broker.stop()
        return heard_red, heard_blue

    heard_red, heard_blue = asyncio.run(scenario())
    assert heard_red == [{"type": "game", "site": "red"}]
    assert heard_blue == []


def test_make_broker_names_the_channel_after_the_site() -> None:
    broker = make_broker(Settings(db_url="sqlite://", redis_url=REDIS_URL, site_name="blue"))
    assert isinstance(broker, RedisBroker)
    assert broker.channel == "dicehall:blue:push"
    local = make_broker(Settings(db_url="sqlite://", sockets_per_user=3))
    assert type(local) is LocalBroker and local.per_user == 3
