"""Notifications: a game that becomes my turn tells me, the sweeper
reminds me when 80% of a tiny turn is used, the list pages newest first, marking read is
mine alone and tells my other pages, and nobody sees another's notifications."""

from __future__ import annotations

import random
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from time_machine import TimeMachineFixture

from dicehall.server.core.models import User
from dicehall.server.domain import notifications
from dicehall.server.domain.services import Services
from tests.server.conftest import Headers, MakeUser
from tests.server.test_clocks import fetch, play, site_clock, two_people
from tests.waiting import wait_until

__all__ = ["site_clock"]  # a fixture

API = "/api/v1"


def listed(client: TestClient, headers: Headers, **query: Any) -> Any:
    answer = client.get(f"{API}/notifications", params=query, headers=headers)
    assert answer.status_code == 200, answer.text
    return answer.json()


def mark(client: TestClient, headers: Headers, up_to: int | None = None) -> int:
    body = {} if up_to is None else {"up_to": up_to}
    answer = client.post(f"{API}/notifications/read", json=body, headers=headers)
    assert answer.status_code == 200, answer.text
    marked: int = answer.json()["marked"]
    return marked


def pass_to_bob(client: TestClient, game: Any, alice: Headers) -> Any:
    """Alice (seat 0) plays until the turn is bob's (seat 1)."""
    rng = random.Random(5)
    for _ in range(100):
        if game["to_act"] == 1:
            return game
        game = play(client, alice, fetch(client, game["id"], alice), rng)
    raise AssertionError("the turn never passed to bob")


def kinds(found: Any, game_id: int) -> list[str]:
    return [n["kind"] for n in found["notifications"] if n["game"] == game_id]


def test_a_game_that_becomes_my_turn_tells_me(client: TestClient, make_user: MakeUser) -> None:
    game, players = two_people(client, make_user, vacation=True, pace="daily")
    alice, bob = players[0], players[1]
    assert game["to_act"] == 0
    assert "your_turn" not in kinds(listed(client, bob), game["id"])
    pass_to_bob(client, game, alice)
    mine = listed(client, bob)
    assert kinds(mine, game["id"]) == ["your_turn"]
    note = mine["notifications"][0]
    assert note["read"] is False and str(game["id"]) in note["text"]
    assert mine["unread"] == 1 and mine["next"] is None
    assert note["created_at"].endswith("+00:00")


def test_a_reminder_comes_when_80_percent_of_a_turn_is_used(
    client: TestClient, make_user: MakeUser, site_clock: TimeMachineFixture
) -> None:
    game, players = two_people(
        client, make_user, vacation=False, pace={"initial": 5, "increment": 5, "cap": 5}
    )
    pass_to_bob(client, game, players[0])

    def reminders() -> list[Any]:
        return [
            n
            for n in listed(client, players[1])["notifications"]
            if n["kind"] == "time_low" and n["game"] == game["id"]
        ]

    assert reminders() == []
    # 4.1 s of Bob's 5 s bank pass; the sweeper (nobody reads the game) reminds him.
    site_clock.shift(4.1)
    reminded = wait_until(reminders, timeout=6, what="the sweeper's reminder")
    assert len(reminded) == 1 and "left" in reminded[0]["text"]


def test_marking_read_is_mine_alone(client: TestClient, make_user: MakeUser) -> None:
    game, players = two_people(client, make_user, vacation=True, pace="daily")
    alice, bob = players[0], players[1]
    pass_to_bob(client, game, alice)
    before_alice = listed(client, alice)
    bobs = listed(client, bob)
    assert bobs["unread"] >= 1
    # Alice's notifications (her turn at the start) are not in bob's list, and his ids
    # cannot mark hers.
    alice_ids = {n["id"] for n in before_alice["notifications"]}
    assert alice_ids and not alice_ids & {n["id"] for n in bobs["notifications"]}
    newest = max(alice_ids | {n["id"] for n in bobs["notifications"]})
    assert mark(client, bob, newest) == bobs["unread"]
    after = listed(client, bob)
    assert after["unread"] == 0 and all(n["read"] for n in after["notifications"])
    assert listed(client, alice) == before_alice
    assert mark(client, bob) == 0  # nothing left to mark
    assert mark(client, alice) == before_alice["unread"]
    assert listed(client, alice)["unread"] == 0


