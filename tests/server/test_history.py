"""A player's history on SQLite and PostgreSQL: keyset pages that return every finished game
exactly once, newest first, even while other games finish between and during the pages;
filters by game, result and opponent; the record per game; private games hidden from
others; and a clear 422 for each bad parameter."""

from __future__ import annotations

import itertools
import json
import threading
from datetime import datetime
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, update

from dicehall.server.core.models import GameRow, SeatResult
from dicehall.server.domain import history
from dicehall.server.domain.games import quotas
from dicehall.server.domain.games.seat_results import recount
from dicehall.server.domain.services import Services
from tests.server.conftest import Headers, MakeUser
from tests.server.resigning import resign

API = "/api/v1"


@pytest.fixture(autouse=True)
def _many_creates(monkeypatch: pytest.MonkeyPatch) -> None:
    # These tests create dozens of games in a few seconds: lift the per-minute quota.
    monkeypatch.setattr(quotas, "CREATES_PER_MINUTE", 10_000)


def start_vs_bot(client: TestClient, headers: Headers, game: str = "boss") -> Any:
    """A game of ``game`` against a bot, started (no clock)."""
    answer = client.post(
        f"{API}/games", json={"game": game, "seats": ["me", "bot:random"]}, headers=headers
    )
    assert answer.status_code == 201, answer.text
    return answer.json()


def lost_game(client: TestClient, headers: Headers, game: str = "boss") -> int:
    """A finished game the player lost (resigned against a bot); its id."""
    game_id: int = resign(client, headers, start_vs_bot(client, headers, game)["id"])["id"]
    return game_id


def won_game(client: TestClient, me: Headers, rival: Headers, rival_id: str) -> int:
    """A finished 2-person game the rival resigned: I won."""
    made = client.post(
        f"{API}/games",
        json={"game": "tenthousand", "seats": ["me", rival_id], "pace": "none"},
        headers=me,
    )
    assert made.status_code == 201, made.text
    accepted = client.post(f"{API}/games/{made.json()['id']}/accept", headers=rival)
    assert accepted.status_code == 200, accepted.text
    game_id: int = resign(client, rival, accepted.json()["id"])["id"]
    return game_id


def page_of(client: TestClient, user: str, headers: Headers | None = None, **params: Any) -> Any:
    answer = client.get(f"{API}/users/{user}/games", params=params, headers=headers or {})
    assert answer.status_code == 200, answer.text
    return answer.json()


def every_page(
    client: TestClient, user: str, headers: Headers | None = None, **params: Any
) -> list[Any]:
    """Every game of every page, following ``next``."""
    games: list[Any] = []
    cursor = None
    for _ in range(100):
        found = page_of(client, user, headers, **params, **({"cursor": cursor} if cursor else {}))
        games += found["games"]
        cursor = found["next"]
        if cursor is None:
            return games
    raise AssertionError("the pages never ended")


def order_key(game: Any) -> tuple[datetime, int]:
    return datetime.fromisoformat(game["ended_at"]), game["id"]


def assert_newest_first(games: list[Any]) -> None:
    keys = [order_key(g) for g in games]
    assert all(a > b for a, b in itertools.pairwise(keys)), keys


def error(answer: Any, status: int, code: str) -> str:
    assert answer.status_code == status, answer.text
    body = answer.json()
    assert body["code"] == code, body
    return str(body["error"])


# -- the acceptance test -------------------------------------------------------------------------


@pytest.mark.both_databases
def test_pages_return_every_finished_game_once_while_others_finish(
    client: TestClient, make_user: MakeUser
) -> None:
    """History pagination returns every finished game exactly once across pages, under
    concurrent finishing."""
    alice = make_user("alice")
    finished_before = {lost_game(client, alice) for _ in range(25)}
    in_play = [start_vs_bot(client, alice) for _ in range(16)]
    by_thread, by_pages = in_play[:8], in_play[8:]
    problems: list[BaseException] = []

    def finish_concurrently() -> None:
        try:
            for game in by_thread:
                resign(client, alice, game["id"])
        except BaseException as exc:  # reported by the main thread
            problems.append(exc)

    finisher = threading.Thread(target=finish_concurrently)
    seen: list[Any] = []
    cursor: str | None = None
    pages = 0
    finisher.start()
    try:
        while True:
            params: dict[str, Any] = {"limit": 7} | ({"cursor": cursor} if cursor else {})
            found = page_of(client, "alice", **params)
            pages += 1
            assert len(found["games"]) <= 7
            seen += found["games"]
            cursor = found["next"]
            if by_pages:  # another game ends between this page and the next
                resign(client, alice, by_pages.pop()["id"])
            if cursor is None:
                break
            assert pages < 20, "the pages never ended"
    finally:
        finisher.join(timeout=60)
    assert not problems, problems
    assert pages >= 4 and len(by_pages) < 8  # games did end between pages
    for game in by_pages:
        resign(client, alice, game["id"])
    ids = [g["id"] for g in seen]
    assert len(ids) == len(set(ids)), "a game was listed twice"
    assert finished_before <= set(ids), finished_before - set(ids)
    assert_newest_first(seen)
    assert all(g["status"] == "finished" and g["result"] == "loss" for g in seen)
    # Once the finishing is over, the pages hold every game exactly once.
    everything = every_page(client, "alice", limit=7)
    assert sorted(g["id"] for g in everything) == sorted(
        finished_before | {g["id"] for g in in_play}
    )
    assert_newest_first(everything)


