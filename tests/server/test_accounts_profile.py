"""Accounts: profiles (mine and public) and API tokens."""

from __future__ import annotations

from fastapi.testclient import TestClient

from dicehall.server.domain.account_checks import TOKENS_PER_USER
from dicehall.server.domain.services import Services
from tests.server.conftest import MakeUser
from tests.server.test_accounts import API, error, log_in, sign_up


def test_profile_edit_and_public_profile(client: TestClient, make_user: MakeUser) -> None:
    bearer = make_user("Trent")
    me = client.get(f"{API}/users/me", headers=bearer).json()
    assert me["user_id"] == "Trent" and me["display_name"] == "Trent" and me["about"] == ""
    edited = client.patch(
        f"{API}/users/me",
        json={"display_name": "  Trent T.  ", "about": "Likes Boatzee.\n\tAnd dice.  "},
        headers=bearer,
    )
    assert edited.status_code == 200
    assert edited.json()["display_name"] == "Trent T."
    assert edited.json()["about"] == "Likes Boatzee.\n\tAnd dice."
    # Fields left out or null stay as they were.
    kept = client.patch(
        f"{API}/users/me", json={"about": "", "display_name": None}, headers=bearer
    ).json()
    assert kept["display_name"] == "Trent T." and kept["about"] == ""
    public = client.get(f"{API}/users/trent")
    assert public.status_code == 200
    assert public.json() == {
        "user_id": "Trent",
        "display_name": "Trent T.",
        "about": "",
        "created_at": me["created_at"],
        "reliability": {
            "games_finished": 0,
            "timeouts": 0,
            "median_turn_seconds": None,
            "median_turn": None,
        },
        # The day Trent was last here (his requests above), never a time.
        "last_seen": me["created_at"][:10],
        "current_games": [],
        "head_to_head": None,
        "relation": None,
        "ratings": {},
    }
    mine = client.get(f"{API}/users/me", headers=bearer).json()
    extras = ("reliability", "last_seen", "current_games", "head_to_head", "relation", "ratings")
    # My own profile adds my e-mail address, which the public one never shows.
    assert (mine.pop("email"), mine.pop("email_verified")) == (None, False)
    assert "email" not in public.json() and "email_verified" not in public.json()
    assert {**mine, **{k: public.json()[k] for k in extras}} == public.json()


def test_profile_rules(client: TestClient, make_user: MakeUser) -> None:
    bearer = make_user("ursula")
    cases = [
        ({}, "nothing_to_change", "send display_name, about and/or email to change"),
        ({"display_name": ""}, "invalid_display_name", "a display name must not be empty"),
        (
            {"display_name": "n" * 41},
            "invalid_display_name",
            "a display name must be at most 40 characters long",
        ),
        (
            {"display_name": "tab\there"},
            "invalid_display_name",
            "a display name may contain only printable characters (no line breaks or control "
            "characters)",
        ),
        (
            {"about": "a" * 1001},
            "invalid_about",
            "the about text must be at most 1000 characters long",
        ),
        (
            {"about": "bell\x07"},
            "invalid_about",
            "the about text may not contain control characters (line breaks and tabs are fine)",
        ),
        (
            {"about": "nul\x00byte"},
            "invalid_about",
            "the about text may not contain control characters (line breaks and tabs are fine)",
        ),
    ]
    for body, code, message in cases:
        response = client.patch(f"{API}/users/me", json=body, headers=bearer)
        assert error(response, 422, code) == message, body
    error(
        client.patch(f"{API}/users/me", json={"about": 5}, headers=bearer),
        422,
        "invalid_request",
    )
    error(
        client.patch(f"{API}/users/me", json={"abuot": "typo"}, headers=bearer),
        422,
        "invalid_request",
    )
    unchanged = client.get(f"{API}/users/me", headers=bearer).json()
    assert unchanged["display_name"] == "ursula" and unchanged["about"] == ""
    longest = client.patch(
        f"{API}/users/me",
        json={"display_name": "é" * 40, "about": "ü" * 1000},
        headers=bearer,
    )
    assert longest.status_code == 200
    assert client.get(f"{API}/users/ursula").json()["about"] == "ü" * 1000


def test_profiles_need_signing_in_and_unknown_users_are_404(client: TestClient) -> None:
    error(client.get(f"{API}/users/me"), 401, "unauthenticated")
    error(client.patch(f"{API}/users/me", json={"about": "x"}), 401, "unauthenticated")
    assert error(client.get(f"{API}/users/nobody"), 404, "no_such_user") == (
        "there is no user 'nobody'"
    )
    long_name = "x" * 300
    message = error(client.get(f"{API}/users/{long_name}"), 404, "no_such_user")
    assert len(message) < 60
    error(client.get(f"{API}/users/%E2%98%83"), 404, "no_such_user")