def test_marking_read_up_to_an_id_leaves_the_newer_unread(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    me = make_user("reader")
    user_pk = user_pk_of(services, "reader")
    with services.write_conn() as conn:
        for n in range(5):
            notifications.add(conn, user_pk, "your_turn", None, f"note {n}")
    ids = sorted(n["id"] for n in listed(client, me)["notifications"])
    assert mark(client, me, ids[2]) == 3
    found = listed(client, me)
    assert found["unread"] == 2
    assert [(n["id"], n["read"]) for n in found["notifications"]] == [
        (ids[4], False),
        (ids[3], False),
        (ids[2], True),
        (ids[1], True),
        (ids[0], True),
    ]


def test_the_list_pages_newest_first(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    me = make_user("pager")
    make_user("other")
    user_pk, other_pk = user_pk_of(services, "pager"), user_pk_of(services, "other")
    with services.write_conn() as conn:
        for n in range(7):
            notifications.add(conn, user_pk, "time_low", None, f"mine {n}")
            notifications.add(conn, other_pk, "time_low", None, f"theirs {n}")
    seen: list[str] = []
    before: int | None = None
    pages = 0
    while True:
        query: dict[str, Any] = {"limit": 3}
        if before is not None:
            query["before"] = before
        page = listed(client, me, **query)
        assert page["unread"] == 7
        seen += [n["text"] for n in page["notifications"]]
        pages += 1
        before = page["next"]
        if before is None:
            break
    assert pages == 3
    assert seen == [f"mine {n}" for n in reversed(range(7))]
    # A page that ends exactly at the oldest says there is no next page.
    assert listed(client, me, limit=7)["next"] is None


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("GET", "/notifications?limit=0", None),
        ("GET", "/notifications?limit=101", None),
        ("GET", "/notifications?before=0", None),
        ("GET", f"/notifications?before={2**31}", None),
        ("POST", "/notifications/read", {"up_to": 0}),
        ("POST", "/notifications/read", {"up_to": "all"}),
        ("POST", "/notifications/read", {"everything": True}),
    ],
)
def test_bad_requests_are_422(
    client: TestClient, make_user: MakeUser, method: str, path: str, body: Any
) -> None:
    me = make_user("odd")
    answer = client.request(method, f"{API}{path}", json=body, headers=me)
    assert answer.status_code == 422, answer.text
    assert answer.json()["code"] == "invalid_request"


def test_visitors_have_no_notifications(client: TestClient) -> None:
    assert client.get(f"{API}/notifications").status_code == 401
    assert client.post(f"{API}/notifications/read", json={}).status_code == 401


def test_marking_read_tells_my_other_pages(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    me = make_user("tabs")
    user_pk = user_pk_of(services, "tabs")
    with client.websocket_connect(f"{API}/ws", headers=me) as socket:
        assert socket.receive_json() == {"type": "hello"}
        with services.write_conn() as conn:
            notifications.add(conn, user_pk, "your_turn", None, "one")
            notifications.add(conn, user_pk, "your_turn", None, "two")
        first, second = socket.receive_json(), socket.receive_json()
        assert (first["type"], first["text"], second["text"]) == ("notification", "one", "two")
        assert mark(client, me, first["id"]) == 1
        assert socket.receive_json() == {"type": "notifications_read", "unread": 1}


def user_pk_of(services: Services, name: str) -> int:
    with services.sessions() as db:
        found = db.scalar(select(User.id).where(User.user_id == name))
        assert found is not None
        return int(found)
