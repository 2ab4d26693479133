"""``GET /games/{id}/events``: what happened, told per seat, hidden dice hidden; the outcome
of a finished game for its reader; ``POST /games/{id}/rematch``."""

from __future__ import annotations

import random
from typing import Any

from fastapi.testclient import TestClient

from dicehall.server.domain.services import Services
from tests.server.conftest import Headers, MakeUser
from tests.server.test_five_games import SHORT, play

API = "/api/v1"


def story(client: TestClient, game_id: int, headers: Headers | None = None, since: int = 0) -> Any:
    response = client.get(f"{API}/games/{game_id}/events?since={since}", headers=headers or {})
    assert response.status_code == 200, response.text
    return response.json()


def create(
    client: TestClient, headers: Headers, game: str, seats: list[str], options: dict[str, Any]
) -> Any:
    response = client.post(
        f"{API}/games", json={"game": game, "options": options, "seats": seats}, headers=headers
    )
    assert response.status_code == 201, response.text
    return response.json()


def move(client: TestClient, headers: Headers, game: Any, action: dict[str, Any]) -> Any:
    response = client.post(
        f"{API}/games/{game['id']}/actions",
        json={"action": action, "expected_version": game["version"]},
        headers=headers,
    )
    assert response.status_code == 200, response.text
    return response.json()


def test_three_bots_turns_are_each_told_with_their_dice_after_my_move(
    client: TestClient, make_user: MakeUser
) -> None:
    me = make_user("teller")

    def new_game() -> Any:
        return create(
            client,
            me,
            "tenthousand",
            ["me", "bot:heuristic", "bot:heuristic", "bot:heuristic"],
            {"target": 5000, "entry_threshold": 0},
        )

    game = new_game()
    # Play my turns with the first legal move until every bot has had a turn after mine
    # (a bot may win first on lucky dice: then play another game).
    for _ in range(200):
        if game["status"] == "finished":
            game = new_game()
        assert game["your_turn"], game["bot_turn"]
        game = move(client, me, game, game["legal"][0])
        told = story(client, game["id"], me)
        if game["your_turn"] and told["last_own"] is not None:
            after = [e for e in told["events"] if e["index"] > told["last_own"]]
            seats = {line["seat"] for e in after for line in e["lines"]}
            if {1, 2, 3} <= seats:
                break
    else:
        raise AssertionError("the bots never all moved after me")
    assert told["my_seat"] == 0 and told["total"] == len(told["events"])
    for seat, name in ((1, "heuristic bot 1"), (2, "heuristic bot 2"), (3, "heuristic bot 3")):
        rolls = [
            e["lines"][0]
            for e in after
            if e["event"]["type"] == "resolved" and e["lines"][0]["seat"] == seat
        ]
        assert rolls, f"no roll told for seat {seat}"
        for line in rolls:
            assert line["text"].startswith(f"{name} rolls "), line
            faces = line["text"].removeprefix(f"{name} rolls ").rstrip(".").split(" ")
            assert [int(f) for f in faces] == line["dice"] and line["dice"]
    # My own moves are told to me as "You".
    mine = [line["text"] for e in told["events"] if e["seat"] == 0 for line in e["lines"]]
    # (Lines about the position, "Hot dice: ...", name nobody.)
    assert any(text.startswith("You ") for text in mine)
    assert not any("teller" in text for text in mine), mine
    # ``since`` gives the tail of the same story.
    tail = story(client, game["id"], me, since=told["total"] - 2)
    assert tail["events"] == told["events"][-2:]