def test_tokens_create_list_use_revoke(client: TestClient, services: Services) -> None:
    csrf = sign_up(client, "victor")
    ok = {"X-CSRF-Token": csrf}
    created = client.post(f"{API}/tokens", json={"name": "  my bot  "}, headers=ok)
    assert created.status_code == 201
    token = created.json()
    assert token["name"] == "my bot"
    assert token["token"].startswith("dh_")
    assert set(token) == {"id", "name", "created_at", "token"}
    second = client.post(f"{API}/tokens", json={"name": "other"}, headers=ok).json()
    listed = client.get(f"{API}/tokens").json()
    assert [t["name"] for t in listed] == ["my bot", "other"]
    assert all(set(t) == {"id", "name", "created_at"} for t in listed)
    bearer = {"Authorization": f"Bearer {token['token']}"}
    assert client.get(f"{API}/users/me", headers=bearer).json()["user_id"] == "victor"
    assert [t["id"] for t in client.get(f"{API}/tokens", headers=bearer).json()] == [
        token["id"],
        second["id"],
    ]
    revoked = client.delete(f"{API}/tokens/{token['id']}", headers=ok)
    assert revoked.status_code == 200
    assert revoked.json()["revoked"] == token["id"]
    assert error(client.get(f"{API}/users/me", headers=bearer), 401, "unauthenticated") == (
        "this API token is not valid (revoked?)"
    )
    assert [t["id"] for t in client.get(f"{API}/tokens").json()] == [second["id"]]
    assert error(
        client.delete(f"{API}/tokens/{token['id']}", headers=ok), 404, "no_such_token"
    ) == (f"you have no API token {token['id']}")


def test_tokens_of_others_cannot_be_revoked(client: TestClient, make_user: MakeUser) -> None:
    walter = make_user("walter")
    xena = make_user("xena")
    walters = client.get(f"{API}/tokens", headers=walter).json()
    assert len(walters) == 1 and walters[0]["name"] == "tests"
    error(client.delete(f"{API}/tokens/{walters[0]['id']}", headers=xena), 404, "no_such_token")
    assert client.get(f"{API}/users/me", headers=walter).status_code == 200
    for bad in ("0", "-1", str(2**31), str(10**30)):
        error(client.delete(f"{API}/tokens/{bad}", headers=xena), 404, "no_such_token")
    error(client.delete(f"{API}/tokens/abc", headers=xena), 422, "invalid_request")
    error(client.delete(f"{API}/tokens/1"), 401, "unauthenticated")
    error(client.get(f"{API}/tokens"), 401, "unauthenticated")
    error(client.post(f"{API}/tokens", json={"name": "x"}), 401, "unauthenticated")


def test_token_rules(client: TestClient, make_user: MakeUser) -> None:
    make_user("yvonne")
    bearer = {"X-CSRF-Token": log_in(client, "yvonne")}  # tokens are made from a browser
    cases = [
        ({"name": ""}, "invalid_token_name", "a token name must not be empty"),
        (
            {"name": "t" * 41},
            "invalid_token_name",
            "a token name must be at most 40 characters long",
        ),
        (
            {"name": "a\nb"},
            "invalid_token_name",
            "a token name may contain only printable characters (no line breaks or control "
            "characters)",
        ),
    ]
    for body, code, message in cases:
        response = client.post(f"{API}/tokens", json=body, headers=bearer)
        assert error(response, 422, code) == message, body
    error(client.post(f"{API}/tokens", json={}, headers=bearer), 422, "invalid_request")
    error(client.post(f"{API}/tokens", json={"name": 7}, headers=bearer), 422, "invalid_request")
    for index in range(TOKENS_PER_USER - 1):
        made = client.post(f"{API}/tokens", json={"name": f"t{index}"}, headers=bearer)
        assert made.status_code == 201
    refused = client.post(f"{API}/tokens", json={"name": "one more"}, headers=bearer)
    assert "revoke one" in error(refused, 409, "too_many_tokens")
    assert len(client.get(f"{API}/tokens", headers=bearer).json()) == TOKENS_PER_USER


def test_the_endpoints_are_in_the_openapi_schema(client: TestClient) -> None:
    paths = client.get(f"{API}/openapi.json").json()["paths"]
    expected = {
        "/auth/signup": {"post"},
        "/auth/login": {"post"},
        "/auth/logout": {"post"},
        "/auth/session": {"get"},
        "/auth/password": {"post"},
        "/users/me": {"get", "patch"},
        "/users/{user_id}": {"get"},
        "/tokens": {"get", "post"},
        "/tokens/{token_id}": {"delete"},
    }
    for path, methods in expected.items():
        assert set(paths[API + path]) == methods, path
