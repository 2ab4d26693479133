"""Nobody can flood the waiting room or another user's list; the waiting room pages."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from dicehall.server.domain.games import quotas
from dicehall.server.domain.games.quotas import (
    CREATES_PER_MINUTE,
    OPEN_GAMES_PER_USER,
    PENDING_INVITES_TO_ONE_USER,
)
from tests.server.conftest import MakeUser

API = "/api/v1"


def test_open_games_per_user_are_capped_and_others_still_get_in(
    client: TestClient, make_user: MakeUser
) -> None:
    spammer, honest = make_user("spammer"), make_user("honest")
    body = {"game": "tenthousand", "seats": ["me", "open"]}
    for _ in range(OPEN_GAMES_PER_USER):
        assert client.post(f"{API}/games", json=body, headers=spammer).status_code == 201
    refused = client.post(f"{API}/games", json=body, headers=spammer)
    assert refused.status_code == 429 and refused.json()["code"] == "too_many_open_games"
    mine = client.post(f"{API}/games", json=body, headers=honest)
    assert mine.status_code == 201
    room = client.get(f"{API}/games/open").json()
    assert room[0]["id"] == mine.json()["id"], "the newest game comes first"


def test_nobody_can_bury_another_users_list(client: TestClient, make_user: MakeUser) -> None:
    mallory, carol = make_user("mallory"), make_user("carol")
    body = {"game": "tenthousand", "seats": ["me", "user:carol"]}
    for _ in range(PENDING_INVITES_TO_ONE_USER):
        assert client.post(f"{API}/games", json=body, headers=mallory).status_code == 201
    refused = client.post(f"{API}/games", json=body, headers=mallory)
    assert refused.status_code == 429 and refused.json()["code"] == "too_many_invites"
    assert len(client.get(f"{API}/games", headers=carol).json()) == 3


def test_creates_per_minute_are_limited(client: TestClient, make_user: MakeUser) -> None:
    me = make_user("busy")
    body = {"game": "boss", "seats": ["me", "bot:heuristic"]}
    codes = [
        client.post(f"{API}/games", json=body, headers=me).status_code
        for _ in range(CREATES_PER_MINUTE + 1)
    ]
    assert codes[:-1] == [201] * CREATES_PER_MINUTE
    assert codes[-1] == 429


def test_the_waiting_room_is_newest_first_and_pages(
    client: TestClient, make_user: MakeUser
) -> None:
    made = []
    for name in ("ann", "ben", "cat"):
        headers = make_user(name)
        for _ in range(3):
            body = {"game": "boss", "seats": ["me", "open"]}
            made.append(client.post(f"{API}/games", json=body, headers=headers).json()["id"])
    first = client.get(f"{API}/games/open", params={"limit": 4}).json()
    assert [g["id"] for g in first] == sorted(made, reverse=True)[:4]
    rest = client.get(f"{API}/games/open", params={"limit": 50, "before": first[-1]["id"]})
    assert [g["id"] for g in rest.json()] == sorted(made, reverse=True)[4:]
    assert client.get(f"{API}/games/open", params={"limit": 0}).status_code == 422
    assert client.get(f"{API}/games/open", params={"before": 2**40}).status_code == 422


def test_an_invitation_is_accepted_or_declined(client: TestClient, make_user: MakeUser) -> None:
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    body = {"game": "tenthousand", "seats": ["me", "user:bob"]}
    game = client.post(f"{API}/games", json=body, headers=alice).json()
    assert game["status"] == "waiting" and game["view"] is None
    assert game["seats"][1] == {
        "seat": 1,
        "user": "bob",
        "bot": None,
        "open": False,
        "invited": True,
        "name": "bob",
        "status": "playing",
        "moved": False,
        "away_until": None,
    }
    listed = client.get(f"{API}/games", headers=bob).json()
    assert listed[0]["id"] == game["id"] and listed[0]["invitation"]
    assert client.get(f"{API}/games/open").json() == [], "an invitation is not an open seat"
    for intruder in (alice, carol):
        refused = client.post(f"{API}/games/{game['id']}/accept", headers=intruder)
        assert refused.status_code == 409 and refused.json()["code"] == "not_invited"
    joined = client.post(f"{API}/games/{game['id']}/join", json={}, headers=carol)
    assert joined.status_code == 409
    accepted = client.post(f"{API}/games/{game['id']}/accept", headers=bob)
    assert accepted.status_code == 200 and accepted.json()["status"] == "active"
    assert not accepted.json()["seats"][1]["invited"]
    again = client.post(f"{API}/games/{game['id']}/decline", headers=bob)
    assert again.status_code == 409

    other = client.post(f"{API}/games", json=body, headers=alice).json()
    declined = client.post(f"{API}/games/{other['id']}/decline", headers=bob)
    assert declined.status_code == 200 and declined.json()["status"] == "cancelled"
    moved = client.post(
        f"{API}/games/{other['id']}/actions",
        json={"action": {"type": "bank"}, "expected_version": declined.json()["version"]},
        headers=alice,
    )
    assert moved.status_code == 409


def test_the_creator_can_withdraw_a_waiting_game(client: TestClient, make_user: MakeUser) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    body = {"game": "boss", "seats": ["me", "open"]}
    game = client.post(f"{API}/games", json=body, headers=alice).json()
    assert client.post(f"{API}/games/{game['id']}/cancel", headers=bob).status_code == 403
    cancelled = client.post(f"{API}/games/{game['id']}/cancel", headers=alice)
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    assert client.get(f"{API}/games/open").json() == []
    late = client.post(f"{API}/games/{game['id']}/join", json={}, headers=bob)
    assert late.status_code == 409
    started = client.post(
        f"{API}/games", json={"game": "boss", "seats": ["me", "bot:heuristic"]}, headers=alice
    ).json()
    refused = client.post(f"{API}/games/{started['id']}/cancel", headers=alice)
    assert refused.status_code == 409 and refused.json()["code"] == "started"


def test_joining_is_capped_in_waiting_games(client: TestClient, make_user: MakeUser) -> None:
    """Nobody can sit in every open seat: at most OPEN_GAMES_PER_USER waiting games at once."""
    hosts = [make_user(f"host{i}") for i in range(3)]
    grabber = make_user("grabber")
    # Three-seat games stay waiting after one join.
    waiting = [
        client.post(
            f"{API}/games", json={"game": "holdem", "seats": ["me", "open", "open"]}, headers=h
        ).json()["id"]
        for h in hosts
        for _ in range(4)
    ]
    codes = [
        client.post(f"{API}/games/{g}/join", json={}, headers=grabber).status_code for g in waiting
    ]
    assert codes == [200] * OPEN_GAMES_PER_USER + [429] * (len(waiting) - OPEN_GAMES_PER_USER)
    refused = client.post(f"{API}/games/{waiting[-1]}/join", json={}, headers=grabber)
    assert refused.json()["code"] == "too_many_open_games"


def test_joins_per_minute_are_limited(
    client: TestClient, make_user: MakeUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(quotas, "JOINS_PER_MINUTE", 2)
    hosts = [make_user(f"host{i}") for i in range(3)]
    grabber = make_user("grabber")
    two_seat = [
        client.post(
            f"{API}/games", json={"game": "boss", "seats": ["me", "open"]}, headers=h
        ).json()["id"]
        for h in hosts
    ]
    codes = [
        client.post(f"{API}/games/{g}/join", json={}, headers=grabber).status_code for g in two_seat
    ]
    assert codes == [200, 200, 429]
    refused = client.post(f"{API}/games/{two_seat[-1]}/join", json={}, headers=grabber)
    assert refused.json()["code"] == "too_many_joins"
    assert refused.headers["Retry-After"] == "60"
