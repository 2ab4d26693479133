"""The OpenAPI schema as a contract: stable operation ids, a precise response schema for every
success, the one error body on every error, and answers that match their models exactly (a
key a handler adds or loses is an error, never silently trimmed)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from dicehall.server.api.schemas import Game
from dicehall.server.app import create_app
from dicehall.server.domain.games import reading
from dicehall.server.domain.services import Services, build_services
from tests.server.conftest import MakeUser, site_settings

API = "/api/v1"
REF = "#/components/schemas/"

#: Every operation of the API and its operation id (clients generate their names from these).
OPERATION_IDS = {
    ("POST", "/auth/signup"): "auth-signup",
    ("POST", "/auth/login"): "auth-login",
    ("POST", "/auth/logout"): "auth-logout",
    ("GET", "/auth/session"): "auth-session",
    ("POST", "/auth/password"): "auth-password",
    ("POST", "/auth/password-reset"): "auth-password-reset",
    ("POST", "/auth/password-reset/confirm"): "auth-password-reset-confirm",
    ("GET", "/users/me"): "users-me",
    ("PATCH", "/users/me"): "users-me-update",
    ("GET", "/users"): "users-search",
    ("GET", "/users/{user_id}"): "users-get",
    ("GET", "/users/{user_id}/games"): "users-games",
    ("GET", "/users/{user_id}/record"): "users-record",
    ("GET", "/users/me/vacation"): "users-me-vacation",
    ("POST", "/users/me/away"): "users-me-away",
    ("DELETE", "/users/me/away"): "users-me-back",
    ("GET", "/users/me/settings"): "users-me-settings",
    ("PATCH", "/users/me/settings"): "users-me-settings-update",
    ("GET", "/users/me/webhook"): "users-me-webhook",
    ("PUT", "/users/me/webhook"): "users-me-webhook-set",
    ("DELETE", "/users/me/webhook"): "users-me-webhook-delete",
    ("POST", "/users/me/webhook/test"): "users-me-webhook-test",
    ("GET", "/notifications"): "notifications-list",
    ("POST", "/notifications/read"): "notifications-read",
    ("GET", "/push/key"): "push-key",
    ("POST", "/push/subscriptions"): "push-subscribe",
    ("GET", "/push/subscriptions"): "push-subscriptions",
    ("DELETE", "/push/subscriptions/{subscription_id}"): "push-unsubscribe",
    ("POST", "/push/test"): "push-test",
    ("GET", "/messages"): "messages-list",
    ("GET", "/messages/{user_id}"): "messages-thread",
    ("POST", "/messages/{user_id}"): "messages-send",
    ("POST", "/messages/{user_id}/read"): "messages-read",
    ("DELETE", "/messages/{user_id}"): "messages-hide",
    ("POST", "/reports"): "reports-create",
    ("GET", "/moderation/reports"): "moderation-reports",
    ("POST", "/moderation/actions"): "moderation-act",
    ("GET", "/moderation/audit"): "moderation-audit",
    ("GET", "/moderation/testimonials"): "moderation-testimonials",
    ("POST", "/moderation/testimonials/{testimonial_id}/approve"): "moderation-testimonial-approve",
    ("GET", "/testimonials"): "testimonials-list",
    ("GET", "/users/me/testimonial"): "testimonials-mine",
    ("PUT", "/users/me/testimonial"): "testimonials-save",
    ("DELETE", "/users/me/testimonial"): "testimonials-delete",
    ("GET", "/presence"): "presence-list",
    ("GET", "/presence/counts"): "presence-counts",
    ("GET", "/singularity"): "singularity",
    ("GET", "/invites"): "invites-list",
    ("POST", "/invites"): "invites-create",
    ("POST", "/invites/accept"): "invites-accept",
    ("DELETE", "/invites/{invite_id}"): "invites-withdraw",
    ("GET", "/tokens"): "tokens-list",
    ("POST", "/tokens"): "tokens-create",
    ("DELETE", "/tokens/{token_id}"): "tokens-revoke",
    ("GET", "/games/kinds"): "games-kinds",
    ("GET", "/games"): "games-list",
    ("POST", "/games"): "games-create",
    ("GET", "/games/open"): "games-open",
    ("GET", "/games/waiting-on-me"): "games-waiting-on-me",
    ("GET", "/games/next"): "games-next",
    ("GET", "/games/live"): "games-live",
    ("GET", "/games/{game_id}/watchers"): "games-watchers",
    ("POST", "/games/{game_id}/watchers"): "games-watchers-invite",
    ("DELETE", "/games/{game_id}/watchers/{user_id}"): "games-watchers-remove",
    ("GET", "/games/{game_id}"): "games-get",
    ("POST", "/games/{game_id}/join"): "games-join",
    ("POST", "/games/{game_id}/accept"): "games-accept",
    ("POST", "/games/{game_id}/decline"): "games-decline",
    ("POST", "/games/{game_id}/cancel"): "games-cancel",
    ("POST", "/games/{game_id}/actions"): "games-move",
    ("GET", "/games/{game_id}/log"): "games-log",
    ("GET", "/games/{game_id}/events"): "games-events",
    ("POST", "/games/{game_id}/rematch"): "games-rematch",
    ("POST", "/games/{game_id}/resign"): "games-resign",
    ("POST", "/games/{game_id}/abort"): "games-abort",
    ("POST", "/games/{game_id}/take-back"): "games-take-back",
    ("GET", "/games/{game_id}/replay"): "games-replay",
    ("GET", "/games/{game_id}/proof"): "games-proof",
    ("POST", "/games/{game_id}/seed"): "games-seed",
    ("GET", "/games/{game_id}/hint"): "games-hint",
    ("GET", "/games/{game_id}/chat"): "games-chat",
    ("POST", "/games/{game_id}/chat"): "games-chat-post",
    ("POST", "/games/{game_id}/chat/read"): "games-chat-read",
    ("GET", "/relations"): "relations-list",
    ("PUT", "/relations/{user_id}"): "relations-put",
    ("DELETE", "/relations/{user_id}"): "relations-delete",
    ("GET", "/fairness"): "fairness-report",
    ("GET", "/fairness/log"): "fairness-log",
    ("GET", "/fairness/checkpoint"): "fairness-checkpoint",
    ("GET", "/fairness/key"): "fairness-key",
    ("GET", "/fairness/consistency"): "fairness-consistency",
    ("GET", "/fairness/inclusion"): "fairness-inclusion",
    ("POST", "/fairness/cosignatures"): "fairness-cosign",
    ("GET", "/users/{user_id}/luck"): "users-luck",
    ("GET", "/fairness/batches/{batch_id}"): "fairness-batch",
    ("GET", "/ladders"): "ladders-list",
    ("GET", "/ladders/{kind}"): "ladders-get",
    ("POST", "/ladders/{kind}/join"): "ladders-join",
    ("POST", "/ladders/{kind}/leave"): "ladders-leave",
    ("POST", "/ladders/{kind}/challenges"): "ladders-challenge",
    ("POST", "/ladders/{kind}/vacation"): "ladders-vacation",
    ("GET", "/ladders/{kind}/history"): "ladders-history",
    ("POST", "/automatch"): "automatch-file",
    ("GET", "/automatch"): "automatch-list",
    ("DELETE", "/automatch/{ticket_id}"): "automatch-cancel",
    ("GET", "/tournaments"): "tournaments-list",
    ("POST", "/tournaments"): "tournaments-create",
    ("GET", "/tournaments/{tournament_id}"): "tournaments-get",
    ("POST", "/tournaments/{tournament_id}/join"): "tournaments-join",
    ("POST", "/tournaments/{tournament_id}/withdraw"): "tournaments-withdraw",
    ("GET", "/ratings"): "ratings-kinds",
    ("GET", "/ratings/{kind}"): "ratings-leaderboard",
    ("GET", "/users/{user_id}/ratings/{kind}/history"): "users-rating-history",
}

#: The operations that answer 201 Created.
CREATED = {
    ("POST", "/auth/signup"),
    ("POST", "/tokens"),
    ("POST", "/invites"),
    ("POST", "/messages/{user_id}"),
    ("POST", "/games"),
    ("POST", "/games/{game_id}/rematch"),
    ("POST", "/games/{game_id}/chat"),
    ("POST", "/ladders/{kind}/challenges"),
    ("POST", "/tournaments"),
    ("POST", "/automatch"),
    ("POST", "/push/subscriptions"),
    ("POST", "/reports"),
    ("POST", "/moderation/actions"),
}

#: The operations that answer 202 Accepted (the work is done later, if at all).
ACCEPTED = {("POST", "/auth/password-reset")}

#: Answers in the formats their own standards fix (a C2SP signed note, a verifier key):
#: plain text, not JSON.
TEXT_ANSWERS = {("GET", "/fairness/checkpoint"), ("GET", "/fairness/key")}

#: Response models that let a game add keys of its own.
OPEN_MODELS = {"GameResult"}


@pytest.fixture(scope="module")
def services(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Services]:
    """One SQLite site for the whole module: the schema does not depend on the database."""
    path = Path(tmp_path_factory.mktemp("openapi")) / "site.sqlite3"
    built = build_services(site_settings(f"sqlite:///{path}"))
    try:
        yield built
    finally:
        built.engine.dispose()


@pytest.fixture(scope="module")
def schema(services: Services) -> dict[str, Any]:
    """The schema as the site serves it."""
    response = TestClient(create_app(services=services)).get(f"{API}/openapi.json")
    assert response.status_code == 200
    served: dict[str, Any] = response.json()
    return served


def _operations(schema: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            yield method.upper(), path.removeprefix(API), operation


def _resolve(schema: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        found: dict[str, Any] = schema["components"]["schemas"][node["$ref"].removeprefix(REF)]
        node = found
    return node


def _json_schema(response: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = response["content"]["application/json"]["schema"]
    return found


def _success(operation: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    ok = [(status, r) for status, r in operation["responses"].items() if status.startswith("2")]
    assert len(ok) == 1, operation["operationId"]
    return ok[0]


def test_every_operation_has_its_stable_id(schema: dict[str, Any]) -> None:
    found = {(method, path): op.get("operationId") for method, path, op in _operations(schema)}
    assert found == OPERATION_IDS


def test_every_success_has_a_precise_schema(schema: dict[str, Any]) -> None:
    for method, path, operation in _operations(schema):
        status, response = _success(operation)
        expected = "201" if (method, path) in CREATED else "200"
        assert status == ("202" if (method, path) in ACCEPTED else expected), (method, path)
        if (method, path) in TEXT_ANSWERS:
            assert response["content"]["text/plain"]["schema"] == {"type": "string"}
            continue
        body = _resolve(schema, _json_schema(response))
        if body.get("type") == "array":
            body = _resolve(schema, body["items"])
        # A proof is one of two precise formats (by its "format"): each must be precise.
        for each in [_resolve(schema, b) for b in body.get("anyOf", [body])]:
            assert each.get("type") == "object", (method, path, each)
            assert each.get("properties"), (method, path)
            assert each.get("additionalProperties") is False, (method, path)


def _models_under(schema: dict[str, Any], node: Any, seen: set[str]) -> None:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(REF) and ref.removeprefix(REF) not in seen:
            name = ref.removeprefix(REF)
            seen.add(name)
            _models_under(schema, schema["components"]["schemas"][name], seen)
        for value in node.values():
            _models_under(schema, value, seen)
    elif isinstance(node, list):
        for value in node:
            _models_under(schema, value, seen)


def test_answers_have_every_key_and_no_other(schema: dict[str, Any]) -> None:
    """Every key of every success model is required (always sent, null where it may be), and
    no model but a game's result allows keys it does not name."""
    models: set[str] = set()
    for method, path, operation in _operations(schema):
        if (method, path) not in TEXT_ANSWERS:
            _models_under(schema, _json_schema(_success(operation)[1]), models)
    assert {"Game", "GameMove", "GameSummary", "Seat", "BotTurn", "UserProfile"} <= models
    for name in models:
        model = schema["components"]["schemas"][name]
        assert set(model["required"]) == set(model["properties"]), name
        assert model["additionalProperties"] is (name in OPEN_MODELS), name


