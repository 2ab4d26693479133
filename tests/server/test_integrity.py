"""``dicehall check``: every stored game replays from its log to its snapshot, or is named."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import select, update
from sqlalchemy.engine import make_url

from dicehall.engine.jsondiff import first_difference
from dicehall.server.domain.integrity import EVENTS, GAMES
from dicehall.server.domain.services import Services
from tests.conftest import CliResult, CliRunner
from tests.server.conftest import Headers, MakeUser
from tests.server.proof_games import settled

API = "/api/v1"


def play_a_little(client: TestClient, headers: Headers, game: dict[str, Any], moves: int) -> None:
    """Take the first legal action a few times (bots and dice answer in between), and leave
    the game with nothing pending, so that no bot writes to it while a test damages it."""
    for _ in range(moves):
        game = settled(client, headers, game)
        if game["status"] != "active" or not game["your_turn"]:
            return
        response = client.post(
            f"{API}/games/{game['id']}/actions",
            json={"action": game["legal"][0], "expected_version": game["version"]},
            headers=headers,
        )
        assert response.status_code == 200, response.text
        game = response.json()
    settled(client, headers, game)


def some_games(client: TestClient, make_user: MakeUser) -> dict[str, int]:
    """A few games of several kinds, one still waiting for players; their ids by kind."""
    alice = make_user("alice")
    ids: dict[str, int] = {}
    for kind, bots in (("tenthousand", 1), ("bullseye", 2), ("boatzee", 1), ("boss", 1)):
        seats = ["me"] + ["bot:random"] * bots
        response = client.post(f"{API}/games", json={"game": kind, "seats": seats}, headers=alice)
        assert response.status_code == 201, response.text
        play_a_little(client, alice, response.json(), 6)
        ids[kind] = response.json()["id"]
    waiting = client.post(
        f"{API}/games", json={"game": "tenthousand", "seats": ["me", "open"]}, headers=alice
    )
    assert waiting.status_code == 201, waiting.text
    ids["waiting"] = waiting.json()["id"]
    return ids


def check(cli: CliRunner, db_url: str, *flags: str) -> CliResult:
    return cli("check", "--db", db_url, *flags)


def check_json(cli: CliRunner, db_url: str) -> dict[str, Any]:
    result = check(cli, db_url, "--json")
    assert result.code in (0, 1), result
    data: dict[str, Any] = json.loads(result.out)
    return data


def tamper_snapshot(services: Services, game_id: int) -> int:
    """Add 50 to seat 0's banked points in the stored snapshot; return what it was."""
    with services.write_conn() as conn:
        text = conn.execute(select(GAMES.c.snapshot).where(GAMES.c.id == game_id)).scalar_one()
        state = json.loads(text)
        state["banked"][0] += 50
        conn.execute(update(GAMES).where(GAMES.c.id == game_id).values(snapshot=json.dumps(state)))
    return int(state["banked"][0]) - 50


def test_check_names_exactly_the_tampered_snapshot(
    client: TestClient, make_user: MakeUser, services: Services, cli: CliRunner, db_url: str
) -> None:
    ids = some_games(client, make_user)
    clean = check(cli, db_url)
    assert clean.code == 0, clean
    assert clean.out.strip() == "5 games checked: every game replays to its stored snapshot"
    banked = tamper_snapshot(services, ids["tenthousand"])
    found = check(cli, db_url)
    assert found.code == 1, found
    assert found.out.splitlines() == [
        f"game {ids['tenthousand']} (tenthousand): snapshot differs from replay at "
        f"$.banked[0]: stored {banked + 50}, replayed {banked}",
        "5 games checked: 1 do not agree with their event logs",
    ]
    data = check_json(cli, db_url)
    assert data["ok"] is False and data["checked"] == 5
    assert [d["id"] for d in data["discrepancies"]] == [ids["tenthousand"]]
    assert data["discrepancies"][0]["kind"] == "tenthousand"


