"""The credential cache: an accepted credential is believed for a second without the
database; a refused one is never remembered; revoking, signing out and changing a setting
are seen at once in this process, and within the TTL in any other."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import delete, event

from dicehall.server.core.models import ApiToken
from dicehall.server.core.security import digest
from dicehall.server.domain import auth_cache
from dicehall.server.domain.auth_cache import AuthCache
from dicehall.server.domain.services import Services
from tests.server.conftest import MakeUser
from tests.server.test_accounts import log_in

API = "/api/v1"


@pytest.fixture
def statements(services: Services) -> Iterator[list[str]]:
    """Every statement the site's engines run, as it runs them."""
    seen: list[str] = []

    def note(*args: object) -> None:
        seen.append(str(args[2]))

    engines = {services.engine, services.write_engine}
    for engine in engines:
        event.listen(engine, "before_cursor_execute", note)
    yield seen
    for engine in engines:
        event.remove(engine, "before_cursor_execute", note)


def _token_reads(seen: list[str]) -> int:
    return sum("api_tokens" in s and s.lstrip().upper().startswith("SELECT") for s in seen)


def test_a_known_token_is_read_once_a_second(
    client: TestClient, make_user: MakeUser, statements: list[str]
) -> None:
    ann = make_user("ann")
    for _ in range(5):
        assert client.get(f"{API}/users/me", headers=ann).status_code == 200
    assert _token_reads(statements) == 1


def test_a_refused_token_is_never_remembered(client: TestClient, statements: list[str]) -> None:
    wrong = {"Authorization": "Bearer not-a-token"}
    for _ in range(3):
        assert client.get(f"{API}/users/me", headers=wrong).status_code == 401
    assert _token_reads(statements) >= 3
    cache: AuthCache = client.app.state.auth_cache  # type: ignore[attr-defined]
    assert cache.get(("token", digest("not-a-token"))) is None


def test_revoking_a_token_refuses_it_at_once(client: TestClient, make_user: MakeUser) -> None:
    ann = make_user("ann")
    browser = {"X-CSRF-Token": log_in(client, "ann")}  # tokens are made from a browser
    made = client.post(f"{API}/tokens", json={"name": "second"}, headers=browser).json()
    second = {"Authorization": f"Bearer {made['token']}"}
    assert client.get(f"{API}/users/me", headers=second).status_code == 200
    assert client.delete(f"{API}/tokens/{made['id']}", headers=ann).status_code == 200
    assert client.get(f"{API}/users/me", headers=second).status_code == 401


def test_another_process_revoking_is_seen_within_the_ttl(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    ann = make_user("ann")
    clock = [1000.0]
    client.app.state.auth_cache = AuthCache(clock=lambda: clock[0])  # type: ignore[attr-defined]
    assert client.get(f"{API}/users/me", headers=ann).status_code == 200
    # Another process deletes the token: this one does not hear of it.
    with services.write_conn() as conn:
        conn.execute(delete(ApiToken))
    clock[0] += auth_cache.TTL / 2
    assert client.get(f"{API}/users/me", headers=ann).status_code == 200
    clock[0] += auth_cache.TTL
    assert client.get(f"{API}/users/me", headers=ann).status_code == 401


def test_a_changed_display_name_shows_at_once(client: TestClient, make_user: MakeUser) -> None:
    ann = make_user("ann")
    assert client.get(f"{API}/users/me", headers=ann).json()["display_name"] == "ann"
    changed = client.patch(f"{API}/users/me", json={"display_name": "Annie"}, headers=ann)
    assert changed.status_code == 200, changed.text
    assert client.get(f"{API}/users/me", headers=ann).json()["display_name"] == "Annie"


def test_a_read_from_before_a_change_is_not_put_back() -> None:
    cache = AuthCache()
    read_at = auth_cache.generation()
    auth_cache.credentials_changed()
    cache.put(("token", "x"), object(), read_at)
    assert cache.get(("token", "x")) is None
    row = object()
    cache.put(("token", "x"), row, auth_cache.generation())
    assert cache.get(("token", "x")) is row
    auth_cache.credentials_changed()
    assert cache.get(("token", "x")) is None


def test_the_cache_stays_within_its_capacity() -> None:
    cache = AuthCache(capacity=10)
    for n in range(25):
        cache.put(("token", str(n)), n, auth_cache.generation())
    assert len(cache._entries) <= 10
    assert cache.get(("token", "24")) == 24
