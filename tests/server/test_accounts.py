"""Accounts: sign up, log in, log out, the session, CSRF, expiry and password change.

(Longer than most test modules: every credential path of an account, sessions and tokens
alike, in one place.)
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

import pytest
from argon2 import PasswordHasher
from fastapi.testclient import TestClient
from sqlalchemy import func, select, update

from dicehall.server.app import create_app
from dicehall.server.core.clock import now
from dicehall.server.core.models import ApiToken, AuthSession, User
from dicehall.server.core.security import SESSION_COOKIE, digest
from dicehall.server.domain.services import Services, build_services
from tests.server.conftest import MakeUser, site_settings

API = "/api/v1"
PASSWORD = "correct horse battery"


def sign_up(client: TestClient, user_id: str = "alice", **extra: Any) -> str:
    """Sign up through the API; the session's CSRF token."""
    body = {"user_id": user_id, "password": PASSWORD, **extra}
    response = client.post(f"{API}/auth/signup", json=body)
    assert response.status_code == 201, response.text
    token: str = response.json()["csrf_token"]
    return token


def log_in(client: TestClient, user_id: str = "alice", password: str = PASSWORD) -> str:
    """Log in through the API; the session's CSRF token."""
    response = client.post(f"{API}/auth/login", json={"user_id": user_id, "password": password})
    assert response.status_code == 200, response.text
    token: str = response.json()["csrf_token"]
    return token


def browser(client: TestClient) -> TestClient:
    """A second browser on the same site, with its own cookie jar."""
    return TestClient(client.app)


def count(services: Services, model: type[Any]) -> int:
    with services.sessions() as db:
        return db.scalar(select(func.count()).select_from(model)) or 0


def error(response: Any, status: int, code: str) -> str:
    """Assert a JSON error answer; its message."""
    assert response.status_code == status, response.text
    body = response.json()
    assert body["code"] == code, body
    message: str = body["error"]
    assert message
    return message


def test_sign_up_signs_in_with_a_safe_cookie(client: TestClient, services: Services) -> None:
    response = client.post(f"{API}/auth/signup", json={"user_id": "Alice_1", "password": PASSWORD})
    assert response.status_code == 201
    body = response.json()
    assert body["user"]["user_id"] == "Alice_1"
    assert body["user"]["display_name"] == "Alice_1"
    assert body["user"]["about"] == ""
    assert body["user"]["created_at"].endswith("+00:00")
    assert len(body["csrf_token"]) >= 32
    cookie = response.headers["set-cookie"]
    assert cookie.startswith(f"{SESSION_COOKIE}=")
    lowered = cookie.lower()
    assert "httponly" in lowered
    assert "samesite=lax" in lowered
    assert "path=/" in lowered
    assert f"max-age={30 * 86400}" in lowered
    assert "secure" not in lowered
    # The cookie signs the browser in; the stored session id is only its digest.
    me = client.get(f"{API}/users/me")
    assert me.json()["user_id"] == "Alice_1"
    secret = client.cookies[SESSION_COOKIE]
    with services.sessions() as db:
        stored = db.scalar(select(User).where(User.key == "alice_1"))
        assert stored is not None
        assert stored.password_hash.startswith("$argon2id$")
        assert db.get(AuthSession, digest(secret)) is not None
        assert db.get(AuthSession, secret) is None
    session = client.get(f"{API}/auth/session").json()
    assert session == {"user": body["user"], "csrf_token": body["csrf_token"]}


def test_sign_up_with_a_display_name(client: TestClient) -> None:
    response = client.post(
        f"{API}/auth/signup",
        json={"user_id": "bob", "password": PASSWORD, "display_name": "  Bob the Bold  "},
    )
    assert response.status_code == 201
    assert response.json()["user"]["display_name"] == "Bob the Bold"


def test_secure_cookies_when_configured(db_url: str) -> None:
    services = build_services(site_settings(db_url, secure_cookies=True))
    try:
        with TestClient(create_app(services=services), base_url="https://testserver") as client:
            response = client.post(
                f"{API}/auth/signup", json={"user_id": "carol", "password": PASSWORD}
            )
            assert response.status_code == 201
            assert "secure" in response.headers["set-cookie"].lower()
            assert client.get(f"{API}/users/me").status_code == 200
    finally:
        services.engine.dispose()


