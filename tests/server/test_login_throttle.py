"""Guesses at one user id spread over many addresses: after 5 failures in 15 minutes each
next try waits 1 s, 2 s, 4 s ... (at most 5 minutes), whatever address it comes from; the
owner's browser, with its device proof, is never held up. Time moves with the site's clock
(the limits' memory store reads the same clock)."""

from __future__ import annotations

import re
import uuid

import httpx2
import redis
from fastapi.testclient import TestClient
from time_machine import TimeMachineFixture

from dicehall.server.app import create_app
from dicehall.server.core.clock import now
from dicehall.server.domain import login_guard
from dicehall.server.domain.services import Services
from dicehall.server.http.session_cookie import DEVICE_COOKIE
from dicehall.server.infra.login_throttle import (
    FAILURE_WINDOW,
    FREE_FAILURES,
    LONGEST_DELAY,
    MemoryThrottle,
    RedisThrottle,
)
from dicehall.server.web.forms import CSRF_FIELD, FORM_COOKIE
from tests.server.conftest import MakeUser
from tests.server.test_accounts import API, PASSWORD, error, sign_up

REDIS_URL = "redis://127.0.0.1:6379/0"
_addresses = iter(range(1, 10**6))


def _stranger(client: TestClient, proof: str | None = None) -> TestClient:
    """A browser at a new address (each guess of the attack comes from another one)."""
    n = next(_addresses)
    fresh = TestClient(client.app, client=(f"10.{n // 65536}.{n // 256 % 256}.{n % 256}", 4000))
    if proof is not None:
        fresh.cookies.set(DEVICE_COOKIE, proof)
    return fresh


def _try(client: TestClient, user_id: str = "bob", password: str = "a guess") -> httpx2.Response:
    return client.post(f"{API}/auth/login", json={"user_id": user_id, "password": password})


def _held(answer: httpx2.Response) -> int:
    """The wait a refusal of the per-user-id delay asks for (checked against its body)."""
    message = error(answer, 429, "rate_limited")
    wait = int(answer.headers["retry-after"])
    assert answer.json()["retry_after"] == wait
    assert message == (
        f"too many failed log-ins at this user id; try again in {wait} seconds "
        "(a browser that logged in to it before is not held up)"
    )
    return wait


def test_guesses_from_many_addresses_wait_longer_and_longer(
    client: TestClient, make_user: MakeUser, time_machine: TimeMachineFixture
) -> None:
    time_machine.move_to(now(), tick=False)
    make_user("bob")
    answers = [_try(_stranger(client)) for _ in range(40)]
    assert [a.status_code for a in answers] == [401] * 5 + [429] * 35
    assert {_held(a) for a in answers[5:]} == {1}
    # A refused try is not counted: each wait let out, one guess goes in, and the next
    # wait doubles, up to five minutes.
    waits = []
    wait = 1
    for _ in range(9):
        time_machine.shift(wait)
        assert _try(_stranger(client)).status_code == 401
        wait = _held(_try(_stranger(client)))
        waits.append(wait)
    assert waits == [2, 4, 8, 16, 32, 64, 128, 256, LONGEST_DELAY]
    # The right password waits too (it is not even checked), and so does a user id
    # nobody has, so the delay tells nobody which ids exist.
    _held(_try(_stranger(client), password=PASSWORD))
    for _ in range(5):
        assert _try(_stranger(client), "nobody1").status_code == 401
    _held(_try(_stranger(client), "nobody1"))
    # Fifteen minutes without a failure and the user id is free again.
    time_machine.shift(FAILURE_WINDOW)
    assert [_try(_stranger(client)).status_code for _ in range(4)] == [401] * 4


def test_the_owners_browser_is_never_held_up(
    client: TestClient, make_user: MakeUser, time_machine: TimeMachineFixture
) -> None:
    time_machine.move_to(now(), tick=False)
    make_user("bob")
    make_user("carl")
    home = _stranger(client)
    logged = _try(home, "BOB", PASSWORD)  # any case of the user id
    assert logged.status_code == 200
    cookie = logged.headers.get_list("set-cookie")
    device = next(c for c in cookie if c.startswith(f"{DEVICE_COOKIE}="))
    assert "httponly" in device.lower() and f"max-age={365 * 86400}" in device.lower()
    proof = home.cookies[DEVICE_COOKIE]
    carls = _try(_stranger(client), "carl", PASSWORD)
    assert carls.status_code == 200
    for _ in range(6):
        _try(_stranger(client))
    _held(_try(_stranger(client), password=PASSWORD))
    # Bob's proof lets him in at once, from any address; a wrong password from his
    # browser is just wrong (it is counted per device and per address instead).
    assert _try(home, "bob", "a slip").status_code == 401
    assert _try(home, "bob", PASSWORD).status_code == 200
    assert _try(_stranger(client, proof), "bob", PASSWORD).status_code == 200
    # Carl's proof is no proof for bob, and neither is a forged or stale one.
    carl_proof = carls.cookies[DEVICE_COOKIE]
    _held(_try(_stranger(client, carl_proof), "bob", PASSWORD))
    forged = proof[:-3] + ("aaa" if not proof.endswith("aaa") else "bbb")
    _held(_try(_stranger(client, forged), "bob", PASSWORD))
    time_machine.shift(login_guard.DEVICE_DAYS * 86400 + 1)
    for _ in range(6):
        _try(_stranger(client))
    _held(_try(_stranger(client, proof), "bob", PASSWORD))


