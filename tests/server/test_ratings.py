"""Ratings: a rated game changes both players' ratings once, in the
transaction that finishes it; unrated and aborted games change nothing; places come from the
result (ties share a place, leavers below every finisher, the earlier leaver lower); and a
rating is changed exactly once however game ends race each other (the same game finished
twice at once; two games of one player, new or not, finishing at once)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Connection, select, text, update

from dicehall.server.core.clock import aware, now
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.games import ending
from dicehall.server.domain.games.records import (
    GAMES,
    SEATS,
    USERS,
    GameRecord,
    SeatInfo,
    fetch_game,
)
from dicehall.server.domain.ratings import model, store
from dicehall.server.domain.ratings.model import Skill
from dicehall.server.domain.services import Services
from tests.server.conftest import Headers, MakeUser
from tests.waiting import wait_until

API = "/api/v1"
#: The quickest game to play to its end: Ten Thousand to 1,000 with no entry threshold.
QUICK = {"game": "tenthousand", "options": {"target": 1000, "entry_threshold": 0}}


# -- helpers ------------------------------------------------------------------------------------


def person_game(
    client: TestClient, host: Headers, guest: Headers, guest_id: str, **extra: Any
) -> dict[str, Any]:
    """A quick 2-seat game between two people, accepted and started."""
    made = client.post(
        f"{API}/games", json={**QUICK, "seats": ["me", f"user:{guest_id}"], **extra}, headers=host
    )
    assert made.status_code == 201, made.text
    accepted = client.post(f"{API}/games/{made.json()['id']}/accept", headers=guest)
    assert accepted.status_code == 200, accepted.text
    game: dict[str, Any] = accepted.json()
    assert game["status"] == "active"
    return game


def play_to_end(client: TestClient, game_id: int, players: list[Headers]) -> dict[str, Any]:
    """Each player takes their first legal action in turn until the game is over."""
    for _ in range(500):
        for headers in players:
            game = client.get(f"{API}/games/{game_id}", headers=headers).json()
            if game["status"] != "active":
                return dict(game)
            if game["your_turn"]:
                moved = client.post(
                    f"{API}/games/{game_id}/actions",
                    json={"action": game["legal"][0], "expected_version": game["version"]},
                    headers=headers,
                )
                assert moved.status_code == 200, moved.text
    raise AssertionError("the game did not end")


def user_pk(services: Services, user_id: str) -> int:
    with services.read_conn() as conn:
        return int(conn.execute(select(USERS.c.id).where(USERS.c.user_id == user_id)).scalar_one())


def ratings_of(services: Services) -> dict[tuple[str, str], Any]:
    """Every stored rating, by (user id, kind)."""
    with services.read_conn() as conn:
        rows = conn.execute(
            select(store.RATINGS, USERS.c.user_id).join(
                USERS, USERS.c.id == store.RATINGS.c.user_pk
            )
        ).all()
    return {(r.user_id, r.kind): r for r in rows}


def changes_of(services: Services, game_id: int | None = None) -> list[Any]:
    """Stored rating changes (of one game) with each player's seat, in the order they were
    made."""
    query = (
        select(store.CHANGES, USERS.c.user_id, SEATS.c.seat)
        .join(USERS, USERS.c.id == store.CHANGES.c.user_pk)
        .join(
            SEATS,
            (SEATS.c.game_id == store.CHANGES.c.game_id)
            & (SEATS.c.user_pk == store.CHANGES.c.user_pk),
        )
    )
    if game_id is not None:
        query = query.where(store.CHANGES.c.game_id == game_id)
    with services.read_conn() as conn:
        return list(conn.execute(query.order_by(store.CHANGES.c.id)).all())


@pytest.fixture
def people(make_user: MakeUser) -> dict[str, Headers]:
    return {name: make_user(name) for name in ("ann", "bob", "cat")}


# -- what a rated game does -----------------------------------------------------------------------


def test_a_rated_game_played_to_the_end_changes_both_ratings_once(
    client: TestClient, services: Services, people: dict[str, Headers]
) -> None:
    ann, bob = people["ann"], people["bob"]
    game = person_game(client, ann, bob, "bob")
    assert game["rating_kind"] == "tenthousand"
    assert ratings_of(services) == {} and changes_of(services) == []
    over = play_to_end(client, game["id"], [ann, bob])
    assert over["status"] == "finished"
    winner = over["seats"][over["result"]["winners"][0]]["user"]
    loser = "bob" if winner == "ann" else "ann"
    # First-legal-action play ties about one game in forty: then both share first place.
    places = [1, 1] if len(over["result"]["winners"]) == 2 else [1, 2]
    changes = {c.user_id: c for c in changes_of(services, game["id"])}
    assert set(changes) == {"ann", "bob"}
    assert [changes[winner].place, changes[loser].place] == places
    expected = model.rate("tenthousand", [Skill(), Skill()], places)
    stored = ratings_of(services)
    assert set(stored) == {("ann", "tenthousand"), ("bob", "tenthousand")}
    for name, after in ((winner, expected[0]), (loser, expected[1])):
        row = stored[(name, "tenthousand")]
        assert (row.mu, row.sigma, row.games) == (after.mu, after.sigma, 1)
        assert (changes[name].mu_before, changes[name].sigma_before) == (model.MU, model.SIGMA)
        assert (changes[name].mu_after, changes[name].sigma_after) == (after.mu, after.sigma)
        assert aware(row.last_game_at) == aware(changes[name].at)
    if places == [1, 1]:  # a tie: a draw between equal ratings moves neither mu
        assert stored[(winner, "tenthousand")].mu == model.MU == stored[(loser, "tenthousand")].mu
    else:
        assert stored[(winner, "tenthousand")].mu > model.MU > stored[(loser, "tenthousand")].mu
    # Rating the finished game again does nothing.
    with services.write_conn() as conn:
        assert store.rate_game(conn, fetch_game(conn, game["id"], lock=True)) is False
    assert len(changes_of(services)) == 2
    assert {k: (r.mu, r.games) for k, r in ratings_of(services).items()} == {
        k: (r.mu, r.games) for k, r in stored.items()
    }


def test_a_resigned_seat_places_below_the_winner(
    client: TestClient, services: Services, people: dict[str, Headers]
) -> None:
    game = person_game(client, people["ann"], people["bob"], "bob")
    resigned = client.post(
        f"{API}/games/{game['id']}/resign",
        json={"expected_version": game["version"]},
        headers=people["ann"],
    )
    assert resigned.status_code == 200, resigned.text
    places = {c.user_id: c.place for c in changes_of(services, game["id"])}
    assert places == {"bob": 1, "ann": 2}
    stored = ratings_of(services)
    assert stored[("bob", "tenthousand")].mu > stored[("ann", "tenthousand")].mu


def test_unrated_games_change_nothing(
    client: TestClient, services: Services, people: dict[str, Headers]
) -> None:
    ann, bob = people["ann"], people["bob"]
    unrated = person_game(client, ann, bob, "bob", rated=False)
    assert unrated["rating_kind"] is None
    assert play_to_end(client, unrated["id"], [ann, bob])["status"] == "finished"
    vs_bot = client.post(
        f"{API}/games", json={**QUICK, "seats": ["me", "bot:random"]}, headers=ann
    ).json()
    assert vs_bot["rating_kind"] is None
    assert play_to_end(client, vs_bot["id"], [ann])["status"] == "finished"
    assert ratings_of(services) == {} and changes_of(services) == []


def test_rated_with_a_bot_seat_is_refused(client: TestClient, people: dict[str, Headers]) -> None:
    answer = client.post(
        f"{API}/games",
        json={**QUICK, "seats": ["me", "bot:random"], "rated": True},
        headers=people["ann"],
    )
    assert answer.status_code == 422, answer.text
    assert answer.json()["code"] == "not_rateable"
    asked = client.post(
        f"{API}/games",
        json={**QUICK, "seats": ["me", "user:bob"], "rated": True},
        headers=people["ann"],
    )
    assert asked.status_code == 201 and asked.json()["rating_kind"] == "tenthousand"


def test_aborted_games_are_not_rated(
    client: TestClient, services: Services, people: dict[str, Headers]
) -> None:
    game = person_game(client, people["ann"], people["bob"], "bob")
    aborted = client.post(
        f"{API}/games/{game['id']}/abort",
        json={"expected_version": game["version"]},
        headers=people["bob"],
    )
    assert aborted.status_code == 200, aborted.text
    assert aborted.json()["status"] == "aborted"
    with services.write_conn() as conn:
        assert store.rate_game(conn, fetch_game(conn, game["id"])) is False
    assert ratings_of(services) == {} and changes_of(services) == []


# -- places ---------------------------------------------------------------------------------------


def record_of(kind: str, result: dict[str, Any], seats: int) -> GameRecord:
    return GameRecord(
        id=1, kind=kind, options="{}", seats=seats, status="finished", version=30,
        snapshot=None, to_act=None, result=json.dumps(result), event_count=0,
        updated_at=now(), rating_kind=kind,
    )  # fmt: skip


def seat(n: int, status: str = "playing", left: int | None = None) -> SeatInfo:
    return SeatInfo(n, 100 + n, f"p{n}", None, status=status, left_version=left)


def places(kind: str, result: dict[str, Any], seats: list[SeatInfo]) -> list[int]:
    groups = store.place_groups(record_of(kind, result, len(seats)), seats)
    return model.places_of(groups, len(seats))


def test_ties_share_a_place() -> None:
    # Bull's Eye, three seats: two share the win; then equal scores below the winner.
    assert places(
        "bullseye", {"winners": [0, 2], "scores": [9, 4, 9]}, [seat(0), seat(1), seat(2)]
    ) == [1, 3, 1]
    assert places(
        "tenthousand",
        {"winners": [1], "scores": [6000, 10400, 6000, 250]},
        [seat(0), seat(1), seat(2), seat(3)],
    ) == [2, 1, 2, 4]
    # A shared place is a draw between those who share it: equal skills stay equal.
    after = model.rate("bullseye", [Skill(), Skill(), Skill()], [1, 3, 1])
    assert after[0] == after[2] and after[0].mu > model.MU > after[1].mu


def test_leavers_place_below_every_finisher_the_earlier_lower() -> None:
    seats = [seat(0), seat(1, "resigned", 12), seat(2, "autopilot", 5), seat(3), seat(4)]
    # The autopilot won for the seat that timed out: it still places below every finisher.
    result = {"winners": [2], "scores": [300, 800, 900, 100, 300]}
    assert places("tenthousand", result, seats) == [1, 4, 5, 3, 1]
    # Two players left: the one who left at version 5 is lower than the one who left at 12.
    two = [seat(0), seat(1, "timed_out", 7)]
    assert places("boss", {"winners": [0], "scores": [0, 1]}, two) == [1, 2]


# -- exactly once, however game ends race ---------------------------------------------------------


@pytest.mark.both_databases
def test_one_game_finished_twice_at_once_is_rated_once(
    client: TestClient, services: Services, people: dict[str, Headers]
) -> None:
    game = person_game(client, people["ann"], people["bob"], "bob")
    results: list[str] = []
    start = threading.Barrier(2)

    def resign(user_id: str) -> None:
        start.wait(10)
        try:
            with services.write_conn() as conn:
                user = conn.execute(select(USERS).where(USERS.c.user_id == user_id)).one()
                record = fetch_game(conn, game["id"], lock=True)
                ending.resign(conn, services.pool, user, record, game["version"])  # type: ignore[arg-type]
            results.append("resigned")
        except Refused as exc:
            results.append(exc.code)

    threads = [threading.Thread(target=resign, args=(name,)) for name in ("ann", "bob")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert sorted(results) in (["finished", "resigned"], ["resigned", "stale"]), results
    assert len(changes_of(services, game["id"])) == 2
    assert {r.games for r in ratings_of(services).values()} == {1}

    # rate_game called by two transactions at once for a game finished but not rated yet.
    again = person_game(client, people["ann"], people["bob"], "bob")["id"]
    finish_quietly(services, again, 1, now())
    rated: list[bool] = []

    def rate_at_once() -> None:
        start.wait(10)
        with services.write_conn() as conn:
            rated.append(store.rate_game(conn, fetch_game(conn, again, lock=True)))

    threads = [threading.Thread(target=rate_at_once) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert sorted(rated) == [False, True]
    assert len(changes_of(services, again)) == 2
    assert {r.games for r in ratings_of(services).values()} == {2}


def finish_quietly(services: Services, game_id: int, winner: int, at: datetime) -> None:
    """Mark a started game finished straight in the table, leaving its rating to the test."""
    result = {"winners": [winner], "scores": [1 - winner, winner], "turns": 1}
    with services.write_conn() as conn:
        conn.execute(
            update(GAMES)
            .where(GAMES.c.id == game_id)
            .values(status="finished", result=json.dumps(result), to_act=None, ended_at=at)
        )


def wait_until_blocked(services: Services, started: threading.Event) -> None:
    """Until the second transaction waits on a lock the first holds (PostgreSQL shows it in
    pg_stat_activity; a SQLite writer waits on the file until the first commits)."""
    assert started.wait(10)
    if services.engine.dialect.name != "postgresql":
        return
    with services.engine.connect() as conn:

        def waiting() -> bool:
            count = conn.execute(
                text(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                    " AND wait_event_type = 'Lock' AND query ILIKE '%ratings%'"
                )
            ).scalar_one()
            conn.rollback()
            return bool(count)

        wait_until(waiting, timeout=10, what="the second transaction to wait for the first")


def race(services: Services, first: int, second: int) -> list[bool]:
    """Rate game ``first`` and hold its transaction open until rating ``second`` (in another
    transaction) waits for it; then commit both. What each rate_game answered."""
    rated: list[bool] = []
    errors: list[BaseException] = []
    first_done, second_started, commit_first = (threading.Event() for _ in range(3))

    def rate(game_id: int, before: Callable[[], None], after: Callable[[], None]) -> None:
        try:
            before()
            with services.write_engine.connect() as conn, conn.begin():
                rated.append(store.rate_game(conn, fetch_game(conn, game_id, lock=True)))
                after()
        except BaseException as exc:  # handed to the test's thread
            errors.append(exc)
            first_done.set()

    def hold() -> None:
        first_done.set()
        assert commit_first.wait(10)

    one = threading.Thread(target=rate, args=(first, lambda: None, hold))

    def after_the_first() -> None:
        first_done.wait(10)
        second_started.set()

    two = threading.Thread(target=rate, args=(second, after_the_first, lambda: None))
    one.start()
    two.start()
    wait_until_blocked(services, second_started)
    commit_first.set()
    one.join(30)
    two.join(30)
    if errors:
        raise errors[0]
    return rated


def chained(services: Services, user_id: str, kind: str) -> tuple[Skill, int]:
    """The user's rating recomputed from the stored places, game after game in the order
    they were rated: what the rating must be if no update was lost."""
    skill, games, last = Skill(), 0, None
    by_game: dict[int, list[Any]] = {}
    for change in changes_of(services):
        by_game.setdefault(change.game_id, []).append(change)
    for rows in by_game.values():
        rows.sort(key=lambda r: r.seat)
        mine = next((i for i, r in enumerate(rows) if r.user_id == user_id), None)
        if mine is None:
            continue
        at = aware(rows[mine].at)
        idle = 0.0 if last is None else (at - last).total_seconds() / store.DAY
        before = model.widened(skill, idle)
        assert (rows[mine].mu_before, rows[mine].sigma_before) == (before.mu, before.sigma)
        skills = [Skill(r.mu_before, r.sigma_before) for r in rows]
        skill = model.rate(kind, skills, [r.place for r in rows])[mine]
        games, last = games + 1, at
    return skill, games


@pytest.mark.both_databases
def test_two_games_of_one_player_ending_at_once_both_count(
    client: TestClient, services: Services, people: dict[str, Headers]
) -> None:
    ann, bob, cat = people["ann"], people["bob"], people["cat"]
    moment = now()
    for round_ in range(2):
        # The first round: nobody has a rating yet, so both games insert ann's row at once.
        with_bob = person_game(client, ann, bob, "bob")["id"]
        with_cat = person_game(client, ann, cat, "cat")["id"]
        finish_quietly(services, with_bob, 0, moment + timedelta(minutes=2 * round_))
        finish_quietly(services, with_cat, 1, moment + timedelta(minutes=2 * round_ + 1))
        # The later game is rated first: ann's chain must still hold both.
        assert race(services, with_cat, with_bob) == [True, True]
        stored = ratings_of(services)
        assert stored[("ann", "tenthousand")].games == 2 * (round_ + 1)
        for name in ("ann", "bob", "cat"):
            skill, games = chained(services, name, "tenthousand")
            row = stored[(name, "tenthousand")]
            assert (row.mu, row.sigma, row.games) == (skill.mu, skill.sigma, games)
    assert len(changes_of(services)) == 8


@pytest.mark.both_databases
def test_rows_exist_before_they_are_locked(services: Services, make_user: MakeUser) -> None:
    # The default rows a first game needs are made without a conflict when they exist.
    make_user("dan")
    dan = user_pk(services, "dan")
    with services.write_conn() as conn:
        for _ in range(2):
            store.ensure_rows(conn, "boss", [dan], now())
        rows = _rows(conn, dan)
    assert [(r.kind, r.games, r.mu, r.sigma) for r in rows] == [("boss", 0, model.MU, model.SIGMA)]


def _rows(conn: Connection, pk: int) -> list[Any]:
    return list(conn.execute(select(store.RATINGS).where(store.RATINGS.c.user_pk == pk)).all())