def test_every_error_is_an_error_body(schema: dict[str, Any]) -> None:
    for method, path, operation in _operations(schema):
        errors = {s: r for s, r in operation["responses"].items() if s[0] in "45"}
        for status, response in errors.items():
            assert _json_schema(response) == {"$ref": REF + "ErrorBody"}, (method, path, status)
        has_input = bool(operation.get("parameters") or operation.get("requestBody"))
        assert ("422" in errors) == has_input, (method, path)
        if "requestBody" in operation:
            assert "400" in errors, (method, path)  # a body that is not UTF-8
        if operation["operationId"] not in {
            "auth-signup",
            "auth-login",
            "auth-password-reset",
            "auth-password-reset-confirm",
            "users-get",
            "users-search",
            "games-kinds",
            "games-open",
            "games-get",
            "games-log",
            "presence-counts",
            "fairness-report",
            "fairness-batch",
            "fairness-log",
            "fairness-checkpoint",
            "fairness-key",
            "fairness-consistency",
            "fairness-inclusion",
            "fairness-cosign",
            "users-luck",
            "ratings-kinds",
            "ratings-leaderboard",
            "users-rating-history",
            "push-key",
            "testimonials-list",
        }:
            assert "401" in errors, (method, path)  # signed in only
        # Signed-out writes (no session, so no CSRF token to check).
        signed_out = {
            "auth-signup",
            "auth-login",
            "auth-password-reset",
            "auth-password-reset-confirm",
            "fairness-cosign",  # a witness, anyone's: the cosignature is what is checked
        }
        if method != "GET" and operation["operationId"] not in signed_out:
            assert "403" in errors, (method, path)  # a cookie-signed write needs its CSRF token
            assert "503" in errors, (method, path)  # writes may find the database busy