def test_the_bosss_concealed_roll_is_told_only_to_the_boss_until_the_showdown(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    game = create(client, alice, "boss", ["me", "bob"], {"horses": 3})
    accepted = client.post(f"{API}/games/{game['id']}/accept", headers=bob)
    assert accepted.status_code == 200
    game = accepted.json()
    players = {0: alice, 1: bob}
    rng = random.Random(5)
    for _ in range(400):
        assert game["status"] == "active"
        view = game["view"]
        # A Boss who kept five dice (a full house) rolled nothing out of sight: play on.
        if view["phase"] == "call" and len(view["boss_kept"]) < 5:
            break
        seat = game["to_act"]
        game = move(
            client,
            players[seat],
            game,
            rng.choice(
                client.get(f"{API}/games/{game['id']}", headers=players[seat]).json()["legal"]
            ),
        )
    else:
        raise AssertionError("no concealed roll reached")
    boss = game["view"]["boss"]
    concealed = story(client, game["id"], players[boss])["events"][-1]
    assert concealed["event"]["type"] == "resolved"
    assert concealed["event"]["outcome"] == concealed["lines"][0]["dice"]
    assert concealed["lines"][0]["text"].startswith("You roll ")
    for reader in (players[1 - boss], None):
        hidden = story(client, game["id"], reader)["events"][-1]
        assert hidden["event"]["outcome"]["hidden"] is True
        assert all(line["dice"] == [] for line in hidden["lines"])
        assert "under the cup" in hidden["lines"][0]["text"]
    # Come up, let the opponent keep and roll: the showdown shows both hands to everyone.
    game = move(
        client,
        players[boss],
        client.get(f"{API}/games/{game['id']}", headers=players[boss]).json(),
        {"type": "come_up"},
    )
    opponent = 1 - boss
    mine = client.get(f"{API}/games/{game['id']}", headers=players[opponent]).json()
    game = move(client, players[opponent], mine, mine["legal"][-1])
    shown = story(client, game["id"], None)
    revealed = next(e for e in shown["events"] if e["index"] == concealed["index"])
    assert revealed["event"]["outcome"] == concealed["event"]["outcome"]
    assert any(line["text"].startswith("Showdown") for e in shown["events"] for line in e["lines"])


def test_a_finished_game_tells_its_reader_won_or_lost_and_offers_a_rematch(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    options, bot = SHORT["boss"]
    me, other = make_user("finisher"), make_user("stranger")
    game = create(client, me, "boss", ["me", f"bot:{bot}"], options)
    final = play(client, services, {0: me}, game, random.Random(3), spectator=False)
    winners = final["result"]["winners"]
    told = story(client, final["id"], me)
    outcome = told["outcome"]
    assert outcome["verdict"] == ("won" if winners == [0] else "lost")
    assert outcome["headline"] == ("You won!" if winners == [0] else f"You lost: {bot} bot won.")
    scores = final["result"]["scores"]
    assert outcome["lines"][0]["text"] == (
        f"Final: You {scores[0]} horse{'s' if scores[0] != 1 else ''}, "
        f"{bot} bot {scores[1]} horse{'s' if scores[1] != 1 else ''}."
    )
    watcher = story(client, final["id"])["outcome"]
    assert watcher["verdict"] is None and watcher["headline"].endswith(" won.")
    # Nobody but a player asks for a rematch, and only of a finished game.
    assert client.post(f"{API}/games/{final['id']}/rematch", headers=other).status_code == 403
    active = create(client, me, "boss", ["me", f"bot:{bot}"], options)
    refused = client.post(f"{API}/games/{active['id']}/rematch", headers=me)
    assert refused.status_code == 409 and refused.json()["code"] == "not_finished"
    again = client.post(f"{API}/games/{final['id']}/rematch", headers=me)
    assert again.status_code == 201, again.text
    new = again.json()
    assert new["id"] != final["id"] and new["game"] == "boss"
    assert new["status"] == "active" and new["options"] == final["options"]
    assert [(s["user"], s["bot"]) for s in new["seats"]] == [
        (s["user"], s["bot"]) for s in final["seats"]
    ]


def test_a_rematch_with_a_person_invites_them_again(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    options, _ = SHORT["boss"]
    alice, bob = make_user("alice2"), make_user("bob2")
    game = create(client, alice, "boss", ["me", "bob2"], options)
    game = client.post(f"{API}/games/{game['id']}/accept", headers=bob).json()
    final = play(client, services, {0: alice, 1: bob}, game, random.Random(9), spectator=False)
    new = client.post(f"{API}/games/{final['id']}/rematch", headers=bob)
    assert new.status_code == 201, new.text
    seats = new.json()["seats"]
    assert new.json()["status"] == "waiting"
    assert [(s["user"], s["invited"]) for s in seats] == [("alice2", True), ("bob2", False)]


def test_events_of_a_waiting_game_are_empty_and_unknown_games_are_404(
    client: TestClient, make_user: MakeUser
) -> None:
    me = make_user("waiter")
    game = create(client, me, "boss", ["me", "open"], {})
    told = story(client, game["id"], me)
    assert told["events"] == [] and told["total"] == 0 and told["outcome"] is None
    assert client.get(f"{API}/games/999999/events").status_code == 404
    assert client.get(f"{API}/games/{game['id']}/events?since=-1").status_code == 422