@pytest.mark.both_databases
def test_check_names_damaged_logs_and_records(
    client: TestClient, make_user: MakeUser, services: Services, cli: CliRunner, db_url: str
) -> None:
    ids = some_games(client, make_user)
    deep = "[" * 50_000 + "]" * 50_000
    with services.write_conn() as conn:

        def events_of(game_id: int) -> int:
            count = conn.execute(
                select(GAMES.c.event_count).where(GAMES.c.id == game_id)
            ).scalar_one()
            assert count >= 2, f"game {game_id} has too short a log to damage"
            return int(count)

        events_of(ids["bullseye"])
        conn.execute(
            update(EVENTS)
            .where(EVENTS.c.game_id == ids["bullseye"], EVENTS.c.seq == 1)
            .values(data='{"type": "acted", "seat": 0, "action": {"type": "no_such_action"}}')
        )
        events_of(ids["boatzee"])
        conn.execute(
            update(EVENTS)
            .where(EVENTS.c.game_id == ids["boatzee"], EVENTS.c.seq == 0)
            .values(data=deep)
        )
        last = events_of(ids["boss"]) - 1
        conn.execute(EVENTS.delete().where(EVENTS.c.game_id == ids["boss"], EVENTS.c.seq == last))
        conn.execute(
            update(GAMES).where(GAMES.c.id == ids["tenthousand"]).values(kind="nosuchgame")
        )
        conn.execute(update(GAMES).where(GAMES.c.id == ids["waiting"]).values(snapshot="{junk"))
    data = check_json(cli, db_url)
    problems = {d["id"]: d["problem"] for d in data["discrepancies"]}
    assert set(problems) == set(ids.values())
    assert problems[ids["bullseye"]].startswith("event 1 does not decode: ")
    assert problems[ids["boatzee"]].startswith("event 0 does not decode: ")
    assert problems[ids["boss"]] == f"the game counts {last + 1} events, the log holds {last}"
    assert problems[ids["tenthousand"]] == "unknown game kind 'nosuchgame'"
    assert problems[ids["waiting"]] == "waiting for players, yet it has a snapshot"


@pytest.mark.both_databases
def test_check_reads_only(
    client: TestClient, make_user: MakeUser, services: Services, cli: CliRunner, db_url: str
) -> None:
    some_games(client, make_user)
    if not db_url.startswith("sqlite"):
        return
    services.engine.dispose()
    services.write_engine.dispose()
    path = Path(make_url(db_url).database or "")
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    assert check(cli, db_url).code == 0
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before
    assert not Path(f"{path}-wal").exists()


def test_an_empty_site_checks_clean(services: Services, cli: CliRunner, db_url: str) -> None:
    result = check(cli, db_url)
    assert result.code == 0 and "0 games checked" in result.out


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=10,
)


@given(json_values, json_values)
def test_first_difference_finds_exactly_the_differences(a: object, b: object) -> None:
    assert first_difference(a, a) is None
    same = json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    assert (first_difference(a, b) is None) == same


@pytest.mark.both_databases
def test_games_the_site_ended_check_clean_and_a_damaged_ending_is_named(
    client: TestClient, make_user: MakeUser, services: Services, cli: CliRunner, db_url: str
) -> None:
    # Resigned (a 2-seat forfeit, no event says so), aborted, and cancelled before it began:
    # the site's own endings agree with their logs.
    alice, bob = make_user("alice"), make_user("bob")
    ended: dict[str, int] = {}
    for name in ("resigned", "aborted"):
        made = client.post(
            f"{API}/games",
            json={"game": "tenthousand", "seats": ["me", "bob"], "pace": "none"},
            headers=alice,
        )
        assert made.status_code == 201, made.text
        accepted = client.post(f"{API}/games/{made.json()['id']}/accept", headers=bob)
        assert accepted.status_code == 200, accepted.text
        game = accepted.json()
        action = "resign" if name == "resigned" else "abort"
        done = client.post(
            f"{API}/games/{game['id']}/{action}",
            json={"expected_version": game["version"]},
            headers=alice,
        )
        assert done.status_code == 200, done.text
        assert done.json()["status"] == ("finished" if name == "resigned" else "aborted")
        ended[name] = game["id"]
    invited = client.post(
        f"{API}/games", json={"game": "boss", "seats": ["me", "bob"]}, headers=alice
    ).json()
    declined = client.post(f"{API}/games/{invited['id']}/decline", headers=bob)
    assert declined.status_code == 200, declined.text
    clean = check_json(cli, db_url)
    assert clean["ok"] is True and clean["checked"] == 3, clean

    with services.write_conn() as conn:
        stored = conn.execute(
            select(GAMES.c.result).where(GAMES.c.id == ended["resigned"])
        ).scalar_one()
        result = json.loads(stored)
        result["winners"] = [0]  # the seat that resigned, named the winner
        conn.execute(
            update(GAMES).where(GAMES.c.id == ended["resigned"]).values(result=json.dumps(result))
        )
        conn.execute(update(GAMES).where(GAMES.c.id == ended["aborted"]).values(result=stored))
    found = check_json(cli, db_url)
    assert {d["id"]: d["problem"] for d in found["discrepancies"]} == {
        ended["resigned"]: "seat 0 forfeited, yet the winners are [0]",
        ended["aborted"]: "the game is aborted, yet it has a result",
    }