def test_the_error_body(schema: dict[str, Any]) -> None:
    body = schema["components"]["schemas"]["ErrorBody"]
    assert body["type"] == "object"
    assert body["required"] == ["error", "code"]
    assert body["properties"]["error"]["type"] == "string"
    assert body["properties"]["code"]["type"] == "string"
    assert body["properties"]["version"]["type"] == "integer"
    assert body["properties"]["retry_after"]["type"] == "integer"
    assert not {"version", "retry_after"} & set(body["required"])
    assert body["additionalProperties"] is True


def test_no_operation_mentions_fastapis_validation_error(schema: dict[str, Any]) -> None:
    assert "HTTPValidationError" not in json.dumps(schema)
    assert "ValidationError" not in schema["components"]["schemas"]


def test_a_validation_error_answers_the_error_body(services: Services) -> None:
    client = TestClient(create_app(services=services))
    answer = client.get(f"{API}/games/0")
    assert answer.status_code == 422
    assert answer.json() == {"error": answer.json()["error"], "code": "invalid_request"}


@pytest.mark.parametrize("drift", ["added", "lost"])
def test_a_payload_that_drifts_from_its_model_is_an_error_not_trimmed(
    drift: str, services: Services, make_user: MakeUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A key the model does not name (or a key it needs that is missing) fails the answer,
    so the tests notice; it is never dropped (or filled in) on the way out."""
    me = make_user(f"drift_{drift}")
    with TestClient(create_app(services=services), raise_server_exceptions=False) as client:
        body = {"game": "tenthousand", "seats": ["me", "bot:random"]}
        created = client.post(f"{API}/games", json=body, headers=me)
        assert created.status_code == 201, created.text
        url = f"{API}/games/{created.json()['id']}"
        assert set(client.get(url, headers=me).json()) == set(Game.model_fields)
        payload = reading.game_payload

        def drifted(*args: Any) -> dict[str, Any]:
            out: dict[str, Any] = dict(payload(*args))
            if drift == "added":
                out["secret"] = "not in the model"
            else:
                del out["title"]
            return out

        monkeypatch.setattr(reading, "game_payload", drifted)
        answer = client.get(url, headers=me)
        assert answer.status_code == 500
        assert answer.json()["code"] == "internal"
