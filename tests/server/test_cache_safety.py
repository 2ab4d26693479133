"""A rejected request leaves no trace in any cache; ids are never reused; keys bind requests."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import delete, select

from dicehall import games
from dicehall.engine import codec
from dicehall.engine.events import decode_event, replay
from dicehall.server.domain.games.records import EVENTS, GAMES, SEATS
from dicehall.server.domain.services import Services
from tests.server.conftest import Headers, MakeUser

API = "/api/v1"


def fresh_from_log(services: Services, game_id: int) -> tuple[Any, Any]:
    """The game's options and state decoded afresh from what is stored: options, log."""
    with services.read_conn() as conn:
        row = conn.execute(select(GAMES).where(GAMES.c.id == game_id)).one()
        entry = games.get(row.kind)
        options = codec.loads(row.options, entry.game.options_type)
        events = [
            decode_event(entry.game, json.loads(e.data))
            for e in conn.execute(
                select(EVENTS.c.data).where(EVENTS.c.game_id == game_id).order_by(EVENTS.c.seq)
            )
        ]
    if row.snapshot is None:
        assert not events
        return options, None
    state = replay(entry.game, row.seats, options, events)
    assert codec.loads(row.snapshot, entry.game.state_type) == state
    return options, state


def check_every_game(client: TestClient, services: Services, players: dict[str, Headers]) -> None:
    """Every game's options, state and views agree with a fresh decode of its stored log."""
    with services.read_conn() as conn:
        rows = conn.execute(select(GAMES.c.id, GAMES.c.kind)).all()
        seated = {
            (r.game_id, r.seat): r.user_pk for r in conn.execute(select(SEATS)).all() if r.user_pk
        }
    for row in rows:
        game = games.get(row.kind).game
        options, state = fresh_from_log(services, row.id)
        for headers in players.values():
            shown = client.get(f"{API}/games/{row.id}", headers=headers).json()
            assert shown["options"] == codec.encode(options)
            if state is None:
                assert shown["view"] is None
            else:
                assert shown["view"] == codec.encode(game.view(state, shown["my_seat"]))
        assert seated is not None


def test_a_rejected_create_poisons_nothing(client: TestClient, make_user: MakeUser) -> None:
    me = make_user("alice")
    rejected = client.post(
        f"{API}/games", json={"game": "bullseye", "seats": ["me", "bot:heuristic"]}, headers=me
    )
    assert rejected.status_code == 422
    accepted = client.post(
        f"{API}/games", json={"game": "tenthousand", "seats": ["me", "bot:heuristic"]}, headers=me
    )
    assert accepted.status_code == 201, accepted.text
    assert accepted.json()["options"] == codec.encode(games.get("tenthousand").game.options({}))
    again = client.post(
        f"{API}/games",
        json={"game": "boatzee", "seats": ["me", "bot:greedy"], "options": {"columns": 3}},
        headers=me,
    )
    assert again.status_code == 201, again.text
    assert again.json()["options"]["columns"] == 3


def test_a_rejected_create_of_the_same_kind_lends_no_options(
    client: TestClient, services: Services, make_user: MakeUser
) -> None:
    me = make_user("alice")
    # Rejected after its row was written: the bot name is unknown.
    rejected = client.post(
        f"{API}/games",
        json={"game": "boatzee", "seats": ["me", "nobody-here"], "options": {"columns": 3}},
        headers=me,
    )
    assert rejected.status_code == 422
    plain = client.post(
        f"{API}/games", json={"game": "boatzee", "seats": ["me", "bot:greedy"]}, headers=me
    ).json()
    assert plain["options"]["columns"] == 1
    check_every_game(client, services, {"alice": me})


@pytest.mark.both_databases
def test_ids_of_deleted_games_are_never_reused(
    client: TestClient, services: Services, make_user: MakeUser
) -> None:
    me = make_user("alice")
    body = {"game": "tenthousand", "seats": ["me", "open"]}
    first = client.post(f"{API}/games", json=body, headers=me).json()["id"]
    second = client.post(f"{API}/games", json=body, headers=me).json()["id"]
    with services.write_conn() as conn:
        conn.execute(delete(GAMES).where(GAMES.c.id == second))
    third = client.post(f"{API}/games", json=body, headers=me).json()["id"]
    assert first < second < third


