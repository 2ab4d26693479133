"""The tournaments API's rules: what creating checks (and that a
refusal writes nothing), joining and withdrawing, buddies-only, an ignore answered as a
full tournament, the quotas, and the timeout ban."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from time_machine import TimeMachineFixture

from dicehall.server.app import create_app
from dicehall.server.core.clock import now
from dicehall.server.domain.games import ending
from dicehall.server.domain.services import Services
from dicehall.server.domain.tournaments import create, job
from dicehall.server.domain.tournaments.rows import TOURNAMENTS
from tests.live import add_user
from tests.server.conftest import Headers, jobless_services
from tests.waiting import wait_until

API = "/api/v1"
CUP = {"name": "Cup", "game": "boatzee", "format": "cup", "size": 4, "pace": {"bank": 60}}


@pytest.fixture
def services(db_url: str) -> Iterator[Services]:
    """The site with its periodic jobs off (tests run the tournaments job themselves)."""
    yield from jobless_services(db_url)


@pytest.fixture
def client(services: Services) -> Iterator[TestClient]:
    with TestClient(create_app(services=services)) as test_client:
        yield test_client


def _count(services: Services) -> int:
    with services.read_conn() as conn:
        return int(conn.execute(select(func.count()).select_from(TOURNAMENTS)).scalar_one())


def _made(client: TestClient, headers: Headers, **changes: Any) -> dict[str, Any]:
    answer = client.post(f"{API}/tournaments", json={**CUP, **changes}, headers=headers)
    assert answer.status_code == 201, answer.text
    made: dict[str, Any] = answer.json()
    return made


BAD: list[tuple[dict[str, Any], str]] = [
    ({"game": "chess"}, "unknown_game"),
    ({"options": {"columns": 9}}, "invalid_options"),
    ({"size": None}, "invalid_size"),
    ({"size": 5, "table": 2, "game": "bullseye", "options": {"allow_two_seats": True}}, ""),
    ({"game": "bullseye", "size": 5, "table": 3}, "invalid_size"),
    ({"game": "bullseye", "table": 2}, "invalid_table"),
    ({"format": "swiss", "size": 6}, "invalid_rounds"),
    ({"rounds": 3}, "invalid_rounds"),
    ({"format": "swiss", "rounds": 3, "size": None}, "invalid_size"),
    ({"pace": "blitz"}, "invalid_pace"),
    ({"pace": {"bank": 0}}, "invalid_pace"),
    ({"pace": {"bank": 15 * 86400}}, "invalid_pace"),
    ({"pace": {"initial": 5, "increment": 0, "cap": 5}}, "invalid_pace"),
    ({"starts_at": "2001-01-01T00:00:00+00:00"}, "invalid_start"),
    ({"starts_at": "next tuesday"}, "invalid_start"),
    ({"name": "   "}, "invalid_name"),
    ({"name": "a\u0007b"}, "invalid_name"),
]


def test_creating_checks_every_field_and_a_refusal_writes_nothing(
    client: TestClient, services: Services
) -> None:
    alice = add_user(services, "alice")
    for change, code in BAD:
        answer = client.post(f"{API}/tournaments", json={**CUP, **change}, headers=alice)
        if not code:  # a valid one among them: created
            assert answer.status_code == 201, (change, answer.text)
            continue
        assert answer.status_code == 422, (change, answer.text)
        assert answer.json()["code"] in (code, "invalid_request"), (change, answer.json())
    assert _count(services) == 1
    cup_sizes = client.post(
        f"{API}/tournaments",
        json={**CUP, "game": "bullseye", "size": 5, "table": 3},
        headers=alice,
    ).json()
    assert "3, 4, 6, 9" in cup_sizes["error"], cup_sizes
    assert client.post(f"{API}/tournaments", json=CUP).status_code == 401


def test_defaults_a_detail_and_the_list(client: TestClient, services: Services) -> None:
    alice = add_user(services, "alice")
    made = _made(client, alice, game="bullseye", size=6, table=None, pace="brisk")
    assert made["table_seats"] == 3  # Bull's Eye takes 3 seats without its house rule
    assert made["pace"] == "brisk" and made["bank_s"] == 2 * 86400
    assert made["status"] == "open" and made["players"] == 0 and made["created_by"] == "alice"
    assert made["can_join"] and made["why_not"] is None and not made["joined"]
    assert "rounds" in made["options"] and made["rated"] and not made["scheduled"]
    two = _made(
        client,
        alice,
        game="boatzee",
        table=None,
        starts_at=(now() + timedelta(hours=2)).isoformat(),
    )
    assert two["table_seats"] == 2 and two["starts_at"] is not None
    listed = client.get(f"{API}/tournaments", params={"status": "open", "game": "bullseye"})
    assert [t["id"] for t in listed.json()["tournaments"]] == [made["id"]]
    assert client.get(f"{API}/tournaments", params={"status": "odd"}).status_code == 422
    anonymous = client.get(f"{API}/tournaments/{made['id']}").json()
    assert not anonymous["can_join"] and anonymous["why_not"] == "sign in to join"
    assert client.get(f"{API}/tournaments/9999").json()["code"] == "no_such_tournament"


def test_joining_and_withdrawing(client: TestClient, services: Services) -> None:
    users = {name: add_user(services, name) for name in ("ann", "ben", "cai", "dee", "eve")}
    tid = _made(client, users["ann"])["id"]
    at = f"{API}/tournaments/{tid}"
    assert client.post(f"{at}/join", headers=users["ann"]).json()["joined"]
    again = client.post(f"{at}/join", headers=users["ann"])
    assert again.status_code == 409 and again.json()["code"] == "already_joined"
    left = client.post(f"{at}/withdraw", headers=users["ann"])
    assert left.status_code == 200 and left.json()["players"] == 0
    assert client.post(f"{at}/withdraw", headers=users["ann"]).json()["code"] == "not_joined"
    for name in ("ann", "ben", "cai", "dee"):
        assert client.post(f"{at}/join", headers=users[name]).status_code == 200
    full = client.post(f"{at}/join", headers=users["eve"])
    assert full.status_code == 409 and full.json()["code"] == "full"
    assert job.run(services, now()) == 1  # full: the job starts it
    running = client.get(at, headers=users["ann"]).json()
    assert running["status"] == "running" and running["round"] == 1
    assert client.post(f"{at}/join", headers=users["eve"]).json()["code"] == "not_open"
    gone = client.post(f"{at}/withdraw", headers=users["ben"]).json()
    assert next(s for s in gone["standings"] if s["user_id"] == "ben")["status"] == "withdrawn"
    again = client.post(f"{at}/withdraw", headers=users["ben"])
    assert again.status_code == 409 and again.json()["code"] == "not_playing"
    assert client.get(f"{API}/tournaments/{tid}/join").status_code == 405


def test_buddies_only_takes_the_creator_and_their_buddies(
    client: TestClient, services: Services
) -> None:
    ann, ben, cai = (add_user(services, n) for n in ("ann", "ben", "cai"))
    tid = _made(client, ann, buddies_only=True)["id"]
    at = f"{API}/tournaments/{tid}"
    refused = client.post(f"{at}/join", headers=ben)
    assert refused.status_code == 403 and refused.json()["code"] == "buddies_only"
    # cai naming ann a buddy is not ann naming cai one.
    client.put(f"{API}/relations/ann", json={"kind": "buddy"}, headers=cai)
    assert client.post(f"{at}/join", headers=cai).status_code == 403
    client.put(f"{API}/relations/ben", json={"kind": "buddy"}, headers=ann)
    assert client.post(f"{at}/join", headers=ben).status_code == 200
    assert client.post(f"{at}/join", headers=ann).status_code == 200
    assert client.get(at, headers=cai).json()["why_not"].startswith("this tournament is for")


@pytest.mark.parametrize("who_ignores", ["joiner", "player"])
def test_an_ignore_is_answered_as_a_full_tournament(
    who_ignores: str, client: TestClient, services: Services
) -> None:
    ann, ben, cai = (add_user(services, n) for n in ("ann", "ben", "cai"))
    tid = _made(client, ann)["id"]
    at = f"{API}/tournaments/{tid}"
    assert client.post(f"{at}/join", headers=ben).status_code == 200
    if who_ignores == "joiner":
        client.put(f"{API}/relations/ben", json={"kind": "ignore"}, headers=cai)
    else:
        client.put(f"{API}/relations/cai", json={"kind": "ignore"}, headers=ben)
    seen = client.get(at, headers=cai).json()
    assert not seen["can_join"] and seen["why_not"] == "this tournament is full"
    refused = client.post(f"{at}/join", headers=cai)
    assert refused.status_code == 409 and refused.json() == {
        "error": "this tournament is full",
        "code": "full",
    }
    assert client.get(at).json()["players"] == 1


def test_quotas(client: TestClient, services: Services, monkeypatch: pytest.MonkeyPatch) -> None:
    ann, ben = add_user(services, "ann"), add_user(services, "ben")
    for _ in range(create.MOST_OPEN_CREATED):
        _made(client, ann)
    refused = client.post(f"{API}/tournaments", json=CUP, headers=ann)
    assert refused.status_code == 429 and refused.json()["code"] == "too_many_tournaments"
    assert _count(services) == create.MOST_OPEN_CREATED
    monkeypatch.setattr("dicehall.server.domain.tournaments.entry.MOST_JOINED", 2)
    ids = [t["id"] for t in client.get(f"{API}/tournaments").json()["tournaments"]]
    for tid in ids[:2]:
        assert client.post(f"{API}/tournaments/{tid}/join", headers=ben).status_code == 200
    third = client.post(f"{API}/tournaments/{ids[2]}/join", headers=ben)
    assert third.status_code == 429 and third.json()["code"] == "too_many_tournaments"


def _finish_one_game(client: TestClient, player: Headers, other: Headers) -> None:
    # A game ``player`` finishes in their seat: the other player resigns.
    game = client.post(
        f"{API}/games", json={"game": "boatzee", "seats": ["me", "open"]}, headers=player
    ).json()
    joined = client.post(f"{API}/games/{game['id']}/join", json={}, headers=other).json()
    resigned = client.post(
        f"{API}/games/{game['id']}/resign",
        json={"expected_version": joined["version"]},
        headers=other,
    )
    assert resigned.json()["status"] == "finished", resigned.text


def test_the_timeout_ban_lasts_until_more_games_are_finished(
    client: TestClient, services: Services, time_machine: TimeMachineFixture
) -> None:
    # The site's clock runs, and the test moves it on past the bank (the ban counts games
    # finished after the timeout, so time must go on after it).
    time_machine.move_to(now(), tick=True)
    ann, ben, cai = (add_user(services, n) for n in ("ann", "ben", "cai"))
    tid = _made(client, ann, size=2, pace={"bank": 1})["id"]
    for user in (ann, ben):
        client.post(f"{API}/tournaments/{tid}/join", headers=user)
    job.run(services, now())
    game_id = client.get(f"{API}/tournaments/{tid}").json()["rounds"][0]["tables"][0]["game_id"]
    game = client.get(f"{API}/games/{game_id}").json()
    late = game["seats"][game["to_act"]]["user"]
    late_headers, other = (ann, ben) if late == "ann" else (ben, ann)
    time_machine.shift(1.05)  # the bank of a second runs out: the ban counts from now

    def swept() -> bool:
        # The bot driver's own sweeper may hold the game (skipped) a moment.
        with services.write_conn() as conn:
            ending.sweep(conn, services.pool, now())
        return bool(client.get(f"{API}/games/{game_id}").json()["status"] != "active")

    wait_until(swept, timeout=10, what="the sweep to end the game on time")
    done = client.get(f"{API}/tournaments/{tid}").json()
    assert {s["user_id"]: s["status"] for s in done["standings"]}[late] == "timed_out"
    job.run(services, now())
    assert client.get(f"{API}/tournaments/{tid}").json()["status"] == "finished"
    next_id = _made(client, cai)["id"]
    at = f"{API}/tournaments/{next_id}/join"
    for left in (2, 1):
        refused = client.post(at, headers=late_headers)
        assert refused.status_code == 403, refused.text
        assert refused.json()["code"] == "tournament_ban" and refused.json()["games_left"] == left
        assert (
            client.get(f"{API}/tournaments/{next_id}", headers=late_headers)
            .json()["why_not"]
            .startswith("you ran out of time")
        )
        _finish_one_game(client, late_headers, cai)
    assert client.post(at, headers=late_headers).status_code == 200
    assert client.post(at, headers=other).status_code == 200  # never timed out