def test_user_id_rules_each_with_its_message(client: TestClient, services: Services) -> None:
    sign_up(client, "Taken")
    cases = [
        ("ab", 422, "invalid_user_id", "a user id must be 3 to 20 characters long"),
        ("a" * 21, 422, "invalid_user_id", "a user id must be 3 to 20 characters long"),
        ("", 422, "invalid_user_id", "a user id must be 3 to 20 characters long"),
        (
            "bad name",
            422,
            "invalid_user_id",
            "a user id may contain only letters (a-z, A-Z), digits, '_' and '-'",
        ),
        (
            "zoë",
            422,
            "invalid_user_id",
            "a user id may contain only letters (a-z, A-Z), digits, '_' and '-'",
        ),
        (
            "dot.name",
            422,
            "invalid_user_id",
            "a user id may contain only letters (a-z, A-Z), digits, '_' and '-'",
        ),
        ("1abc", 422, "invalid_user_id", "a user id must start with a letter"),
        ("_abc", 422, "invalid_user_id", "a user id must start with a letter"),
        ("-abc", 422, "invalid_user_id", "a user id must start with a letter"),
        ("admin", 422, "invalid_user_id", "the user id 'admin' is reserved; please choose another"),
        ("Root", 422, "invalid_user_id", "the user id 'Root' is reserved; please choose another"),
        (
            "SYSTEM",
            422,
            "invalid_user_id",
            "the user id 'SYSTEM' is reserved; please choose another",
        ),
        ("bot", 422, "invalid_user_id", "the user id 'bot' is reserved; please choose another"),
        ("open", 422, "invalid_user_id", "the user id 'open' is reserved; please choose another"),
        ("taken", 409, "user_id_taken", "that user id is taken"),
        ("TAKEN", 409, "user_id_taken", "that user id is taken"),
    ]
    for user_id, status, code, message in cases:
        response = client.post(
            f"{API}/auth/signup", json={"user_id": user_id, "password": PASSWORD}
        )
        assert error(response, status, code) == message, user_id
    for good in ("abc", "a" * 20, "Z9_-x", "me2", "openair"):
        sign_up(browser(client), good)
    assert count(services, User) == 6


def test_password_and_display_name_rules(client: TestClient, services: Services) -> None:
    cases: list[tuple[dict[str, Any], str, str]] = [
        ({"password": "short12"}, "invalid_password", "a password must be at least 8 characters"),
        ({"password": "x" * 129}, "invalid_password", "a password must be at most 128 characters"),
        ({"password": "DaveDave"}, "invalid_password", "the password must not be the user id"),
        ({"display_name": ""}, "invalid_display_name", "a display name must not be empty"),
        ({"display_name": "   "}, "invalid_display_name", "a display name must not be empty"),
        (
            {"display_name": "x" * 41},
            "invalid_display_name",
            "a display name must be at most 40 characters",
        ),
        (
            {"display_name": "two\nlines"},
            "invalid_display_name",
            "a display name may contain only printable characters",
        ),
        (
            {"display_name": "nul\x00"},
            "invalid_display_name",
            "a display name may contain only printable characters",
        ),
    ]
    for change, code, start in cases:
        body = {"user_id": "daveDAVE", "password": PASSWORD, **change}
        response = client.post(f"{API}/auth/signup", json=body)
        assert error(response, 422, code).startswith(start), change
    assert count(services, User) == 0
    # The limits themselves are allowed.
    client.post(
        f"{API}/auth/signup",
        json={"user_id": "dave", "password": "p" * 128, "display_name": "d" * 40},
    ).raise_for_status()
    browser(client).post(
        f"{API}/auth/signup", json={"user_id": "erin", "password": "12345678"}
    ).raise_for_status()


@pytest.mark.both_databases
def test_simultaneous_sign_ups_of_one_id_make_one_account(
    client: TestClient, services: Services
) -> None:
    def attempt(index: int) -> int:
        other = TestClient(client.app)
        body = {"user_id": "Racer" if index % 2 else "racer", "password": PASSWORD}
        return int(other.post(f"{API}/auth/signup", json=body).status_code)

    with ThreadPoolExecutor(6) as pool:
        statuses = sorted(pool.map(attempt, range(6)))
    assert statuses == [201, 409, 409, 409, 409, 409]
    assert count(services, User) == 1


def test_log_in_and_case_insensitive_user_id(client: TestClient, make_user: MakeUser) -> None:
    make_user("Frank")
    response = client.post(f"{API}/auth/login", json={"user_id": "fRANK", "password": PASSWORD})
    assert response.status_code == 200
    body = response.json()
    assert body["user"]["user_id"] == "Frank"
    assert "httponly" in response.headers["set-cookie"].lower()
    assert client.get(f"{API}/auth/session").json()["csrf_token"] == body["csrf_token"]
    assert client.get(f"{API}/users/me").json()["user_id"] == "Frank"


