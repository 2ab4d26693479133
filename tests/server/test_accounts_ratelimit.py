"""Rate limits on log-in, sign-up and password change: in memory and through Redis."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator

import httpx2
import pytest
import redis
from fastapi.testclient import TestClient
from time_machine import TimeMachineFixture

from dicehall.server.app import create_app
from dicehall.server.core.clock import now
from dicehall.server.core.config import Settings
from dicehall.server.domain.services import Services, build_services
from dicehall.server.infra.ratelimit import (
    MemoryLimiter,
    RedisLimiter,
    attempt_buckets,
    bucket,
    make_limiter,
)
from tests.server.conftest import MakeUser, site_settings
from tests.server.test_accounts import API, PASSWORD, error, log_in, sign_up

REDIS_URL = "redis://127.0.0.1:6379/0"


def _redis_ok() -> bool:
    try:
        return bool(redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1).ping())
    except redis.RedisError:
        return False


@pytest.fixture
def strict(db_url: str) -> Iterator[Services]:
    """Services that allow 3 log-in or sign-up attempts a minute."""
    built = build_services(site_settings(db_url, auth_rate_per_minute=3))
    try:
        yield built
    finally:
        built.engine.dispose()


def _login(client: TestClient, user_id: str, password: str = "wrong password") -> int:
    body = {"user_id": user_id, "password": password}
    return int(client.post(f"{API}/auth/login", json=body).status_code)


def _check_refusal(response: httpx2.Response) -> None:
    message = error(response, 429, "rate_limited")
    wait = int(response.headers["retry-after"])
    assert 1 <= wait <= 60
    assert response.json()["retry_after"] == wait
    assert message == f"too many attempts; try again in {wait} seconds"


def test_log_in_is_limited_per_address(strict: Services, make_user: MakeUser) -> None:
    app = create_app(services=strict)
    make_user("alice")
    with TestClient(app, client=("198.51.100.1", 4000)) as client:
        assert [_login(client, f"user{i}") for i in range(3)] == [401, 401, 401]
        # Over the limit even the right password is refused, before it is checked.
        refused = client.post(f"{API}/auth/login", json={"user_id": "alice", "password": PASSWORD})
        _check_refusal(refused)
        assert "set-cookie" not in refused.headers
    # Another address is not affected.
    with TestClient(app, client=("198.51.100.2", 4000)) as other:
        assert _login(other, "alice", PASSWORD) == 200


def test_log_in_is_limited_per_address_and_user_id(strict: Services, make_user: MakeUser) -> None:
    app = create_app(services=strict)
    make_user("bob")
    with TestClient(app, client=("203.0.113.1", 4000)) as client:
        statuses = [_login(client, "BOB" if index % 2 else "bob") for index in range(4)]
        assert statuses == [401, 401, 401, 429]
        _check_refusal(
            client.post(f"{API}/auth/login", json={"user_id": "bob", "password": PASSWORD})
        )
    # Another address is not limited by these counts (the user id's own delay, which
    # starts after 5 failures, is tested in test_login_throttle.py).
    with TestClient(app, client=("203.0.113.99", 4000)) as client:
        assert _login(client, "bob", PASSWORD) == 200


def test_sign_up_is_limited(strict: Services) -> None:
    app = create_app(services=strict)
    with TestClient(app) as client:
        for index in range(3):
            sign_up(TestClient(app), f"new{index}")
        refused = client.post(f"{API}/auth/signup", json={"user_id": "new9", "password": PASSWORD})
        _check_refusal(refused)
        assert client.get(f"{API}/users/new9").status_code == 404
        # Log-in has its own count.
        assert _login(client, "new0", PASSWORD) == 200


def test_password_change_is_limited(strict: Services, make_user: MakeUser) -> None:
    app = create_app(services=strict)
    make_user("dave")
    with TestClient(app) as client:
        browser = {"X-CSRF-Token": log_in(client, "dave")}  # a browser changes the password
        body = {"old_password": "guess guess", "new_password": "whatever123"}
        for _ in range(3):
            response = client.post(f"{API}/auth/password", json=body, headers=browser)
            error(response, 403, "wrong_password")
        body["old_password"] = PASSWORD
        _check_refusal(client.post(f"{API}/auth/password", json=body, headers=browser))


def test_memory_limiter_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    # At most 2 hits in any 60 s per key; a refused hit is not counted.
    moment = [1200.0]
    monkeypatch.setattr(time, "time", lambda: moment[0])
    limiter = MemoryLimiter(2, window=60)
    assert limiter.hit(["a"]) is None
    assert limiter.hit(["a", "b"]) is None
    assert limiter.hit(["a"]) == 60
    moment[0] += 59.5
    assert limiter.hit(["a"]) == 1
    assert limiter.hit(["b"]) is None
    assert limiter.hit(["b", "c"]) == 1
    moment[0] += 1
    assert limiter.hit(["a"]) is None
    # Hits older than the window no longer count.
    moment[0] += 120
    assert limiter.hit(["a", "b"]) is None
    assert limiter.hit(["a", "b"]) is None
    assert limiter.hit(["b"]) is not None


def test_buckets_are_short_and_separate() -> None:
    assert bucket("login", "user", "x" * 10000) != bucket("signup", "user", "x" * 10000)
    assert len(bucket("login", "user", "x" * 10000)) < 60
    assert bucket("login", "ip", "\ud800") != bucket("login", "ip", "?")


def test_make_limiter_picks_the_store() -> None:
    assert isinstance(make_limiter(Settings(db_url="sqlite://")), MemoryLimiter)
    limiter = make_limiter(Settings(db_url="sqlite://", redis_url=REDIS_URL))
    assert isinstance(limiter, RedisLimiter)


def test_redis_limiter_is_shared_between_processes(time_machine: TimeMachineFixture) -> None:
    if not _redis_ok():
        pytest.skip("Redis is not running here")
    # The window is counted by this process's clock (the limiter sends Redis the moments of
    # its hits): the test moves it on past the window instead of waiting the window out.
    time_machine.move_to(now(), tick=True)
    prefix = f"dicehall:test:{uuid.uuid4().hex}:"
    first = RedisLimiter(REDIS_URL, 3, window=2, prefix=prefix)
    second = RedisLimiter(REDIS_URL, 3, window=2, prefix=prefix)
    client = redis.Redis.from_url(REDIS_URL)
    try:
        assert first.hit(["k"]) is None
        assert second.hit(["k", "other"]) is None
        assert first.hit(["k"]) is None
        wait = second.hit(["other", "k"])
        assert wait is not None and 1 <= wait <= 2
        assert first.hit(["other"]) is None
        # The counts live in Redis under the site's prefix, and leave with the window.
        stored = list(client.scan_iter(match=prefix.rstrip(":") + ":*"))
        assert stored
        time_machine.shift(2.1)
        assert first.hit(["k"]) is None
    finally:
        for key in client.scan_iter(match=prefix.rstrip(":") + ":*"):
            client.delete(key)


def test_unreachable_redis_falls_back_to_memory() -> None:
    limiter = RedisLimiter("redis://127.0.0.1:1/0", 1)
    # The limit still holds, counted in this process while Redis is down.
    started = time.monotonic()
    assert limiter.hit(["k"]) is None
    assert limiter.hit(["k"]) is not None
    assert limiter.hit(["other"]) is None
    assert time.monotonic() - started < 3


def test_site_with_redis_limits_across_apps(db_url: str) -> None:
    if not _redis_ok():
        pytest.skip("Redis is not running here")
    # Two applications stand for two server processes sharing one Redis.
    address = (f"2001:db8::{uuid.uuid4().hex[:4]}", 4000)
    user_id = f"r{uuid.uuid4().hex[:12]}"
    settings = site_settings(db_url, auth_rate_per_minute=2, redis_url=REDIS_URL)
    first, second = build_services(settings), build_services(settings)
    assert isinstance(first.limiter, RedisLimiter)
    prefix = first.limiter.prefix
    try:
        one, two = create_app(services=first), create_app(services=second)
        with TestClient(one, client=address) as a, TestClient(two, client=address) as b:
            assert _login(a, user_id) == 401
            assert _login(b, user_id) == 401
            _check_refusal(a.post(f"{API}/auth/login", json={"user_id": user_id, "password": "x"}))
    finally:
        redis.Redis.from_url(REDIS_URL).delete(
            *(prefix + key for key in attempt_buckets("login", address[0], user_id))
        )
        first.engine.dispose()
        second.engine.dispose()
