"""Who is here through Redis: every process of a site lists the same people (two stores, two
apps on one database, two server processes), sites sharing a Redis never mix, old entries
are trimmed from both keys, and a process answers from its own memory while Redis is down."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx2
import pytest
import redis
from fastapi.testclient import TestClient
from websockets.sync.client import connect

from dicehall.server.app import create_app
from dicehall.server.core.sitename import derive_site_name, redis_prefix
from dicehall.server.domain.services import Services, build_services
from dicehall.server.infra.presence import (
    IDLE,
    LOOKING,
    RedisPresence,
    Windows,
    at_game,
)
from tests.live import LiveServer, add_user
from tests.server.conftest import fresh_postgres_db, site_settings
from tests.server.test_redis_isolation import REDIS_URL, need_redis

API = "/api/v1"
T0 = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)


def _later(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def _forget_site(prefix: str) -> None:
    plain = redis.Redis.from_url(REDIS_URL)
    try:
        for key in plain.scan_iter(f"{prefix}presence:*"):
            plain.delete(key)
    finally:
        plain.close()


@pytest.fixture
def prefix() -> Iterator[str]:
    need_redis()
    made = redis_prefix(f"here-{uuid.uuid4().hex[:8]}")
    try:
        yield made
    finally:
        _forget_site(made)


def test_two_stores_of_one_site_agree_and_trim_together(prefix: str) -> None:
    one, two = RedisPresence(REDIS_URL, prefix), RedisPresence(REDIS_URL, prefix)
    other_site = RedisPresence(REDIS_URL, prefix.replace("here-", "there-"))
    try:
        one.touch(1, at_game(7), T0)
        two.touch(2, LOOKING, _later(10))
        one.touch(3, IDLE, _later(10))
        for store in (one, two):
            online, recent = store.listing(_later(20))
            assert [(s.user_pk, s.activity) for s in online] == [
                (2, LOOKING),
                (3, IDLE),
                (1, at_game(7)),
            ]
            assert recent == [] and store.counts(_later(20)) == (3, 0)
            assert store.online_among([1, 2, 4], _later(125)) == {2}
        assert other_site.listing(_later(20)) == ([], [])
        # A touch that names nothing keeps the activity another process wrote.
        one.touch(2, None, _later(30))
        online, _ = two.listing(_later(30))
        assert online[0].user_pk == 2 and online[0].activity == LOOKING
        assert online[0].seen_at == _later(30)
        assert two.counts(_later(125)) == (2, 1)  # 1 seen 125 s ago: recent
        # A late touch from another process never moves a user back in time.
        two.touch(2, None, _later(29))
        assert one.listing(_later(31))[0][0].seen_at == _later(30)
        # Hidden on one process: gone for every process.
        two.touch(3, IDLE, _later(40), shown=False)
        assert [s.user_pk for s in one.listing(_later(40))[0]] == [2, 1]
        # 15 minutes on, a touch trims the older entries from the set and the hash.
        one.touch(5, IDLE, _later(925))
        plain = redis.Redis.from_url(REDIS_URL)
        try:
            assert plain.zrange(one.seen_key, 0, -1) == [b"2", b"5"]
            assert sorted(plain.hkeys(one.doing_key)) == [b"2", b"5"]
            assert 0 < plain.ttl(one.seen_key) <= 900 * 2 + 60
        finally:
            plain.close()
    finally:
        for store in (one, two, other_site):
            store.close()


def test_a_process_answers_from_its_memory_while_redis_is_down() -> None:
    store = RedisPresence("redis://127.0.0.1:1/0", redis_prefix("down"), Windows(120, 900))
    store.touch(1, IDLE, T0)
    assert [s.user_pk for s in store.listing(_later(1))[0]] == [1]
    assert store.counts(_later(1)) == (1, 0)
    assert store.online_among([1, 2], _later(1)) == {1}


def _listing(client: TestClient, headers: dict[str, str]) -> dict[str, Any]:
    answer = client.get(f"{API}/presence", headers=headers)
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


def _online(found: dict[str, Any]) -> list[str]:
    return [entry["user_id"] for entry in found["online"]]


@pytest.fixture
def two_apps(db_url: str) -> Iterator[tuple[Services, Services]]:
    """Two apps of one site (one database, one Redis, one site name), as two processes."""
    need_redis()
    name = f"pair-{uuid.uuid4().hex[:8]}"
    built = [
        build_services(site_settings(db_url, redis_url=REDIS_URL, site_name=name)) for _ in range(2)
    ]
    try:
        yield built[0], built[1]
    finally:
        for services in built:
            services.engine.dispose()
        _forget_site(redis_prefix(name))


def test_two_apps_sharing_redis_list_the_same_people(
    two_apps: tuple[Services, Services],
) -> None:
    first_site, second_site = two_apps
    for services in two_apps:  # keyed under the site's name, as pushes and limits are
        assert isinstance(services.presence, RedisPresence)
        assert services.presence.seen_key.startswith("dicehall:pair-")
    ann, bob, cat = (add_user(first_site, name) for name in ("ann", "bob", "cat"))
    with (
        TestClient(create_app(services=first_site)) as first,
        TestClient(create_app(services=second_site)) as second,
    ):
        made = first.post(
            f"{API}/games", json={"game": "boatzee", "seats": ["me", "bot:greedy"]}, headers=ann
        )
        assert made.status_code == 201, made.text
        game = made.json()["id"]
        first.get(f"{API}/games/{game}", headers=ann)  # ann plays, on the first process
        found = _listing(second, bob)
        assert _online(found) == ["ann", "bob"]
        assert found["online"][0]["doing"] == {"what": "playing", "game": game, "kind": "boatzee"}
        # cat's socket is open on the second process: the first lists her.
        with second.websocket_connect(f"{API}/ws", headers=cat) as socket:
            assert socket.receive_json() == {"type": "hello"}
            assert _online(_listing(first, bob)) == ["ann", "bob", "cat"]
        assert first.get(f"{API}/presence/counts").json() == {"online": 3, "recent": 0}
        assert second.get(f"{API}/presence/counts").json() == {"online": 3, "recent": 0}


def test_two_server_processes_sharing_redis_agree(tmp_path: Any, postgres_ok: bool) -> None:
    need_redis()
    url, drop = fresh_postgres_db() if postgres_ok else (f"sqlite:///{tmp_path}/two.sqlite3", None)
    first, second = LiveServer(url, REDIS_URL), LiveServer(url, REDIS_URL)
    services: Services | None = None
    try:
        first.start()
        second.start()
        services = build_services(site_settings(url))
        ann, bob, cat = (add_user(services, name) for name in ("ann", "bob", "cat"))
        assert httpx2.get(f"{first.base}{API}/notifications", headers=ann, timeout=10).is_success

        def online_on(server: LiveServer) -> list[str]:
            answer = httpx2.get(f"{server.base}{API}/presence", headers=bob, timeout=10)
            assert answer.status_code == 200, answer.text
            return _online(answer.json())

        assert online_on(second) == ["ann", "bob"]
        ws_url = second.base.replace("http", "ws") + f"{API}/ws"
        with connect(ws_url, additional_headers=cat, open_timeout=10) as socket:
            assert json.loads(socket.recv(timeout=10)) == {"type": "hello"}
            assert online_on(first) == ["ann", "bob", "cat"]
        counts = httpx2.get(f"{first.base}{API}/presence/counts", timeout=10).json()
        assert counts == {"online": 3, "recent": 0}
    finally:
        first.stop()
        second.stop()
        if services is not None:
            services.engine.dispose()
        _forget_site(redis_prefix(derive_site_name(url)))
        if drop is not None:
            drop()