def test_wrong_id_or_password_get_one_answer(client: TestClient, make_user: MakeUser) -> None:
    make_user("grace")
    answers = []
    for user_id, password in [
        ("grace", "wrong password"),
        ("nobody", PASSWORD),
        ("nobody", "wrong password"),
        ("no such id!", PASSWORD),
        ("grace", "x" * 500),
        ("grace", ""),
    ]:
        response = client.post(f"{API}/auth/login", json={"user_id": user_id, "password": password})
        answers.append((response.status_code, response.json()))
        assert "set-cookie" not in response.headers
    expected = (401, {"error": "wrong user id or password", "code": "wrong_login"})
    assert answers == [expected] * len(answers)
    assert client.get(f"{API}/auth/session").status_code == 401


def test_log_in_rehashes_an_old_hash(client: TestClient, services: Services) -> None:
    old = PasswordHasher(time_cost=2, memory_cost=2048).hash(PASSWORD)
    assert services.hasher.check_needs_rehash(old)
    with services.write() as db:
        db.add(
            User(
                user_id="heidi",
                key="heidi",
                password_hash=old,
                display_name="heidi",
                about="",
                created_at=now(),
            )
        )
    log_in(client, "heidi")
    with services.sessions() as db:
        stored = db.scalar(select(User.password_hash).where(User.key == "heidi"))
    assert stored is not None and stored != old
    assert not services.hasher.check_needs_rehash(stored)
    services.hasher.verify(stored, PASSWORD)
    log_in(browser(client), "heidi")


def test_log_in_again_replaces_the_browsers_session(client: TestClient, services: Services) -> None:
    sign_up(client, "ivan")
    first = client.cookies[SESSION_COOKIE]
    log_in(client, "ivan")
    assert client.cookies[SESSION_COOKIE] != first
    with services.sessions() as db:
        assert db.get(AuthSession, digest(first)) is None
    assert count(services, AuthSession) == 1


def test_log_out_needs_csrf_and_ends_the_session(client: TestClient, services: Services) -> None:
    csrf = sign_up(client, "judy")
    cookie = client.cookies[SESSION_COOKIE]
    error(client.post(f"{API}/auth/logout"), 403, "csrf")
    error(client.post(f"{API}/auth/logout", headers={"X-CSRF-Token": "nope"}), 403, "csrf")
    assert client.get(f"{API}/users/me").status_code == 200
    response = client.post(f"{API}/auth/logout", headers={"X-CSRF-Token": csrf})
    assert response.status_code == 200
    assert response.json()["signed_out"] is True
    cleared = response.headers["set-cookie"].lower()
    assert cleared.startswith(f"{SESSION_COOKIE}=") and "max-age=0" in cleared
    assert count(services, AuthSession) == 0
    # The old cookie, replayed, is refused.
    replay = TestClient(client.app, cookies={SESSION_COOKIE: cookie})
    error(replay.get(f"{API}/users/me"), 401, "session_expired")
    error(client.get(f"{API}/auth/session"), 401, "unauthenticated")
    error(client.post(f"{API}/auth/logout"), 401, "unauthenticated")


def test_log_out_with_a_bearer_token_is_explained(client: TestClient, make_user: MakeUser) -> None:
    bearer = make_user("kate")
    message = error(client.post(f"{API}/auth/logout", headers=bearer), 400, "not_a_session")
    assert "revoke" in message
    error(client.get(f"{API}/auth/session", headers=bearer), 401, "not_a_session")
    assert client.get(f"{API}/users/me", headers=bearer).json()["user_id"] == "kate"


def test_expired_session_is_401_and_removed(client: TestClient, services: Services) -> None:
    csrf = sign_up(client, "leo")
    with services.write() as db:
        db.execute(update(AuthSession).values(expires_at=now() - timedelta(seconds=1)))
    message = error(client.get(f"{API}/users/me"), 401, "session_expired")
    assert message == "your session has expired; please sign in again"
    assert count(services, AuthSession) == 0
    error(client.get(f"{API}/users/me"), 401, "session_expired")
    error(
        client.post(f"{API}/tokens", json={"name": "x"}, headers={"X-CSRF-Token": csrf}),
        401,
        "session_expired",
    )
    # /auth/session and log-out also tell the browser to drop the dead cookie.
    response = client.get(f"{API}/auth/session")
    error(response, 401, "session_expired")
    assert "max-age=0" in response.headers["set-cookie"].lower()
    assert SESSION_COOKIE not in client.cookies
    log_in(client, "leo")
    with services.write() as db:
        db.execute(update(AuthSession).values(expires_at=now() - timedelta(days=1)))
    response = client.post(f"{API}/auth/logout", headers={"X-CSRF-Token": csrf})
    error(response, 401, "session_expired")
    assert SESSION_COOKIE not in client.cookies
    assert count(services, ApiToken) == 0


