"""The relations API: buddy and ignore lists with private notes,
"mutual" for buddies only, bad input refused without a trace, and the meeting points of
games (naming an opponent, joining an open seat, the waiting room, watch invitations) closed
across an ignore with the very answer a user who accepts nothing gives."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Connection, select

from dicehall.server.domain.people import settings
from dicehall.server.domain.people.relations import USERS
from dicehall.server.domain.services import Services
from tests.server.conftest import Headers, MakeUser

API = "/api/v1"


def put(client: TestClient, who: Headers, user_id: str, **body: Any) -> Any:
    return client.put(f"{API}/relations/{user_id}", json=body, headers=who)


def listed(client: TestClient, who: Headers, kind: str | None = None) -> list[dict[str, Any]]:
    answer = client.get(f"{API}/relations", params={"kind": kind} if kind else {}, headers=who)
    assert answer.status_code == 200, answer.text
    found: list[dict[str, Any]] = answer.json()["relations"]
    return found


def test_buddies_are_one_way_and_mutual_when_both_say_so(
    client: TestClient, make_user: MakeUser
) -> None:
    ann, bob = make_user("ann"), make_user("bob")
    answer = put(client, ann, "BOB", kind="buddy", note="met at the ladder")
    assert answer.status_code == 200, answer.text
    assert answer.json()["user_id"] == "bob"
    assert answer.json()["mutual"] is False
    assert listed(client, bob) == []  # a buddy is one-way: bob's lists say nothing
    assert put(client, bob, "ann", kind="buddy").status_code == 200
    (mine,) = listed(client, ann, "buddy")
    assert (mine["mutual"], mine["note"]) == (True, "met at the ladder")
    assert listed(client, ann, "ignore") == []


def test_an_ignore_is_never_shown_as_mutual_and_never_told(
    client: TestClient, make_user: MakeUser
) -> None:
    ann, bob = make_user("ann"), make_user("bob")
    assert put(client, ann, "bob", kind="buddy").status_code == 200
    assert put(client, bob, "ann", kind="ignore", note="rude").status_code == 200
    (mine,) = listed(client, ann)
    assert mine["kind"] == "buddy" and mine["mutual"] is False
    (theirs,) = listed(client, bob, "ignore")
    assert theirs["note"] == "rude"


def test_changing_and_forgetting_a_relation(client: TestClient, make_user: MakeUser) -> None:
    ann, _bob = make_user("ann"), make_user("bob")
    assert put(client, ann, "bob", kind="buddy", note="kept").status_code == 200
    changed = put(client, ann, "bob", kind="ignore")
    assert changed.json()["kind"] == "ignore" and changed.json()["note"] == "kept"
    removed = client.delete(f"{API}/relations/BOB", headers=ann)
    assert removed.status_code == 200 and removed.json() == {"removed": "bob"}
    assert listed(client, ann) == []
    again = client.delete(f"{API}/relations/bob", headers=ann)
    assert again.status_code == 404 and again.json()["code"] == "no_relation"


@pytest.mark.parametrize(
    ("target", "body", "status", "code"),
    [
        ("nobody", {"kind": "buddy"}, 404, "unknown_user"),
        ("ann", {"kind": "buddy"}, 422, "yourself"),
        ("bob", {"kind": "friend"}, 422, "invalid_request"),
        ("bob", {}, 422, "invalid_request"),
        ("bob", {"kind": "buddy", "note": "x" * 201}, 422, "invalid_request"),
        ("bob", {"kind": "buddy", "extra": 1}, 422, "invalid_request"),
        ("x" * 41, {"kind": "buddy"}, 422, "invalid_request"),
    ],
)
def test_bad_input_is_refused_and_changes_nothing(
    client: TestClient, make_user: MakeUser, target: str, body: Any, status: int, code: str
) -> None:
    ann, _bob = make_user("ann"), make_user("bob")
    answer = client.put(f"{API}/relations/{target}", json=body, headers=ann)
    assert answer.status_code == status, answer.text
    assert answer.json()["code"] == code
    assert listed(client, ann) == []


def test_visitors_have_no_relations(client: TestClient) -> None:
    assert client.get(f"{API}/relations").status_code == 401
    assert client.put(f"{API}/relations/bob", json={"kind": "buddy"}).status_code == 401


# -- the games' meeting points -----------------------------------------------------------------


def _create(client: TestClient, who: Headers, seats: list[str]) -> Any:
    return client.post(
        f"{API}/games", json={"game": "boatzee", "seats": seats, "pace": "none"}, headers=who
    )


def user_pk(conn: Connection, user_id: str) -> int:
    """The database id of ``user_id``."""
    return int(conn.execute(select(USERS.c.id).where(USERS.c.key == user_id)).scalar_one())


def _setting(client: TestClient, who: Headers, services: Services, name: str, value: str) -> None:
    user_id = client.get(f"{API}/users/me", headers=who).json()["user_id"]
    with services.write_conn() as conn:
        settings.change(conn, user_pk(conn, user_id), {name: value})


@pytest.mark.parametrize("who_ignores", ["ann", "bob"])
def test_naming_an_ignoring_or_ignored_user_is_refused_like_a_closed_door(
    client: TestClient, make_user: MakeUser, services: Services, who_ignores: str
) -> None:
    people = {"ann": make_user("ann"), "bob": make_user("bob"), "cid": make_user("cid")}
    other = "bob" if who_ignores == "ann" else "ann"
    assert put(client, people[who_ignores], other, kind="ignore").status_code == 200
    refused = _create(client, people["ann"], ["me", "bob"])
    # cid accepts challenges from nobody: ann is told exactly the same about him.
    _setting(client, people["cid"], services, "challenges_from", "nobody")
    closed = _create(client, people["ann"], ["me", "cid"])
    assert refused.status_code == closed.status_code == 403
    assert refused.json()["code"] == closed.json()["code"] == "not_accepted"
    assert refused.json()["error"].replace("bob", "X") == closed.json()["error"].replace("cid", "X")
    games = client.get(f"{API}/games", headers=people["bob"]).json()
    assert games == []  # nothing was created


def test_two_named_users_across_an_ignore_cannot_be_seated_together(
    client: TestClient, make_user: MakeUser
) -> None:
    ann, bob, _cid = make_user("ann"), make_user("bob"), make_user("cid")
    assert put(client, bob, "cid", kind="ignore").status_code == 200
    answer = client.post(
        f"{API}/games",
        json={"game": "tenthousand", "seats": ["me", "bob", "cid"], "pace": "none"},
        headers=ann,
    )
    assert answer.status_code == 403 and answer.json()["code"] == "not_accepted"
    assert "bob" not in answer.json()["error"] and "cid" not in answer.json()["error"]


@pytest.mark.parametrize("who_ignores", ["ann", "bob"])
def test_an_open_seat_is_hidden_and_closed_across_an_ignore(
    client: TestClient, make_user: MakeUser, who_ignores: str
) -> None:
    people = {"ann": make_user("ann"), "bob": make_user("bob"), "cid": make_user("cid")}
    created = _create(client, people["ann"], ["me", "open"])
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    other = "bob" if who_ignores == "ann" else "ann"
    assert put(client, people[who_ignores], other, kind="ignore").status_code == 200
    seen_by_bob = client.get(f"{API}/games/open", headers=people["bob"]).json()
    seen_by_cid = client.get(f"{API}/games/open", headers=people["cid"]).json()
    assert [g["id"] for g in seen_by_bob] == []
    assert [g["id"] for g in seen_by_cid] == [game_id]
    # Its board shows bob no open seat to take: to him the game does not exist, word for
    # word like a game that never did, and joining it by its address says the same.
    missing = client.get(f"{API}/games/{10**6}", headers=people["bob"]).json()
    board = client.get(f"{API}/games/{game_id}", headers=people["bob"])
    assert board.status_code == 404
    assert board.json() == {**missing, "error": missing["error"].replace(str(10**6), str(game_id))}
    joined = client.post(f"{API}/games/{game_id}/join", json={}, headers=people["bob"])
    assert joined.status_code == 404 and joined.json() == board.json()
    assert client.get(f"{API}/games/{game_id}/chat", headers=people["bob"]).status_code == 404
    seats = client.get(f"{API}/games/{game_id}", headers=people["cid"]).json()["seats"]
    assert [s["open"] for s in seats] == [False, True]
    joined = client.post(f"{API}/games/{game_id}/join", json={}, headers=people["cid"])
    assert joined.status_code == 200, joined.text
    # Once the seat is taken the game is a public one like any other, for bob too.
    assert client.get(f"{API}/games/{game_id}", headers=people["bob"]).status_code == 200


def test_a_watch_invitation_across_an_ignore_is_refused(
    client: TestClient, make_user: MakeUser
) -> None:
    ann, bob, cid = make_user("ann"), make_user("bob"), make_user("cid")
    created = client.post(
        f"{API}/games",
        json={"game": "boatzee", "seats": ["me", "bot:random"], "private": True, "pace": "none"},
        headers=ann,
    )
    game_id = created.json()["id"]
    assert put(client, cid, "ann", kind="ignore").status_code == 200
    refused = client.post(f"{API}/games/{game_id}/watchers", json={"user": "cid"}, headers=ann)
    assert refused.status_code == 403 and refused.json()["code"] == "not_accepted"
    allowed = client.post(f"{API}/games/{game_id}/watchers", json={"user": "bob"}, headers=ann)
    assert allowed.status_code == 200, allowed.text
    del bob