def _move(client: TestClient, headers: Headers, game: Any, action: Any, key: str) -> Any:
    return client.post(
        f"{API}/games/{game['id']}/actions",
        json={"action": action, "expected_version": game["version"]},
        headers={**headers, "Idempotency-Key": key},
    )


def _my_turn_game(client: TestClient, me: Headers) -> Any:
    body = {"game": "boatzee", "seats": ["me", "bot:greedy"]}
    return client.post(f"{API}/games", json=body, headers=me).json()


def test_an_idempotency_key_is_bound_to_its_game_and_body(
    client: TestClient, services: Services, make_user: MakeUser
) -> None:
    me = make_user("alice")
    one, two = _my_turn_game(client, me), _my_turn_game(client, me)
    first = _move(client, me, one, one["legal"][0], "k-1")
    assert first.status_code == 200 and not first.json()["replayed"]
    again = _move(client, me, one, one["legal"][0], "k-1")
    assert again.status_code == 200 and again.json()["replayed"]
    assert again.json()["version"] == first.json()["version"]
    other_game = _move(client, me, two, two["legal"][0], "k-1")
    assert other_game.status_code == 422 and other_game.json()["code"] == "key_reused"
    other_action = _move(client, me, one, one["legal"][-1], "k-1")
    assert other_action.status_code == 422 and other_action.json()["code"] == "key_reused"
    assert client.get(f"{API}/games/{two['id']}", headers=me).json()["version"] == two["version"]
    check_every_game(client, services, {"alice": me})


OPERATIONS = st.lists(
    st.sampled_from(
        [
            "create_bad_bot",
            "create_bad_options",
            "create_bad_seats",
            "create_bot",
            "create_open",
            "join",
            "join_bad",
            "move",
            "move_illegal",
            "move_stale",
        ]
    ),
    min_size=4,
    max_size=14,
)

_GOOD = [
    ("tenthousand", {"target": "5000"}),
    ("boatzee", {"columns": 2}),
    ("bullseye", {}),
    ("boss", {}),
]


@pytest.mark.both_databases
@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(ops=OPERATIONS, picks=st.lists(st.integers(0, 3), min_size=14, max_size=14))
def test_interleaved_rejected_and_accepted_requests_keep_every_game_true(
    client: TestClient,
    services: Services,
    make_user: MakeUser,
    ops: list[str],
    picks: list[int],
) -> None:
    players = _players(make_user)
    me, friend = players["alice"], players["bob"]
    for op, pick in zip(ops, picks, strict=False):
        kind, options = _GOOD[pick]
        if op == "create_bad_bot":
            body = {"game": kind, "seats": ["me", "bot:no-such-bot"], "options": options}
            assert client.post(f"{API}/games", json=body, headers=me).status_code == 422
        elif op == "create_bad_options":
            body = {"game": kind, "seats": ["me", "open"], "options": {"no_such_option": 1}}
            assert client.post(f"{API}/games", json=body, headers=me).status_code == 422
        elif op == "create_bad_seats":
            body = {"game": "bullseye", "seats": ["me", "bot:heuristic"], "options": options}
            assert client.post(f"{API}/games", json=body, headers=me).status_code == 422
        elif op in {"create_bot", "create_open"}:
            seat = "open" if op == "create_open" else f"bot:{_first_bot(kind)}"
            seats = ["me", seat, seat] if kind == "bullseye" else ["me", seat]
            body = {"game": kind, "seats": seats, "options": options}
            response = client.post(f"{API}/games", json=body, headers=me)
            # 429: a creation quota, one more kind of rejected request in the mix.
            assert response.status_code in (201, 429), response.text
        elif op in {"join", "join_bad"}:
            waiting = [
                g
                for g in client.get(f"{API}/games/open", headers=friend).json()
                if all(s["user"] != "bob" for s in g["seats"])
            ]
            if waiting:
                target = waiting[pick % len(waiting)]
                wanted = 0 if op == "join_bad" else None
                response = client.post(
                    f"{API}/games/{target['id']}/join", json={"seat": wanted}, headers=friend
                )
                assert response.status_code == (409 if op == "join_bad" else 200), response.text
        else:
            _a_move(client, players, op, pick)
    check_every_game(client, services, players)


