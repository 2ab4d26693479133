"""The games API, with Pig as a stand-in for any game."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from dicehall.fairness.chain import verify_chain
from dicehall.games import strengths
from dicehall.server.domain.services import Services
from tests.conftest import CliRunner
from tests.server.conftest import Headers, MakeUser
from tests.server.legacy_batches import make_legacy
from tests.server.pig_entry import register_pig
from tests.waiting import wait_until

register_pig()

API = "/api/v1"


def create(client: TestClient, headers: Headers, seats: list[str], **options: Any) -> Any:
    response = client.post(
        f"{API}/games", json={"game": "pig", "seats": seats, "options": options}, headers=headers
    )
    assert response.status_code == 201, response.text
    return response.json()


def move(client: TestClient, headers: Headers, game: Any, action: Any, **extra: str) -> Any:
    return client.post(
        f"{API}/games/{game['id']}/actions",
        json={"action": action, "expected_version": game["version"]},
        headers={**headers, **extra},
    )


def play_to_end(client: TestClient, players: dict[int, Headers], game: Any) -> Any:
    """Hold at 8 or more; every response is checked."""
    for _ in range(500):
        if game["status"] == "finished":
            return game
        seat = game["to_act"]
        headers = players[seat]
        game = client.get(f"{API}/games/{game['id']}", headers=headers).json()
        assert game["your_turn"]
        choice = {"type": "hold"} if game["view"]["turn_total"] >= 8 else {"type": "roll_again"}
        response = move(client, headers, game, choice)
        assert response.status_code == 200, response.text
        game = response.json()
    raise AssertionError("game did not end")


def test_against_a_bot_to_the_end(client: TestClient, make_user: MakeUser) -> None:
    alice = make_user("alice")
    # Pig's first roll is made for me: a 1 passes the turn to the bot, which may then reach
    # the target before I ever move. Such a game is over at once; start another.
    for _ in range(20):
        game = create(client, alice, ["me", "bot:random"], target=20)
        if game["status"] == "active":
            break
        assert game["status"] == "finished" and game["result"]["winners"] == [1]
    assert game["status"] == "active" and game["your_turn"] and game["my_seat"] == 0
    assert game["legal"] == [{"type": "hold"}, {"type": "roll_again"}]
    game = play_to_end(client, {0: alice}, game)
    assert game["result"]["winners"]
    log = client.get(f"{API}/games/{game['id']}/log").json()
    rolls = [e for e in log["events"] if e["type"] == "resolved"]
    # The i-th roll of the game used its deck's key i (scheme 3; key 0 is the seat key).
    assert rolls and [e["dice_key"] for e in rolls] == list(range(1, len(rolls) + 1))
    assert all("dice_set" not in e for e in rolls)


def invite(
    client: TestClient, creator: Headers, invitee: Headers, seats: list[str], **options: Any
) -> Any:
    """Create a game naming a user, have them accept, and return it as the creator sees it."""
    game = create(client, creator, seats, **options)
    assert game["status"] == "waiting" and any(s["invited"] for s in game["seats"])
    accepted = client.post(f"{API}/games/{game['id']}/accept", headers=invitee)
    assert accepted.status_code == 200, accepted.text
    return client.get(f"{API}/games/{game['id']}", headers=creator).json()


def test_two_users_and_the_game_list(client: TestClient, make_user: MakeUser) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    game = invite(client, alice, bob, ["me", "user:bob"], target=15)
    while not game["your_turn"]:  # the first roll may have been a 1, passing to bob
        game = invite(client, alice, bob, ["me", "user:bob"], target=15)
    listed = client.get(f"{API}/games", headers=alice).json()
    assert listed[0]["id"] == game["id"] and listed[0]["your_turn"]
    other = invite(client, bob, alice, ["me", "alice"], target=15)
    while not other["your_turn"]:
        other = invite(client, bob, alice, ["me", "alice"], target=15)
    # alice's list: every game waiting on her comes before every game waiting on bob
    listed = client.get(f"{API}/games", headers=alice).json()
    flags = [g["your_turn"] for g in listed]
    assert flags == sorted(flags, reverse=True)
    mine_first = {g["id"] for g in listed if g["your_turn"]}
    assert game["id"] in mine_first and other["id"] not in mine_first
    # bob cannot move in alice's turn
    response = move(client, bob, game, {"type": "hold"})
    assert response.status_code == 422
    assert "seat 1's turn" in response.json()["error"]
    final = play_to_end(client, {0: alice, 1: bob}, game)
    assert final["status"] == "finished"


def test_open_seat_waiting_room_and_join(client: TestClient, make_user: MakeUser) -> None:
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    game = create(client, alice, ["me", "open"])
    assert game["status"] == "waiting" and game["view"] is None
    room = client.get(f"{API}/games/open").json()
    assert [g["id"] for g in room] == [game["id"]]
    again = client.post(f"{API}/games/{game['id']}/join", json={}, headers=alice)
    assert again.status_code == 409 and again.json()["code"] == "already_seated"
    joined = client.post(f"{API}/games/{game['id']}/join", json={}, headers=bob)
    assert joined.status_code == 200 and joined.json()["status"] == "active"
    late = client.post(f"{API}/games/{game['id']}/join", json={}, headers=carol)
    assert late.status_code == 409
    assert client.get(f"{API}/games/open").json() == []


@pytest.mark.both_databases
def test_stale_version_and_idempotency(client: TestClient, make_user: MakeUser) -> None:
    alice = make_user("alice")
    game = create(client, alice, ["me", "bot:random"], target=50)
    first = move(client, alice, game, {"type": "roll_again"}, **{"Idempotency-Key": "k1"})
    assert first.status_code == 200 and not first.json()["replayed"]
    repeat = move(client, alice, game, {"type": "roll_again"}, **{"Idempotency-Key": "k1"})
    assert repeat.status_code == 200 and repeat.json()["replayed"]
    assert repeat.json()["version"] == first.json()["version"]
    stale = move(client, alice, game, {"type": "roll_again"})
    assert stale.status_code == 409
    assert stale.json()["code"] == "stale" and stale.json()["version"] == first.json()["version"]


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"game": "chess", "seats": ["me"]}, 422, "unknown_game"),
        ({"game": "pig", "seats": ["me"], "options": {"goal": 3}}, 422, "invalid_options"),
        ({"game": "pig", "seats": ["me"], "options": {"target": -1}}, 422, "invalid_options"),
        ({"game": "pig", "seats": ["me", "bot:genius"]}, 422, "invalid_input"),
        ({"game": "pig", "seats": ["bot:random"]}, 422, "invalid_seats"),
        ({"game": "pig", "seats": ["me", "me"]}, 422, "invalid_seats"),
        ({"game": "pig", "seats": ["me", "nobody"]}, 422, "unknown_user"),
        ({"game": "pig", "seats": ["me"] * 5}, 422, "invalid_options"),
        ({"game": "pig", "seats": "me"}, 422, "invalid_request"),
        ({"seats": ["me"]}, 422, "invalid_request"),
    ],
)
def test_bad_creates(
    client: TestClient, make_user: MakeUser, body: Any, status: int, code: str
) -> None:
    response = client.post(f"{API}/games", json=body, headers=make_user("alice"))
    assert response.status_code == status, response.text
    assert response.json()["code"] == code
    assert response.json()["error"]


def test_bad_moves_change_nothing(client: TestClient, make_user: MakeUser) -> None:
    alice, mallory = make_user("alice"), make_user("mallory")
    game = create(client, alice, ["me", "bot:random"])
    while game["status"] != "active":  # the bot may win at once after a first roll of 1
        game = create(client, alice, ["me", "bot:random"])
    cases = [
        (alice, {"type": "fold"}, 422, "invalid_input"),
        (alice, {"type": "hold", "extra": 1}, 422, "invalid_input"),
        (alice, "hold", 422, "invalid_request"),
        (mallory, {"type": "hold"}, 403, "not_your_game"),
    ]
    for headers, action, status, code in cases:
        response = move(client, headers, game, action)
        assert response.status_code == status, response.text
        assert response.json()["code"] == code
    malformed = client.post(
        f"{API}/games/{game['id']}/actions",
        content=b"{not json",
        headers={**alice, "content-type": "application/json"},
    )
    assert malformed.status_code == 422
    huge = client.post(
        f"{API}/games/{game['id']}/actions",
        content=b"[" + b"1," * 100_000 + b"1]",
        headers={**alice, "content-type": "application/json"},
    )
    assert huge.status_code == 413
    missing = client.get(f"{API}/games/999999", headers=alice)
    assert missing.status_code == 404
    after = client.get(f"{API}/games/{game['id']}", headers=alice).json()
    assert after["version"] == game["version"] and after["view"] == game["view"]


def test_anonymous_and_bad_tokens(client: TestClient, make_user: MakeUser) -> None:
    alice = make_user("alice")
    # A target out of one bot turn's reach: the game is surely still in progress below.
    game = create(client, alice, ["me", "bot:random"], target=1000)
    assert client.post(f"{API}/games", json={"game": "pig", "seats": ["me"]}).status_code == 401
    bad = client.get(f"{API}/games", headers={"Authorization": "Bearer nope"})
    assert bad.status_code == 401 and "not valid" in bad.json()["error"]
    spectator = client.get(f"{API}/games/{game['id']}").json()
    assert spectator["my_seat"] is None and spectator["legal"] == []
    log = client.get(f"{API}/games/{game['id']}/log")
    assert log.status_code == 409 and log.json()["code"] == "in_progress"


@pytest.mark.both_databases
@pytest.mark.usefixtures("old_scheme")  # the pool serves games made before decks
def test_dice_pool_reveals_only_spent_batches_of_finished_games(
    client: TestClient, make_user: MakeUser, services: Services, cli: CliRunner, tmp_path: Path
) -> None:
    """Old (scheme-1) batches are revealed whole once spent and all their games ended, and
    `dicehall verify-dice` checks them; batches committed since are never revealed whole
    (each game's proof shows its dice)."""
    legacy = make_legacy(services)
    log = client.get(f"{API}/fairness/log").json()["records"]
    assert verify_chain(log) is None
    assert not {r["batch"] for r in log if r["kind"] == "dice"} & set(legacy), "no old record"
    alice = make_user("alice")
    for _ in range(40):  # until the first batch of 40 sets is spent
        play_to_end(client, {0: alice}, create(client, alice, ["me", "bot:random"], target=30))
        report = client.get(f"{API}/fairness").json()
        if report["batches"][0]["revealed"]:
            break
    report = client.get(f"{API}/fairness").json()
    revealed = [b for b in report["batches"] if b["revealed"]]
    assert revealed, "the first batch of 40 sets should be spent and revealed"
    assert report["revealed"]["dice"] == 6 * sum(b["size"] for b in revealed)
    assert 0.0 <= report["revealed"]["p_value"] <= 1.0
    assert all(b["scheme"] == 1 for b in revealed)
    unrevealed = [b for b in report["batches"] if not b["revealed"]]
    assert unrevealed, "the reserve batch stays secret"
    assert all(b["scheme"] == 2 for b in unrevealed), "a new batch is never revealed whole"
    # The game that spent the old batch may have ended at its very last set: one more game
    # draws only from new batches, which the finished statistics count all the same.
    play_to_end(client, {0: alice}, create(client, alice, ["me", "bot:random"], target=30))
    report = client.get(f"{API}/fairness").json()
    assert report["finished"]["dice"] > report["revealed"]["dice"]
    secret = client.get(f"{API}/fairness/batches/{unrevealed[0]['id']}")
    assert secret.status_code == 404
    from dicehall.server.domain.dice.fairness import verify_batch

    batch = client.get(f"{API}/fairness/batches/{revealed[0]['id']}").json()
    assert verify_batch(batch)[0]
    saved = tmp_path / "batch.json"
    saved.write_text(json.dumps(batch), encoding="utf-8")
    checked = cli("verify-dice", str(saved))
    assert checked.code == 0 and checked.out.startswith("OK: "), checked
    tampered = {**batch, "sets": ["666666", *batch["sets"][1:]]}
    assert not verify_batch(tampered)[0] or batch["sets"][0] == "666666"


def test_unfinished_game_keeps_its_batch_secret(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    make_legacy(services)
    alice = make_user("alice")
    pending = create(client, alice, ["me", "bot:random"], target=1000)
    for _ in range(3):
        play_to_end(client, {0: alice}, create(client, alice, ["me", "bot:random"], target=40))
    report = client.get(f"{API}/fairness").json()
    first = report["batches"][0]
    # the pending game drew its first roll from the first batch, so it is not revealed
    assert not first["revealed"]
    assert client.get(f"{API}/games/{pending['id']}").json()["status"] == "active"


@pytest.mark.both_databases
def test_the_pool_is_topped_up_ahead_of_need(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    """A commit that leaves less than a batch unserved has the driver top the pool up at
    once, not at its next period, so requests do not find it empty."""
    from sqlalchemy import func, select

    from dicehall.server.core.models import DiceCursor, DiceSet

    def unserved() -> int:
        with services.sessions() as db:
            last = db.scalar(select(func.max(DiceSet.id))) or 0
            cursor = db.scalar(select(DiceCursor.next_set)) or 1
            return int(last - cursor + 1)

    game = create(client, make_user("alice"), ["me", "bot:random"], target=30)
    driver = client.app.state.driver  # type: ignore[attr-defined]
    driver._next_top_up = time.monotonic() + 3600  # no periodic top-up during the test
    size = services.pool.batch_size
    with services.write_conn() as conn:
        services.pool.take(conn, unserved() - 1, game["id"])
    wait_until(lambda: unserved() >= size, timeout=3.0, what="the driver to top the pool up")


def test_the_log_keeps_the_action_as_the_rules_state_it(
    client: TestClient, make_user: MakeUser
) -> None:
    """A Boatzee score sent with only its box is logged with the points the rules give it."""
    alice = make_user("alice")
    created = client.post(
        f"{API}/games", json={"game": "boatzee", "seats": ["me"]}, headers=alice
    ).json()
    game = created
    for _ in range(200):
        if game["status"] == "finished":
            break
        score = next(a for a in game["legal"] if a["type"] == "score")
        sent = {"type": "score", "box": score["box"], "column": score["column"]}
        moved = client.post(
            f"{API}/games/{game['id']}/actions",
            json={"action": sent, "expected_version": game["version"]},
            headers=alice,
        )
        assert moved.status_code == 200, moved.text
        game = moved.json()
    assert game["status"] == "finished"
    log = client.get(f"{API}/games/{game['id']}/log").json()
    scores = [e["action"] for e in log["events"] if e["type"] == "acted"]
    assert len(scores) == 13
    assert sum(s["points"] + s["upper_bonus"] + s["extra_bonus"] for s in scores) == sum(
        game["result"]["scores"]
    )


def test_two_bots_of_one_kind_get_distinct_names(client: TestClient, make_user: MakeUser) -> None:
    alice = make_user("alice")
    created = client.post(
        f"{API}/games",
        json={
            "game": "holdem",
            "options": {"stack": 30},
            "seats": ["me", "bot:random", "bot:random", "open"],
        },
        headers=alice,
    )
    assert created.status_code == 201, created.text
    names = [s["name"] for s in created.json()["seats"]]
    assert names == ["alice", "random bot 1", "random bot 2", "open seat"]
    listed = client.get(f"{API}/games", headers=alice).json()
    assert [s["name"] for s in listed[0]["seats"]] == names
    single = client.post(
        f"{API}/games", json={"game": "boss", "seats": ["me", "bot:odds"]}, headers=alice
    ).json()
    assert [s["name"] for s in single["seats"]] == ["alice", "odds bot"]


def test_game_kinds_list_bots_weakest_first_with_a_line_each(client: TestClient) -> None:
    kinds = {kind["game"]: kind for kind in client.get(f"{API}/games/kinds").json()}
    assert kinds["boss"]["bots"] == ["random", "heuristic", "odds", "equilibrium"]
    assert kinds["boatzee"]["bots"][:3] == ["random", "greedy", "heuristic"]
    for kind in kinds.values():
        assert set(kind["bot_notes"]) == set(kind["bots"])
        assert all(kind["bot_notes"].values())


def test_game_kinds_carry_each_bots_ladder_figures(client: TestClient) -> None:
    kinds = {kind["game"]: kind for kind in client.get(f"{API}/games/kinds").json()}
    for game, kind in kinds.items():
        ladders = strengths.ladders_of(game)
        assert list(kind["bot_strengths"]) == [ladder.kind for ladder in ladders]
        for ladder in ladders:
            shown = kind["bot_strengths"][ladder.kind]
            assert shown == {s.bot: s.to_json() for s in ladder.bots}
            assert set(shown) <= set(kind["bots"])


def test_a_game_is_titled_as_its_options_make_it(client: TestClient, make_user: MakeUser) -> None:
    alice = make_user("alice")
    body = {
        "game": "boatzee",
        "seats": ["me", "bot:greedy"],
        "options": {"columns": 3, "ruleset": "yahtzee", "joker": "free"},
    }
    game = client.post(f"{API}/games", json=body, headers=alice).json()
    assert game["title"] == "Triple Boatzee (yahtzee rules, free joker)"
    plain = client.post(
        f"{API}/games", json={"game": "boss", "seats": ["me", "bot:odds"]}, headers=alice
    ).json()
    assert plain["title"] == "Boss Dice"
