"""The faults of the API's contract that the schema fuzz found, each pinned: ids, versions and
counts that took ``true``, ``1.0`` or ``"1"`` for an integer (and booleans ``1``), numbers in
paths and queries not written in digits, and rules the site checked that the schema did not
state. Each refused request changes nothing."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from dicehall import games
from tests.server.conftest import Headers, MakeUser

API = "/api/v1"
#: What a JSON integer is not: a boolean, a number with a fraction part, a numeric string.
NOT_INTEGERS: list[Any] = [True, False, 1.0, "1"]


def _game(client: TestClient, me: Headers) -> dict[str, Any]:
    body = {"game": "tenthousand", "seats": ["me", "bot:random"]}
    made = client.post(f"{API}/games", json=body, headers=me)
    assert made.status_code == 201, made.text
    game: dict[str, Any] = made.json()
    return game


def _refused(answer: Any, field: str) -> None:
    assert answer.status_code == 422, answer.text
    assert answer.json()["code"] in {"invalid_request", "invalid_settings"}, answer.text
    assert field in answer.json()["error"], answer.text


@pytest.mark.parametrize("value", NOT_INTEGERS)
def test_an_id_in_a_body_is_a_json_integer(
    value: Any, client: TestClient, make_user: MakeUser
) -> None:
    me = make_user("ida")
    make_user("otto")
    game = _game(client, me)
    unread = client.get(f"{API}/notifications", headers=me).json()["unread"]
    for path, body, field in [
        (f"/games/{game['id']}/chat/read", {"up_to": value}, "up_to"),
        ("/notifications/read", {"up_to": value}, "up_to"),
        ("/messages/otto/read", {"up_to": value}, "up_to"),
        ("/messages/otto", {"body": "hello", "game_id": value}, "game_id"),
        ("/invites", {"game_id": value}, "game_id"),
    ]:
        _refused(client.post(API + path, json=body, headers=me), field)
    assert client.get(f"{API}/notifications", headers=me).json()["unread"] == unread
    assert client.get(f"{API}/messages", headers=me).json()["threads"] == []


@pytest.mark.parametrize("value", NOT_INTEGERS)
def test_a_version_or_a_seat_is_a_json_integer(
    value: Any, client: TestClient, make_user: MakeUser
) -> None:
    me = make_user("vera")
    game = _game(client, me)
    for ending in ("resign", "abort"):
        answer = client.post(
            f"{API}/games/{game['id']}/{ending}", json={"expected_version": value}, headers=me
        )
        _refused(answer, "expected_version")
    assert client.get(f"{API}/games/{game['id']}", headers=me).json()["status"] == "active"
    made = client.post(
        f"{API}/games", json={"game": "boss", "seats": ["me", "open"]}, headers=make_user("olga")
    )
    _refused(
        client.post(f"{API}/games/{made.json()['id']}/join", json={"seat": value}, headers=me),
        "seat",
    )
    ticket = {"game": "bullseye", "seats": [value, 4]}
    _refused(client.post(f"{API}/automatch", json=ticket, headers=me), "seats")


@pytest.mark.parametrize("value", [1, 0, "true", "yes"])
def test_a_boolean_is_a_json_boolean(value: Any, client: TestClient, make_user: MakeUser) -> None:
    me = make_user("bea")
    body = {"game": "tenthousand", "seats": ["me", "bot:random"], "private": value}
    _refused(client.post(f"{API}/games", json=body, headers=me), "private")
    _refused(
        client.post(f"{API}/invites", json={"make_buddies": value}, headers=me), "make_buddies"
    )
    assert client.get(f"{API}/games", headers=me).json() == []


def test_a_number_in_a_path_or_a_query_is_written_in_digits(
    client: TestClient, make_user: MakeUser
) -> None:
    me = make_user("dina")
    game = _game(client, me)
    for spelling in ("{}.0", "+{}", "{}_0", " {}"):
        path = spelling.format(game["id"])
        _refused(client.get(f"{API}/games/{path}", headers=me), "game_id")
        query = {"before": spelling.format(5)}
        _refused(client.get(f"{API}/notifications", params=query, headers=me), "before")
    assert client.get(f"{API}/games/{game['id']}", headers=me).status_code == 200


def test_six_reminders_are_refused_even_when_one_is_twice(
    client: TestClient, make_user: MakeUser
) -> None:
    me = make_user("remy")
    marks = ["80%", "1h", "30m", "2d", "50%", "1h"]
    answer = client.patch(f"{API}/users/me/settings", json={"reminders": marks}, headers=me)
    assert answer.status_code == 422 and answer.json()["code"] == "invalid_settings", answer.text
    kept = client.get(f"{API}/users/me/settings", headers=me).json()["reminders"]
    assert kept == ["80%", "1h"]


def _walk(node: Any) -> Any:
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from _walk(value)


def _operation(schema: dict[str, Any], operation_id: str) -> dict[str, Any]:
    for item in schema["paths"].values():
        for operation in item.values():
            if operation.get("operationId") == operation_id:
                found: dict[str, Any] = operation
                return found
    raise AssertionError(operation_id)


def _body(schema: dict[str, Any], operation_id: str) -> dict[str, Any]:
    ref = _operation(schema, operation_id)["requestBody"]["content"]["application/json"]["schema"]
    found: dict[str, Any] = schema["components"]["schemas"][ref["$ref"].rsplit("/", 1)[1]]
    return found


def _parameter(schema: dict[str, Any], operation_id: str, name: str) -> dict[str, Any]:
    params = _operation(schema, operation_id)["parameters"]
    found: dict[str, Any] = next(p for p in params if p["name"] == name)["schema"]
    return found


def test_the_schema_states_the_rules_the_site_checks(client: TestClient) -> None:
    schema = client.get(f"{API}/openapi.json").json()
    assert not [n for n in _walk(schema) if {"ge", "le"} & set(n) and "type" in n]
    installed = list(games.available())
    assert _body(schema, "games-create")["properties"]["game"]["enum"] == installed
    assert _parameter(schema, "games-live", "game")["anyOf"][0]["enum"] == installed
    signup = _body(schema, "auth-signup")["properties"]
    assert (signup["user_id"]["minLength"], signup["user_id"]["maxLength"]) == (3, 20)
    assert (signup["password"]["minLength"], signup["password"]["maxLength"]) == (8, 128)
    assert "pattern" in signup["display_name"]["anyOf"][0]
    assert len(_body(schema, "users-me-update")["anyOf"]) == 3  # something to change
    chat_post = _body(schema, "games-chat-post")
    assert chat_post["properties"]["preset"]["anyOf"][0]["enum"] == ["gl", "gg", "ty"]
    assert len(chat_post["oneOf"]) == 2  # a body or a preset
    limit = _parameter(schema, "users-games", "limit")
    assert (limit["minimum"], limit["maximum"]) == (1, 100)
    assert _parameter(schema, "users-games", "state")["anyOf"][0]["enum"] == [
        "",
        "finished",
        "active",
    ]
    seats = _body(schema, "automatch-file")["properties"]["seats"]["items"]
    assert (seats["minimum"], seats["maximum"]) == (2, 99)
    up_to = _body(schema, "notifications-read")["properties"]["up_to"]["anyOf"][0]
    assert (up_to["type"], up_to["minimum"], up_to["maximum"]) == ("integer", 1, 2**31 - 1)