def test_the_browser_that_made_the_account_is_its_owners(
    client: TestClient, time_machine: TimeMachineFixture
) -> None:
    time_machine.move_to(now(), tick=False)
    made = _stranger(client)
    sign_up(made, "dana")
    assert DEVICE_COOKIE in made.cookies
    for _ in range(6):
        _try(_stranger(client), "dana")
    _held(_try(_stranger(client), "dana", PASSWORD))
    assert _try(made, "dana", PASSWORD).status_code == 200


def test_the_log_in_form_gives_and_honours_the_proof(
    services: Services, make_user: MakeUser, time_machine: TimeMachineFixture
) -> None:
    time_machine.move_to(now(), tick=False)
    make_user("bob")
    app = create_app(services=services)

    def form_login(web: TestClient, password: str) -> httpx2.Response:
        web.cookies.set(FORM_COOKIE, "t" * 32)
        data = {"user_id": "bob", "password": password, CSRF_FIELD: "t" * 32, "next": "/"}
        return web.post("/login", data=data, follow_redirects=False)

    with TestClient(app, client=("192.0.2.1", 4000)) as home:
        assert form_login(home, PASSWORD).status_code == 303
        assert DEVICE_COOKIE in home.cookies
        for n in range(6):
            form_login(TestClient(app, client=(f"192.0.2.{n + 10}", 4000)), "a guess")
        held = form_login(TestClient(app, client=("192.0.2.99", 4000)), PASSWORD)
        assert held.status_code == 422
        text = re.sub(r"\s+", " ", held.text)
        assert "Too many failed log-ins at this user id; try again in" in text
        assert form_login(home, PASSWORD).status_code == 303


def test_redis_shares_the_delay_between_processes() -> None:
    # Two throttles stand for two server processes sharing one Redis (CI runs Redis).
    prefix = f"dicehall:test:{uuid.uuid4().hex}:"
    first, second = RedisThrottle(REDIS_URL, prefix), RedisThrottle(REDIS_URL, prefix)
    store = redis.Redis.from_url(REDIS_URL)
    try:
        for _ in range(5):
            assert first.claim("acct") is None
            first.failed("acct")
        assert second.shared.failures("acct") == 5
        wait = second.claim("acct")
        assert wait is not None and 1 <= wait <= 2
        assert second.claim("another") is None
        assert list(store.scan_iter(match=prefix.rstrip(":") + ":*"))
    finally:
        for key in store.scan_iter(match=prefix.rstrip(":") + ":*"):
            store.delete(key)


def test_without_redis_the_delay_counts_in_memory() -> None:
    throttle = RedisThrottle("redis://127.0.0.1:1/0", "dicehall:test:dead:")
    for _ in range(5):
        assert throttle.claim("acct") is None
        throttle.failed("acct")
    assert throttle.claim("acct") is not None
    assert throttle.fallback.failures("acct") == 5


def test_guesses_sent_together_get_no_more_free_tries() -> None:
    # Guesses still checking their passwords have not failed yet: sent at once (each claim
    # before any failure is counted), they are held up as guesses sent one by one are.
    throttle = MemoryThrottle()
    turns = [throttle.claim("acct") for _ in range(40)]
    # The tries before the fifth are free, the fifth takes a turn of 1 s, the rest wait.
    assert turns[:FREE_FAILURES] == [None] * FREE_FAILURES
    assert all(wait is not None and 1 <= wait <= 2 for wait in turns[FREE_FAILURES:])
    # Tries that passed (the right password) land without counting as failures.
    for _ in range(FREE_FAILURES):
        throttle.passed("acct")
    assert throttle.claim("acct") is None and throttle.failures("acct") == 0


def test_log_ins_that_pass_are_never_held_up(
    client: TestClient, make_user: MakeUser, time_machine: TimeMachineFixture
) -> None:
    # Each try is in flight until it lands: one that passed must land too, or the owner's
    # log-ins from new browsers would pile up as if they had failed.
    time_machine.move_to(now(), tick=False)
    make_user("bob")
    answers = [_try(_stranger(client), password=PASSWORD) for _ in range(12)]
    assert [a.status_code for a in answers] == [200] * 12
    assert [_try(_stranger(client)).status_code for _ in range(4)] == [401] * 4
