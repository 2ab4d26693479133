"""Accounts: whatever a client sends, the answer is a clear 4xx, never a 500."""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from dicehall.server.core.clock import now
from dicehall.server.core.models import User
from dicehall.server.core.security import SESSION_COOKIE, issue_api_token, open_session
from dicehall.server.domain.services import Services
from tests.server.conftest import MakeUser
from tests.server.test_accounts import API, PASSWORD, error

JSON = {"content-type": "application/json"}

ENDPOINTS = [
    ("POST", "/auth/signup"),
    ("POST", "/auth/login"),
    ("POST", "/auth/logout"),
    ("GET", "/auth/session"),
    ("POST", "/auth/password"),
    ("GET", "/users/me"),
    ("PATCH", "/users/me"),
    ("GET", "/users/{}"),
    ("POST", "/tokens"),
    ("GET", "/tokens"),
    ("DELETE", "/tokens/{}"),
]
FIELDS = [
    "user_id",
    "password",
    "display_name",
    "old_password",
    "new_password",
    "about",
    "name",
]

# Text with everything JSON can carry: control characters, lone surrogates, astral planes.
any_text = st.text(st.characters(blacklist_categories=()), max_size=30)
near_miss = st.sampled_from(
    [PASSWORD, "junk", "Junk", "admin", "ab", "a" * 21, "x" * 200, "", " ", "\x00", "\ud800"]
)
scalars = st.none() | st.booleans() | st.integers() | st.floats() | any_text | near_miss
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(any_text, inner, max_size=3),
    max_leaves=8,
)
bodies = (
    st.dictionaries(st.sampled_from(FIELDS) | any_text, json_values, max_size=4).map(
        lambda body: json.dumps(body).encode()
    )
    | json_values.map(lambda value: json.dumps(value).encode())
    | st.binary(max_size=80)
)
#: The fields each endpoint takes, to send well-formed bodies with junk values as well.
SHAPES = {
    "/auth/signup": ("user_id", "password", "display_name"),
    "/auth/login": ("user_id", "password"),
    "/auth/password": ("old_password", "new_password"),
    "/users/me": ("display_name", "about"),
    "/tokens": ("name",),
}
segments = (
    any_text.filter(lambda text: text not in ("", ".", ".."))
    | st.integers().map(str)
    | near_miss.filter(lambda text: text.strip() not in ("", ".", ".."))
)


def shaped(path: str) -> st.SearchStrategy[bytes]:
    """JSON objects with the endpoint's own fields, each a junk string, null or left out."""
    values = any_text | near_miss | st.none()
    optional = {field: values for field in SHAPES.get(path, ())}
    return st.fixed_dictionaries({}, optional=optional).map(lambda body: json.dumps(body).encode())


def _junk_user(services: Services) -> User:
    with services.write() as db:
        user = db.scalar(select(User).where(User.key == "junk"))
        if user is None:
            user = User(
                user_id="junk",
                key="junk",
                password_hash=services.hasher.hash(PASSWORD),
                display_name="junk",
                about="",
                created_at=now(),
            )
            db.add(user)
            db.flush()
    return user


@pytest.mark.both_databases
@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    endpoint=st.sampled_from(ENDPOINTS),
    data=st.data(),
    segment=segments,
    auth=st.sampled_from(["none", "bearer", "cookie", "cookie-no-csrf"]),
    content_type=st.sampled_from(["application/json", "text/plain", None]),
)
def test_junk_never_gives_a_500(
    client: TestClient,
    services: Services,
    endpoint: tuple[str, str],
    data: st.DataObject,
    segment: str,
    auth: str,
    content_type: str | None,
) -> None:
    user = _junk_user(services)
    method, path = endpoint
    body = data.draw(bodies | shaped(path), label="body")
    url = API + path.format(quote(segment.encode("utf-8", "surrogatepass"), safe=""))
    headers: dict[str, str] = {} if content_type is None else {"content-type": content_type}
    sender = client
    # A fresh token or session each time: an earlier example may have revoked or ended it.
    if auth == "bearer":
        with services.write() as db:
            secret, _ = issue_api_token(db, user, "junk")
        headers["Authorization"] = f"Bearer {secret}"
    elif auth.startswith("cookie"):
        with services.write() as db:
            secret, row = open_session(db, user, 1)
        sender = TestClient(client.app, cookies={SESSION_COOKIE: secret})
        if auth == "cookie":
            headers["X-CSRF-Token"] = row.csrf_token
    response = sender.request(method, url, content=body, headers=headers)
    assert response.status_code < 500, (response.status_code, response.text)
    if response.status_code >= 400:
        answer = response.json()
        assert isinstance(answer["error"], str) and answer["error"]
        assert isinstance(answer["code"], str)


def test_bad_bodies_get_clear_messages(client: TestClient, make_user: MakeUser) -> None:
    bearer = make_user("zed")
    signup = f"{API}/auth/signup"
    cases: list[tuple[bytes, dict[str, str], int, str, str]] = [
        (
            b'{"user_id": "abc", ',
            JSON,
            422,
            "invalid_request",
            "the request body is not valid JSON",
        ),
        (b"", JSON, 422, "invalid_request", "Field required"),
        (b"[1, 2]", JSON, 422, "invalid_request", "valid dictionary"),
        (b'"text"', JSON, 422, "invalid_request", "valid dictionary"),
        (b'{"user_id": 5, "password": "x"}', JSON, 422, "invalid_request", "user_id:"),
        (b'{"user_id": "abc"}', JSON, 422, "invalid_request", "password: Field required"),
        (
            b'{"user_id": "abcd", "password": "long enough", "admin": true}',
            JSON,
            422,
            "invalid_request",
            "admin: Extra inputs are not permitted",
        ),
        (
            b'{"user_id": "abcd", "password": "\\ud800 long enough"}',
            JSON,
            422,
            "invalid_request",
            "lone surrogate",
        ),
        (b"\xff\xfe\x00", JSON, 400, "http_error", "error parsing the body"),
        (b"[" * 20000 + b"]" * 20000, JSON, 400, "http_error", "error parsing the body"),
        # A form post from another site is not JSON, so it can never sign anyone in or up.
        (
            b'{"user_id": "abcd", "password": "long enough"}',
            {"content-type": "text/plain"},
            422,
            "invalid_request",
            "valid dictionary",
        ),
        (
            b"user_id=abcd&password=long+enough",
            {"content-type": "application/x-www-form-urlencoded"},
            422,
            "invalid_request",
            "valid dictionary",
        ),
        (b"{" + b" " * 70000 + b"}", JSON, 413, "too_large", "over 65536 bytes"),
    ]
    for content, headers, status, code, part in cases:
        response = client.post(signup, content=content, headers=headers)
        message = error(response, status, code)
        assert part in message, (content[:40], message)
    assert client.get(f"{API}/users/abcd").status_code == 404
    # Wrong types at the other endpoints, too.
    for method, path, body in [
        ("POST", "/auth/login", {"user_id": ["a"], "password": PASSWORD}),
        ("POST", "/auth/password", {"old_password": None, "new_password": 12345678}),
        ("PATCH", "/users/me", {"display_name": {"a": 1}}),
        ("POST", "/tokens", {"name": True}),
    ]:
        response = client.request(method, API + path, json=body, headers=bearer)
        error(response, 422, "invalid_request")
    response = client.request("PUT", f"{API}/users/me", json={}, headers=bearer)
    error(response, 405, "method_not_allowed")
