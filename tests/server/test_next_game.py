"""The next game waiting on me (``GET /api/v1/games/next``, the page ``/next``): the least
time left first, games without a clock after those with one, the turn that began first
among those; the game on screen left out; nothing waiting: null, and the page goes to the
game list."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from time_machine import TimeMachineFixture

from tests.server.conftest import Headers, MakeUser
from tests.server.test_clocks import create, fetch, site_clock

__all__ = ["site_clock"]  # a fixture

API = "/api/v1"


def next_of(client: TestClient, headers: Headers, skip: int | None = None) -> Any:
    query = {} if skip is None else {"skip": skip}
    answer = client.get(f"{API}/games/next", params=query, headers=headers)
    assert answer.status_code == 200, answer.text
    return answer.json()


def boatzee_with(client: TestClient, alice: Headers, bob: Headers, pace: str) -> int:
    """A Boatzee game of alice's against bob, started; alice (seat 0) is to act."""
    game = create(client, alice, {"game": "boatzee", "seats": ["me", "bob"], "pace": pace})
    accepted = client.post(f"{API}/games/{game['id']}/accept", headers=bob)
    assert accepted.status_code == 200, accepted.text
    assert accepted.json()["to_act"] == 0
    return int(game["id"])


def test_the_next_game_is_the_one_with_the_least_time_left(
    client: TestClient, make_user: MakeUser, site_clock: TimeMachineFixture
) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    assert next_of(client, alice) == {"game": None, "waiting": 0}
    unclocked_first = boatzee_with(client, alice, bob, "none")
    site_clock.shift(60)
    unclocked_second = boatzee_with(client, alice, bob, "none")
    site_clock.shift(60)
    slow = boatzee_with(client, alice, bob, "days-5")
    quick = boatzee_with(client, alice, bob, "days-1")
    middle = boatzee_with(client, alice, bob, "days-3")
    # A re-roll keeps the first unclocked game alice's turn, but its turn moved on later
    # than the second's: the second now waits longest.
    site_clock.shift(60)
    game = fetch(client, unclocked_first, alice)
    reroll = next(a for a in game["legal"] if "positions" in a)
    moved = client.post(
        f"{API}/games/{unclocked_first}/actions",
        json={"action": reroll, "expected_version": game["version"]},
        headers=alice,
    )
    assert moved.status_code == 200 and moved.json()["to_act"] == 0, moved.text

    order = [quick, middle, slow, unclocked_second, unclocked_first]
    assert next_of(client, alice) == {"game": quick, "waiting": 5}
    # Leaving each one out in turn walks the list: the first of the others comes next.
    for index, shown in enumerate(order):
        others = [g for g in order if g != shown]
        assert next_of(client, alice, skip=shown) == {"game": others[0], "waiting": 4}, index
    # Bob waits on nothing; a game ended is not waiting.
    assert next_of(client, bob) == {"game": None, "waiting": 0}
    resigned = client.post(
        f"{API}/games/{quick}/resign",
        json={"expected_version": fetch(client, quick, alice)["version"]},
        headers=alice,
    )
    assert resigned.status_code == 200, resigned.text
    assert next_of(client, alice) == {"game": middle, "waiting": 4}


def test_the_next_page_opens_that_game_or_the_game_list(
    client: TestClient, make_user: MakeUser
) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    signed = client.post(
        f"{API}/auth/login", json={"user_id": "alice", "password": "correct horse battery"}
    )
    assert signed.status_code == 200, signed.text
    nothing = client.get("/next", follow_redirects=False)
    assert nothing.status_code == 303 and nothing.headers["location"] == "/status"
    game_id = boatzee_with(client, alice, bob, "daily")
    there = client.get("/next", follow_redirects=False)
    assert there.status_code == 303 and there.headers["location"] == f"/games/{game_id}"
    # Leaving the only one out: the game list; a skip that is no id is ignored.
    skipped = client.get(f"/next?skip={game_id}", follow_redirects=False)
    assert skipped.headers["location"] == "/status"
    odd = client.get("/next?skip=nonsense", follow_redirects=False)
    assert odd.headers["location"] == f"/games/{game_id}"


def test_visitors_are_sent_to_log_in(client: TestClient) -> None:
    assert client.get(f"{API}/games/next").status_code == 401
    page = client.get("/next", follow_redirects=False)
    assert page.status_code == 303 and page.headers["location"].startswith("/login?next=")


@pytest.mark.parametrize("skip", ["0", "-1", str(2**31), "x"])
def test_a_bad_skip_is_422(client: TestClient, make_user: MakeUser, skip: str) -> None:
    me = make_user("odd")
    answer = client.get(f"{API}/games/next", params={"skip": skip}, headers=me)
    assert answer.status_code == 422, answer.text
    assert answer.json()["code"] == "invalid_request"