@pytest.mark.both_databases
def test_games_that_end_in_the_same_instant_are_ordered_by_id(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    alice = make_user("alice")
    ids = [lost_game(client, alice) for _ in range(9)]
    with services.write() as db:
        # Games 2 to 7 all end when game 2 did: between games 1 and 8.
        instant = db.get(GameRow, ids[2]).ended_at  # type: ignore[union-attr]
        db.execute(update(GameRow).where(GameRow.id.in_(ids[2:8])).values(ended_at=instant))
        db.execute(
            update(SeatResult).where(SeatResult.game_id.in_(ids[2:8])).values(ended_at=instant)
        )
    for limit in (1, 2, 4):
        games = every_page(client, "alice", limit=limit)
        assert [g["id"] for g in games] == [ids[8], *reversed(ids[2:8]), ids[1], ids[0]]
        assert_newest_first(games)


# -- what each game says, filters, the record ----------------------------------------------------


@pytest.mark.both_databases
def test_results_filters_and_the_record(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    make_user("carol")
    lost_boss = [lost_game(client, alice, "boss") for _ in range(2)]
    lost_ten = lost_game(client, alice, "tenthousand")
    won = [won_game(client, alice, bob, "bob") for _ in range(3)]
    # A shared win: the rules' result names both seats.
    shared = won.pop()
    with services.write() as db:
        row = db.get(GameRow, shared)
        assert row is not None and row.result is not None
        result = json.loads(row.result)
        db.execute(
            update(GameRow)
            .where(GameRow.id == shared)
            .values(result=json.dumps({**result, "winners": [0, 1]}))
        )
        db.execute(update(SeatResult).where(SeatResult.game_id == shared).values(outcome="draw"))
        seated = db.scalars(select(SeatResult.user_pk).where(SeatResult.game_id == shared))
        recount(db.connection(), list(seated))
    playing = start_vs_bot(client, alice, "boatzee")

    games = every_page(client, "alice")
    assert {g["id"]: g["result"] for g in games} == {
        **dict.fromkeys(lost_boss, "loss"),
        lost_ten: "loss",
        **dict.fromkeys(won, "win"),
        shared: "draw",
    }
    assert all(g["ended_at"] is not None for g in games)
    first = next(g for g in games if g["id"] == won[0])
    assert first["winners"] == [0] and [s["user"] for s in first["seats"]] == ["alice", "bob"]
    # Bob's side of the same games.
    assert {g["id"]: g["result"] for g in every_page(client, "bob")} == {
        **dict.fromkeys(won, "loss"),
        shared: "draw",
    }

    assert {g["id"] for g in every_page(client, "alice", result="win")} == set(won)
    assert {g["id"] for g in every_page(client, "alice", result="draw")} == {shared}
    assert {g["id"] for g in every_page(client, "alice", result="loss", limit=1)} == {
        *lost_boss,
        lost_ten,
    }
    assert {g["id"] for g in every_page(client, "alice", game="boss")} == set(lost_boss)
    assert {g["id"] for g in every_page(client, "ALICE", vs="Bob")} == {*won, shared}
    assert every_page(client, "alice", vs="carol") == []
    assert {g["id"] for g in every_page(client, "alice", game="tenthousand", result="loss")} == {
        lost_ten
    }

    active = page_of(client, "alice", state="active")
    assert [g["id"] for g in active["games"]] == [playing["id"]] and active["next"] is None
    assert active["games"][0]["result"] is None and active["games"][0]["ended_at"] is None
    assert active["games"][0]["your_turn"] is False  # a visitor's view
    assert page_of(client, "alice", alice, state="active")["games"][0]["your_turn"] is True

    record = client.get(f"{API}/users/alice/record")
    assert record.status_code == 200, record.text
    assert record.json() == {
        "games": {
            "boss": {"win": 0, "loss": 2, "draw": 0},
            "tenthousand": {"win": 2, "loss": 1, "draw": 1},
        }
    }
    against = client.get(f"{API}/users/alice/record", params={"vs": "bob"}).json()
    assert against == {"games": {"tenthousand": {"win": 2, "loss": 0, "draw": 1}}}
    assert client.get(f"{API}/users/carol/record").json() == {"games": {}}


@pytest.mark.both_databases
def test_a_rare_result_is_found_on_the_first_page(client: TestClient, make_user: MakeUser) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    won = won_game(client, alice, bob, "bob")
    lost = [lost_game(client, alice) for _ in range(5)]
    # The one win is older than five losses: the database filters by outcome, so the
    # first page holds it and says there is nothing after it.
    found = page_of(client, "alice", result="win", limit=1)
    assert [g["id"] for g in found["games"]] == [won] and found["next"] is None
    losses = every_page(client, "alice", result="loss", limit=2)
    assert [g["id"] for g in losses] == list(reversed(lost))


def test_history_pages_and_the_record_never_sort_a_whole_history(
    services: Services, make_user: MakeUser
) -> None:
    # SQLite's plan for each page walks an index of seat_results in the order shown: no
    # temporary B-tree over the player's games, whatever the filters.
    make_user("alice")
    with services.read_conn() as conn:
        alice = history.find_player(conn, "alice")
        filters: list[dict[str, Any]] = [
            {},
            {"result": "loss"},
            {"game": "boss"},
            {"kind": "ladder"},
        ]
        for params in filters:
            query = history.history_query(conn, **params)
            for viewer in (alice.pk, None):
                statement = history.page_statement(alice, viewer, query)
                plan = explain(conn, statement)
                assert "TEMP B-TREE" not in plan and "seat_results" in plan, (params, plan)
        # The record: the player's counts by their key, and a signed-in stranger's shared
        # private games through the player's private games alone.
        for viewer in (alice.pk, None, alice.pk + 1):
            for statement in history.record_statements(alice, viewer, None):
                record = explain(conn, statement)
                assert "USING" in record and "SCAN" not in record, record
                assert "seat_records" in record or "ix_seat_results_private" in record, record


def explain(conn: Any, statement: Any) -> str:
    """SQLite's query plan for ``statement``, one line per step."""
    compiled = statement.compile(conn, compile_kwargs={"literal_binds": True})
    rows = conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {compiled}").all()
    return "\n".join(str(row[-1]) for row in rows)


@pytest.mark.both_databases
def test_private_games_are_listed_to_their_players_only(
    client: TestClient, make_user: MakeUser
) -> None:
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    public = lost_game(client, alice)
    made = client.post(
        f"{API}/games",
        json={"game": "boss", "seats": ["me", "bob"], "pace": "none", "private": True},
        headers=alice,
    )
    assert made.status_code == 201, made.text
    accepted = client.post(f"{API}/games/{made.json()['id']}/accept", headers=bob)
    private = resign(client, alice, accepted.json()["id"])["id"]

    def listed(viewer: Headers | None) -> set[int]:
        return {g["id"] for g in every_page(client, "alice", viewer)}

    assert listed(None) == {public}
    assert listed(carol) == {public}
    assert listed(alice) == {public, private}
    assert listed(bob) == {public, private}
    assert {g["id"] for g in every_page(client, "bob", carol)} == set()
    assert client.get(f"{API}/users/alice/record").json() == {
        "games": {"boss": {"win": 0, "loss": 1, "draw": 0}}
    }
    mine = client.get(f"{API}/users/alice/record", headers=alice).json()
    assert mine == {"games": {"boss": {"win": 0, "loss": 2, "draw": 0}}}
    # Bob sat in the private game, so he counts it; Carol did not.
    shared = client.get(f"{API}/users/alice/record", headers=bob).json()
    assert shared == {"games": {"boss": {"win": 0, "loss": 2, "draw": 0}}}
    stranger = client.get(f"{API}/users/alice/record", headers=carol).json()
    assert stranger == {"games": {"boss": {"win": 0, "loss": 1, "draw": 0}}}


@pytest.mark.both_databases
def test_bad_parameters_get_a_clear_code(client: TestClient, make_user: MakeUser) -> None:
    alice = make_user("alice")
    lost_game(client, alice)
    lost_game(client, alice)
    games = f"{API}/users/alice/games"
    assert "no user" in error(client.get(f"{API}/users/nobody/games"), 404, "no_such_user")
    error(client.get(f"{API}/users/nobody/record"), 404, "no_such_user")
    error(client.get(f"{API}/users/bad%00id/games"), 404, "no_such_user")
    error(client.get(games, params={"state": "waiting"}), 422, "invalid_state")
    error(client.get(games, params={"result": "won"}), 422, "invalid_result")
    error(client.get(games, params={"state": "active", "result": "win"}), 422, "invalid_result")
    error(client.get(games, params={"game": "chess"}), 422, "unknown_game")
    error(client.get(games, params={"vs": "nobody"}), 422, "unknown_user")
    error(client.get(games, params={"vs": "x\x00y"}), 422, "unknown_user")
    error(client.get(f"{API}/users/alice/record", params={"vs": "nobody"}), 422, "unknown_user")
    for limit in (0, 101, -3):
        error(client.get(games, params={"limit": limit}), 422, "invalid_limit")
    error(client.get(games, params={"limit": "many"}), 422, "invalid_request")
    for cursor in ("junk", "e30", "eyJzIjoiZmluaXNoZWQiLCJpIjoxfQ", "%%%", "x" * 201):
        answer = client.get(games, params={"cursor": cursor})
        assert answer.status_code == 422, (cursor, answer.text)
    # A cursor of the finished list does not page the active one.
    cursor = page_of(client, "alice", limit=1)["next"]
    assert cursor is not None
    error(client.get(games, params={"state": "active", "cursor": cursor}), 422, "invalid_cursor")
    # Empty parameters (a GET form's empty fields) mean "any".
    assert len(page_of(client, "alice", game="", result="", vs="", state="")["games"]) == 2