_made: dict[int, dict[str, Headers]] = {}


def _players(make_user: MakeUser) -> dict[str, Headers]:
    # One pair of users per database (hypothesis runs many examples on one fixture).
    key = id(make_user)
    if key not in _made:
        _made[key] = {"alice": make_user("alice"), "bob": make_user("bob")}
    return _made[key]


def _first_bot(kind: str) -> str:
    return "greedy" if kind == "boatzee" else "heuristic"


def _a_move(client: TestClient, players: dict[str, Headers], op: str, pick: int) -> None:
    for headers in players.values():
        mine = [g for g in client.get(f"{API}/games", headers=headers).json() if g["your_turn"]]
        if not mine:
            continue
        game = client.get(f"{API}/games/{mine[pick % len(mine)]['id']}", headers=headers).json()
        before = game["version"]
        if op == "move_illegal":
            response = client.post(
                f"{API}/games/{game['id']}/actions",
                json={"action": {"type": "no_such_action"}, "expected_version": before},
                headers=headers,
            )
            assert response.status_code == 422
        elif op == "move_stale":
            response = client.post(
                f"{API}/games/{game['id']}/actions",
                json={"action": game["legal"][0], "expected_version": before + 7},
                headers=headers,
            )
            assert response.status_code == 409
        else:
            action = game["legal"][pick % len(game["legal"])]
            response = client.post(
                f"{API}/games/{game['id']}/actions",
                json={"action": action, "expected_version": before},
                headers=headers,
            )
            assert response.status_code == 200, response.text
            return
        after = client.get(f"{API}/games/{game['id']}", headers=headers).json()
        assert after["version"] == before
        return


def test_the_upgrade_keeps_every_row(tmp_path: Any) -> None:
    """Rebuilding tables for AUTOINCREMENT must not cascade into their children."""
    from importlib import resources

    from alembic import command
    from alembic.config import Config
    from sqlalchemy import text

    from dicehall.server.core.db import make_engine, migrate

    engine = make_engine(f"sqlite:///{tmp_path}/old.sqlite3")
    config = Config()
    config.set_main_option(
        "script_location", str(resources.files("dicehall.server.core").joinpath("migrations"))
    )
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, "0001")
        conn.execute(
            text(
                "INSERT INTO users (id, user_id, key, password_hash, display_name, about,"
                " created_at) VALUES (1, 'alice', 'alice', 'x', 'alice', '', '2026-01-01')"
            )
        )
        conn.execute(
            text(
                "INSERT INTO games (id, kind, options, seats, status, version, event_count,"
                " created_by, created_at, updated_at) VALUES (7, 'pig', '{}', 2, 'waiting', 0,"
                " 1, 1, '2026-01-01', '2026-01-01')"
            )
        )
        conn.execute(text("INSERT INTO game_seats (game_id, seat, user_pk) VALUES (7, 0, 1)"))
        conn.execute(
            text(
                "INSERT INTO game_events (game_id, seq, data, created_at)"
                " VALUES (7, 0, '{}', '2026-01-01')"
            )
        )
        conn.execute(
            text(
                "INSERT INTO idempotency_keys (user_pk, key, game_id, version, created_at)"
                " VALUES (1, 'k', 7, 1, '2026-01-01')"
            )
        )
    migrate(engine)
    with engine.connect() as conn:
        for table in ("users", "games", "game_seats", "game_events", "idempotency_keys"):
            assert conn.execute(text(f"SELECT count(*) FROM {table}")).scalar_one() == 1, table
        schema = conn.execute(
            text("SELECT sql FROM sqlite_master WHERE name = 'games'")
        ).scalar_one()
        assert "AUTOINCREMENT" in schema
        assert conn.execute(text("PRAGMA foreign_keys")).scalar_one() == 1
    engine.dispose()
