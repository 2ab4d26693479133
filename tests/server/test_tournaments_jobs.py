"""The tournaments job and the schedule: starting at a start time
or cancelling for too few players, a round's deadline (a shared place for games still
going, the timeout rule for a seat out of time), a knockout to its winner, a table whose
players came to ignore each other, two processes stepping the same tournament at once,
scheduled tournaments created once, and the marks and profile lists the pages read."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select, update

from dicehall import games
from dicehall.server.app import create_app
from dicehall.server.core.clock import now
from dicehall.server.core.config import Settings
from dicehall.server.domain.services import Services, build_services
from dicehall.server.domain.tournaments import job, schedule, views
from dicehall.server.domain.tournaments.rows import TABLES, TOURNAMENTS
from tests.live import add_user
from tests.server.conftest import Headers, jobless_services, site_settings

API = "/api/v1"


@pytest.fixture
def services(db_url: str) -> Iterator[Services]:
    """The site with its periodic jobs off (the tests run them)."""
    yield from jobless_services(db_url)


@pytest.fixture
def client(services: Services) -> Iterator[TestClient]:
    with TestClient(create_app(services=services)) as test_client:
        yield test_client


def _tournament(
    client: TestClient, users: dict[str, Headers], body: dict[str, Any], join: list[str]
) -> int:
    made = client.post(f"{API}/tournaments", json=body, headers=next(iter(users.values())))
    assert made.status_code == 201, made.text
    tid: int = made.json()["id"]
    for name in join:
        assert client.post(f"{API}/tournaments/{tid}/join", headers=users[name]).status_code == 200
    return tid


def _detail(client: TestClient, tid: int) -> dict[str, Any]:
    found: dict[str, Any] = client.get(f"{API}/tournaments/{tid}").json()
    return found


def _resign(client: TestClient, game_id: int, headers: Headers) -> None:
    game = client.get(f"{API}/games/{game_id}").json()
    answer = client.post(
        f"{API}/games/{game_id}/resign", json={"expected_version": game["version"]}, headers=headers
    )
    assert answer.status_code == 200, answer.text


def test_a_start_time_starts_or_cancels(client: TestClient, services: Services) -> None:
    users = {n: add_user(services, n) for n in ("ann", "ben", "cai")}
    soon = (now() + timedelta(minutes=5)).isoformat()
    body = {"game": "boatzee", "format": "swiss", "rounds": 2, "starts_at": soon, "pace": "live"}
    starts = _tournament(client, users, {**body, "name": "Starts"}, ["ann", "ben", "cai"])
    lonely = _tournament(client, users, {**body, "name": "Lonely"}, ["ann"])
    assert job.run(services, now()) == 0  # not yet
    assert job.run(services, now() + timedelta(minutes=6)) == 2
    running = _detail(client, starts)
    assert running["status"] == "running" and running["rounds_planned"] == 2
    tables = running["rounds"][0]["tables"]
    assert sorted(len(t["seats"]) for t in tables) == [1, 2]  # three players: one bye
    assert _detail(client, lonely)["status"] == "cancelled"
    told = client.get(f"{API}/notifications", headers=users["ann"]).json()
    texts = [n["text"] for n in told["notifications"]]
    assert any("Lonely was cancelled" in t for t in texts), texts
    assert any("Round 1 of Starts" in t for t in texts), texts


@pytest.mark.parametrize("overdue", [False, True])
def test_a_round_deadline_ends_the_games_still_going(
    overdue: bool, client: TestClient, services: Services
) -> None:
    users = {n: add_user(services, n) for n in ("ann", "ben")}
    body = {"name": "Short", "game": "boatzee", "format": "cup", "size": 2, "pace": {"bank": 60}}
    tid = _tournament(client, users, body, ["ann", "ben"])
    job.run(services, now())
    table = _detail(client, tid)["rounds"][0]["tables"][0]
    game = client.get(f"{API}/games/{table['game_id']}").json()
    late = game["seats"][game["to_act"]]["user"]
    if overdue:
        at = now() + timedelta(seconds=60 * 2 + 61)  # past the round's deadline and the bank
    else:
        at = now()  # the round's deadline moved before anyone's bank ran out
        with services.write_conn() as conn:
            conn.execute(
                update(TOURNAMENTS)
                .where(TOURNAMENTS.c.id == tid)
                .values(round_deadline=at - timedelta(seconds=1))
            )
    assert job.run(services, at) == 1
    done = _detail(client, tid)
    assert done["status"] == "finished"
    assert client.get(f"{API}/games/{table['game_id']}").json()["status"] == "aborted"
    points = dict(zip(table["seats"], done["rounds"][0]["tables"][0]["points"], strict=True))
    statuses = {s["user_id"]: s["status"] for s in done["standings"]}
    if overdue:  # the timeout rule first: the late seat scores last and is out
        assert points[late] == 0.0 and statuses[late] == "timed_out"
    else:
        assert points == {"ann": 1.0, "ben": 1.0} and set(statuses.values()) == {"active"}


def test_a_knockout_plays_down_to_one(client: TestClient, services: Services) -> None:
    names = ["ann", "ben", "cai", "dee", "eve"]
    users = {n: add_user(services, n) for n in names}
    body = {"name": "KO", "game": "boatzee", "format": "knockout", "size": 5, "table": 2}
    tid = _tournament(client, users, body, names)
    for _ in range(10):
        job.run(services, now())
        detail = _detail(client, tid)
        if detail["status"] == "finished":
            break
        for table in detail["rounds"][-1]["tables"]:
            if table["game_id"] is not None and not table["done"]:
                # The later name resigns: the earlier one goes on.
                _resign(client, table["game_id"], users[max(table["seats"])])
    assert detail["status"] == "finished", detail
    places = {s["user_id"]: (s["place"], s["status"]) for s in detail["standings"]}
    assert places["ann"] == (1, "active")
    assert all(status == "out" for name, (_, status) in places.items() if name != "ann")
    assert len(detail["rounds"]) == detail["rounds_planned"] == 3
    still_in = set(names)
    for played in detail["rounds"]:
        seated = [u for t in played["tables"] for u in t["seats"]]
        assert sorted(seated) == sorted(still_in), (played, still_in)
        still_in = {
            seat
            for t in played["tables"]
            for seat, points in zip(t["seats"], t["points"], strict=True)
            if points == 2.0
        }
    assert still_in == {"ann"}
    with services.read_conn() as conn:
        mine = views.of_user(conn, 1)
        game_ids = [t["game_id"] for r in detail["rounds"] for t in r["tables"] if t["game_id"]]
        marks = views.game_markers(conn, [*game_ids, 999])
    assert mine[0]["id"] == tid and mine[0]["place"] == 1 and mine[0]["players"] == 5
    assert set(marks) == set(game_ids)
    assert all(m["tournament_id"] == tid and m["deadline"] is None for m in marks.values())


def test_a_table_whose_players_came_to_ignore_each_other_plays_no_game(
    client: TestClient, services: Services
) -> None:
    users = {n: add_user(services, n) for n in ("ann", "ben")}
    body = {"name": "Cup", "game": "boatzee", "format": "cup", "size": 2}
    tid = _tournament(client, users, body, ["ann", "ben"])
    client.put(f"{API}/relations/ben", json={"kind": "ignore"}, headers=users["ann"])
    job.run(services, now())
    done = _detail(client, tid)
    table = done["rounds"][0]["tables"][0]
    assert table["game_id"] is None and table["points"] == [1.0, 1.0]
    assert done["status"] == "finished"


def _step_into(site: Services, moment: datetime, done: list[int]) -> None:
    done.append(job.run(site, moment))


@pytest.mark.both_databases
def test_two_processes_stepping_at_once_start_a_tournament_once(
    client: TestClient, services: Services
) -> None:
    names = ["ann", "ben", "cai", "dee"]
    users = {n: add_user(services, n) for n in names}
    body = {"name": "Race", "game": "boatzee", "format": "cup", "size": 4}
    tid = _tournament(client, users, body, names)
    other = build_services(services.settings)  # a second process's own engine and pool
    try:
        moment = now()
        done: list[int] = []
        threads = [
            threading.Thread(target=_step_into, args=(site, moment, done))
            for site in (services, other)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
    finally:
        other.engine.dispose()
    assert sorted(done) == [0, 1]
    with services.read_conn() as conn:
        tables = conn.execute(
            select(func.count()).where(TABLES.c.tournament_id == tid)
        ).scalar_one()
    assert tables == 2 and _detail(client, tid)["round"] == 1


SCHEDULE = Settings.model_fields["tournament_schedule"].default


@pytest.mark.both_databases
def test_the_schedule_creates_each_tournament_once(client: TestClient, services: Services) -> None:
    at = datetime(2026, 3, 4, 10, 0, tzinfo=UTC)  # a Wednesday
    expected = 2 * len(games.available())
    # The tests' sites run no schedule (site_settings); this one runs the site's default.
    on = build_services(site_settings(services.settings.db_url, tournament_schedule=SCHEDULE))
    try:
        _the_schedule_runs(client, on, at, expected)
    finally:
        on.engine.dispose()


def _the_schedule_runs(client: TestClient, services: Services, at: datetime, expected: int) -> None:
    assert schedule.run(services, at) == expected
    assert schedule.run(services, at + timedelta(hours=1)) == 0
    key, spec = schedule.slot("daily-cup", "boatzee", at)
    with services.write_conn() as conn:
        assert not schedule.ensure(conn, key, spec, at)  # a second process: nothing
    listed = client.get(f"{API}/tournaments", params={"limit": 100}).json()["tournaments"]
    assert len(listed) == expected and all(t["scheduled"] for t in listed)
    weekly = [t for t in listed if t["format"] == "swiss"]
    assert {t["starts_at"] for t in weekly} == {"2026-03-09T18:00:00+00:00"}
    assert all(t["rounds_planned"] == 5 and t["pace"] == "brisk" for t in weekly)
    cups = {t["game"]: t for t in listed if t["format"] == "cup"}
    assert cups["boatzee"]["table_seats"] == 2 and cups["boatzee"]["size"] == 4
    assert cups["bullseye"]["table_seats"] == 3 and cups["bullseye"]["pace"] == "live"
    # The next day the cups nobody filled are cancelled, and new ones are made.
    assert job.run(services, at + timedelta(days=1)) == len(cups)
    statuses = {
        t["status"]
        for t in client.get(f"{API}/tournaments").json()["tournaments"]
        if t["format"] == "cup"
    }
    assert statuses == {"cancelled"}
    assert schedule.run(services, at + timedelta(days=1)) == len(cups)
    off = build_services(site_settings(services.settings.db_url, tournament_schedule=""))
    try:
        assert schedule.run(off, at + timedelta(days=3)) == 0
    finally:
        off.engine.dispose()
