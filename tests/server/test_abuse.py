"""What one user does must not lock out or outgrow another: log-in lockouts (the owner's
device proof outlasts a stranger's guesses), the token cap."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from threading import Barrier

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from dicehall.server.app import create_app
from dicehall.server.core.models import ApiToken, User
from dicehall.server.domain import account_checks, accounts
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.services import Services, build_services
from dicehall.server.web.forms import CSRF_FIELD, FORM_COOKIE
from tests.server.conftest import MakeUser, site_settings
from tests.server.test_accounts import API, PASSWORD

ATTACKER = ("198.51.100.66", 5000)
ALICE_HOME = ("198.51.100.7", 5000)


@pytest.fixture
def default_limits(db_url: str) -> Iterator[Services]:
    """A site with the default 20 log-in attempts a minute."""
    built = build_services(site_settings(db_url, auth_rate_per_minute=20))
    try:
        yield built
    finally:
        built.engine.dispose()


def _login(client: TestClient, password: str, user_id: str = "alice") -> int:
    body = {"user_id": user_id, "password": password}
    return int(client.post(f"{API}/auth/login", json=body).status_code)


def test_wrong_passwords_from_elsewhere_do_not_lock_the_owner_out(
    default_limits: Services, make_user: MakeUser
) -> None:
    make_user("alice")
    app = create_app(services=default_limits)
    with TestClient(app, client=ATTACKER) as attacker:
        alice = TestClient(app, client=ALICE_HOME)  # her browser, beside the attacker's
        assert _login(alice, PASSWORD) == 200  # it keeps its device proof
        statuses = [_login(attacker, f"guess number {n}") for n in range(21)]
        # Five guesses, then alice's user id waits (and the address's own limit comes).
        assert statuses == [401] * 5 + [429] * 16
        # The attacker's address stays limited, even with the right password.
        assert _login(attacker, PASSWORD) == 429
        # Other user ids from it: the address's limit alone.
        assert _login(attacker, "guess", "bob") == 429
        assert _login(alice, PASSWORD) == 200


def test_the_log_in_form_is_limited_the_same_way(
    default_limits: Services, make_user: MakeUser
) -> None:
    make_user("alice")
    app = create_app(services=default_limits)

    def form_login(client: TestClient, password: str) -> int:
        token = "t" * 32
        client.cookies.set(FORM_COOKIE, token)
        data = {"user_id": "alice", "password": password, CSRF_FIELD: token, "next": "/"}
        response = client.post("/login", data=data, follow_redirects=False)
        if response.status_code == 422 and "Too many attempts" in response.text:
            return 429
        return int(response.status_code)

    def form_guess(client: TestClient, n: int) -> int:
        # A new user id each time: the address's limit, not one user id's delay.
        token = "t" * 32
        client.cookies.set(FORM_COOKIE, token)
        data = {"user_id": f"user{n}", "password": "guess", CSRF_FIELD: token, "next": "/"}
        response = client.post("/login", data=data, follow_redirects=False)
        if response.status_code == 422 and "Too many attempts" in response.text:
            return 429
        return int(response.status_code)

    with TestClient(app, client=ATTACKER) as attacker:
        statuses = [form_guess(attacker, n) for n in range(21)]
        assert statuses == [422] * 20 + [429]
        assert form_login(attacker, PASSWORD) == 429
    with TestClient(app, client=ALICE_HOME) as alice:
        assert form_login(alice, PASSWORD) == 303


def test_an_ipv6_client_cannot_dodge_the_limit_by_changing_address(
    default_limits: Services,
) -> None:
    app = create_app(services=default_limits)
    statuses = []
    for n in range(21):
        with TestClient(app, client=(f"2001:db8:5:6::{n + 1:x}", 5000)) as client:
            body = {"user_id": f"user{n}", "password": "wrong password"}
            statuses.append(client.post(f"{API}/auth/login", json=body).status_code)
    assert statuses == [401] * 20 + [429]
    with TestClient(app, client=("2001:db8:5:7::1", 5000)) as neighbour:
        body = {"user_id": "user1", "password": "wrong password"}
        assert neighbour.post(f"{API}/auth/login", json=body).status_code == 401


@pytest.mark.both_databases
def test_the_token_cap_holds_under_parallel_creates(
    services: Services, make_user: MakeUser
) -> None:
    make_user("alice")  # already holds one token
    with services.sessions() as db:
        alice = db.scalar(select(User).where(User.key == "alice"))
    assert alice is not None
    gate = Barrier(16)

    def create(n: int) -> str:
        if n < 16:
            gate.wait()
        try:
            accounts.create_token(services, alice, f"bot {n}")
        except Refused as exc:
            return exc.code
        return "created"

    with ThreadPoolExecutor(16) as pool:
        outcomes = list(pool.map(create, range(64)))
    with services.sessions() as db:
        held = db.scalar(
            select(func.count()).select_from(ApiToken).where(ApiToken.user_pk == alice.id)
        )
    assert held == account_checks.TOKENS_PER_USER
    assert outcomes.count("created") == account_checks.TOKENS_PER_USER - 1
    assert set(outcomes) == {"created", "too_many_tokens"}