def test_unknown_cookie_is_401(client: TestClient) -> None:
    stranger = TestClient(client.app, cookies={SESSION_COOKIE: "made-up"})
    error(stranger.get(f"{API}/users/me"), 401, "session_expired")
    error(stranger.get(f"{API}/auth/session"), 401, "session_expired")


def test_csrf_guards_every_cookie_write(client: TestClient, services: Services) -> None:
    csrf = sign_up(client, "mallory")
    other_csrf = sign_up(browser(client), "oscar")
    writes: list[tuple[str, str, dict[str, Any] | None]] = [
        ("POST", "/tokens", {"name": "bot"}),
        ("PATCH", "/users/me", {"about": "changed"}),
        ("POST", "/auth/password", {"old_password": PASSWORD, "new_password": "n3w password"}),
        ("POST", "/auth/logout", None),
        ("DELETE", "/tokens/1", None),
    ]
    for method, path, body in writes:
        for headers in ({}, {"X-CSRF-Token": "wrong"}, {"X-CSRF-Token": other_csrf}):
            response = client.request(method, API + path, json=body, headers=headers)
            assert error(response, 403, "csrf") == "missing or wrong CSRF token (send X-CSRF-Token)"
    assert count(services, ApiToken) == 0
    assert client.get(f"{API}/users/me").json()["about"] == ""
    log_in(browser(client), "mallory")  # the password did not change
    assert count(services, AuthSession) == 3
    # With the right token the same writes work.
    ok = {"X-CSRF-Token": csrf}
    created = client.post(f"{API}/tokens", json={"name": "bot"}, headers=ok)
    assert created.status_code == 201
    edited = client.patch(f"{API}/users/me", json={"about": "changed"}, headers=ok)
    assert edited.json()["about"] == "changed"


def test_bearer_tokens_need_no_csrf(client: TestClient, make_user: MakeUser) -> None:
    bearer = make_user("peggy")
    edited = client.patch(f"{API}/users/me", json={"display_name": "Peg"}, headers=bearer)
    assert edited.status_code == 200 and edited.json()["display_name"] == "Peg"
    error(
        client.get(f"{API}/users/me", headers={"Authorization": "Bearer dh_wrong"}),
        401,
        "unauthenticated",
    )
    error(
        client.get(f"{API}/users/me", headers={"Authorization": "Basic abc"}),
        401,
        "unauthenticated",
    )


def test_password_change_ends_the_other_sessions_and_the_tokens(
    client: TestClient, services: Services
) -> None:
    csrf = sign_up(client, "quinn")
    second = browser(client)
    log_in(second, "quinn")
    third = browser(client)
    log_in(third, "quinn")
    created = client.post(f"{API}/tokens", json={"name": "bot"}, headers={"X-CSRF-Token": csrf})
    bearer = {"Authorization": f"Bearer {created.json()['token']}"}
    response = client.post(
        f"{API}/auth/password",
        json={"old_password": PASSWORD, "new_password": "a new secret"},
        headers={"X-CSRF-Token": csrf},
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["ended_sessions"], body["ended_tokens"]) == (2, 1)
    assert body["message"] == (
        "your password is changed; 2 other browser sessions were signed out and 1 API token ended"
    )
    assert body["user"]["user_id"] == "quinn"
    # This browser stays signed in with the same CSRF token; the others are out.
    assert client.get(f"{API}/auth/session").json()["csrf_token"] == csrf
    error(second.get(f"{API}/users/me"), 401, "session_expired")
    error(third.get(f"{API}/auth/session"), 401, "session_expired")
    assert count(services, AuthSession) == 1
    # The token ended with the old password; the old password no longer works, the new one does.
    error(client.get(f"{API}/users/me", headers=bearer), 401, "unauthenticated")
    assert count(services, ApiToken) == 0
    error(
        second.post(f"{API}/auth/login", json={"user_id": "quinn", "password": PASSWORD}),
        401,
        "wrong_login",
    )
    log_in(second, "quinn", "a new secret")


def test_a_password_change_keeps_the_tokens_only_when_asked(
    client: TestClient, services: Services
) -> None:
    csrf = sign_up(client, "quincy")
    ok = {"X-CSRF-Token": csrf}
    made = client.post(f"{API}/tokens", json={"name": "bot"}, headers=ok).json()
    bearer = {"Authorization": f"Bearer {made['token']}"}
    change = {"old_password": PASSWORD, "new_password": "a new secret", "keep_tokens": True}
    response = client.post(f"{API}/auth/password", json=change, headers=ok)
    assert response.status_code == 200, response.text
    assert response.json()["ended_tokens"] == 0
    assert response.json()["message"] == (
        "your password is changed; 0 other browser sessions were signed out"
    )
    assert client.get(f"{API}/users/me", headers=bearer).json()["user_id"] == "quincy"
    error(
        client.post(f"{API}/auth/password", json={**change, "keep_tokens": "yes"}, headers=ok),
        422,
        "invalid_request",
    )


def test_the_password_page_ends_the_tokens_unless_kept(client: TestClient) -> None:
    csrf = sign_up(client, "quill")

    def token() -> dict[str, str]:
        made = client.post(f"{API}/tokens", json={"name": "bot"}, headers={"X-CSRF-Token": csrf})
        return {"Authorization": f"Bearer {made.json()['token']}"}

    def change(old: str, new: str, **extra: str) -> str:
        fields = {"csrf_token": csrf, "old_password": old, "new_password": new}
        answer = client.post("/password", data={**fields, "confirm_password": new, **extra})
        assert answer.status_code == 200, answer.text
        return answer.text

    bearer = token()
    assert 'name="keep_tokens"' in client.get("/password").text
    kept = change(PASSWORD, "second secret", keep_tokens="on")
    assert "0 other browser sessions were signed out." in kept
    assert client.get(f"{API}/users/me", headers=bearer).status_code == 200
    ended = change("second secret", "third secret")
    assert "0 other browser sessions were signed out and 1 API token ended." in ended
    error(client.get(f"{API}/users/me", headers=bearer), 401, "unauthenticated")


def test_an_api_token_may_not_make_tokens_nor_change_the_password(
    client: TestClient, services: Services, make_user: MakeUser
) -> None:
    bearer = make_user("rupert")
    log_in(client, "rupert")
    change = {"old_password": PASSWORD, "new_password": "another secret"}
    refused = client.post(f"{API}/auth/password", json=change, headers=bearer)
    assert "not with an API token" in error(refused, 403, "not_a_session")
    made = client.post(f"{API}/tokens", json={"name": "more"}, headers=bearer)
    assert "not with an API token" in error(made, 403, "not_a_session")
    # Nothing changed: one token, the session still in, the old password still good.
    assert count(services, ApiToken) == 1
    assert client.get(f"{API}/users/me").status_code == 200
    log_in(browser(client), "rupert")


def test_password_change_rules(client: TestClient, services: Services) -> None:
    csrf = sign_up(client, "sybil")
    other = browser(client)
    log_in(other, "sybil")
    ok = {"X-CSRF-Token": csrf}
    cases = [
        ({"old_password": "not it at all"}, 403, "wrong_password", "the old password is wrong"),
        ({"old_password": "x" * 1000}, 403, "wrong_password", "the old password is wrong"),
        (
            {"new_password": "short"},
            422,
            "invalid_password",
            "a password must be at least 8 characters long",
        ),
        (
            {"new_password": "y" * 129},
            422,
            "invalid_password",
            "a password must be at most 128 characters long",
        ),
        (
            {"new_password": "SYBILsybil"[:5]},
            422,
            "invalid_password",
            "a password must be at least 8 characters long",
        ),
        (
            {"new_password": PASSWORD},
            422,
            "invalid_password",
            "the new password must be different from the old one",
        ),
    ]
    for change, status, code, message in cases:
        body = {"old_password": PASSWORD, "new_password": "fine new one", **change}
        response = client.post(f"{API}/auth/password", json=body, headers=ok)
        assert error(response, status, code) == message, change
    with services.write() as db:
        db.execute(update(User).values(user_id="sybil-long", key="sybil-long"))
    response = client.post(
        f"{API}/auth/password",
        json={"old_password": PASSWORD, "new_password": "SYBIL-long"},
        headers=ok,
    )
    assert error(response, 422, "invalid_password") == "the password must not be the user id"
    # Nothing changed: the other browser is still in, the old password still works.
    assert other.get(f"{API}/users/me").status_code == 200
    log_in(browser(client), "sybil-long")
    error(browser(client).post(f"{API}/auth/password", json={}), 401, "unauthenticated")
