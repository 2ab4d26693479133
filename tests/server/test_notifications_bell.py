"""The bell keeps one line per game and says what happened: who moved, in which game, with
whom, and the time left; a line gathers its game's notices (``events``), the WebSocket says
which line a new one replaces, a player who resigned hears nothing more, an invitation comes
with the game's options and pace, and a decline tells the creator who declined."""

from __future__ import annotations

import random
import re
from typing import Any

from fastapi.testclient import TestClient
from time_machine import TimeMachineFixture

from dicehall.server.core.clock import now
from dicehall.server.domain import notifications
from dicehall.server.domain.services import Services
from tests.server.conftest import Headers, MakeUser
from tests.server.test_clocks import create, fetch, play, site_clock, two_people
from tests.server.test_notifications import listed, mark, user_pk_of
from tests.waiting import wait_until

__all__ = ["site_clock"]  # a fixture

API = "/api/v1"


def turn_to(client: TestClient, game: Any, players: dict[int, Headers], seat: int) -> Any:
    """The seats play random legal moves until ``seat`` is to act."""
    rng = random.Random(11)
    for _ in range(200):
        if game["status"] != "active":
            raise AssertionError(f"game {game['id']} ended before seat {seat}'s turn")
        if game["to_act"] == seat:
            return game
        mover = players[game["to_act"]]
        game = play(client, mover, fetch(client, game["id"], mover), rng)
    raise AssertionError(f"the turn never came to seat {seat}")


def lines_about(found: Any, game_id: int, *, unread: bool = True) -> list[Any]:
    return [
        n for n in found["notifications"] if n["game"] == game_id and (not unread or not n["read"])
    ]


def notice(socket: Any) -> Any:
    """The next notification on a push socket (game pushes in between are passed over)."""
    for _ in range(50):
        message = socket.receive_json()
        if message["type"] == "notification":
            return message
    raise AssertionError("no notification came")


TURN = re.compile(
    r"^alice moved in Boatzee: your turn, \d+ d \d+ h left \(game (\d+) with alice\)$"
)


def test_the_bell_keeps_one_line_per_game_that_counts_its_events(
    client: TestClient, make_user: MakeUser
) -> None:
    game, players = two_people(client, make_user, vacation=True, pace="daily")
    alice, bob = players[0], players[1]
    mark(client, bob)  # the invitation, read
    turns = 3
    for _ in range(turns):
        game = turn_to(client, game, players, 1)
        game = turn_to(client, game, players, 0)
    mine = lines_about(listed(client, bob), game["id"])
    assert len(mine) == 1, mine
    line = mine[0]
    assert line["kind"] == "your_turn" and line["events"] == turns
    found = TURN.match(line["text"])
    assert found and int(found.group(1)) == game["id"], line["text"]
    assert len(line["text"]) < 200
    # Bob's unread count is one line, however many turns it gathers.
    assert listed(client, bob)["unread"] == 1

    # The push names the line it replaces; the list keeps only the new one.
    with client.websocket_connect(f"{API}/ws", headers=bob) as socket:
        assert socket.receive_json() == {"type": "hello"}
        turn_to(client, game, players, 1)
        pushed = notice(socket)
    assert pushed["replaces"] == line["id"] and pushed["events"] == turns + 1
    assert pushed["game"] == game["id"] and pushed["id"] > line["id"]
    assert TURN.match(pushed["text"])
    after = lines_about(listed(client, bob), game["id"], unread=False)
    assert [n["id"] for n in after] == [pushed["id"], *[n["id"] for n in after[1:]]]
    assert line["id"] not in {n["id"] for n in after}
    # Read, the line stays as it was; the next notice starts a line of its own.
    mark(client, bob)
    turn_to(client, fetch(client, game["id"], alice), players, 0)
    assert lines_about(listed(client, alice), game["id"])[0]["kind"] == "your_turn"
    game = turn_to(client, fetch(client, game["id"], bob), players, 1)
    fresh = lines_about(listed(client, bob), game["id"])
    assert len(fresh) == 1 and fresh[0]["events"] == 1
    every = lines_about(listed(client, bob), game["id"], unread=False)
    assert [n["kind"] for n in every] == ["your_turn", "your_turn", "invitation"]
    assert every[1]["id"] == pushed["id"] and every[1]["events"] == turns + 1


def test_a_player_who_resigned_is_told_nothing_more_about_the_game(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    game = create(client, alice, {"game": "boatzee", "seats": ["me", "bob", "carol"]})
    for headers in (bob, carol):
        accepted = client.post(f"{API}/games/{game['id']}/accept", headers=headers)
        assert accepted.status_code == 200, accepted.text
    game = accepted.json()
    resigned = client.post(
        f"{API}/games/{game['id']}/resign",
        json={"expected_version": game["version"]},
        headers=bob,
    )
    assert resigned.status_code == 200, resigned.text
    before = listed(client, bob)
    # Alice and carol play on (bob's seat is the autopilot's) and it comes round again.
    players = {0: alice, 2: carol}
    game_id = game["id"]
    for _ in range(2):
        game = wait_until(
            lambda: (g := fetch(client, game_id, alice))["to_act"] in players and g,
            timeout=20,
            what="a person's turn",
        )
        rng = random.Random(3)
        seat = game["to_act"]
        while game["to_act"] == seat and game["status"] == "active":
            game = play(client, players[seat], fetch(client, game["id"], players[seat]), rng)
    assert lines_about(listed(client, carol), game["id"])  # the others are still told
    # Even a notice made for him about that game is dropped.
    with services.write_conn() as conn:
        notifications.add(conn, user_pk_of(services, "bob"), "your_turn", game["id"], "x")
    assert listed(client, bob) == before


def test_an_invitation_says_the_options_and_the_pace(
    client: TestClient, make_user: MakeUser
) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    game = create(
        client,
        alice,
        {
            "game": "tenthousand",
            "seats": ["me", "bob"],
            "options": {"target": 5000, "ante": 50},
            "pace": "days-2",
        },
    )
    told = lines_about(listed(client, bob), game["id"])
    assert [n["kind"] for n in told] == ["invitation"]
    text = told[0]["text"]
    assert text == (
        "alice invites you to Ten Thousand: Target score 5000, Ante (cents) 50; "
        f"2 days per move (game {game['id']} with alice)"
    )
    # The creator is not told of their own invitation.
    assert lines_about(listed(client, alice), game["id"]) == []


def test_an_invitation_with_the_standard_rules_and_no_clock_says_so(
    client: TestClient, make_user: MakeUser
) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    make_user("carol")
    game = create(
        client, alice, {"game": "boatzee", "seats": ["me", "bob", "carol"], "pace": "none"}
    )
    text = lines_about(listed(client, bob), game["id"])[0]["text"]
    assert text == (
        f"alice invites you to Boatzee: standard rules; no clock "
        f"(game {game['id']} with alice and carol)"
    )


def test_a_decline_tells_the_creator_who_declined(client: TestClient, make_user: MakeUser) -> None:
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    game = create(client, alice, {"game": "boatzee", "seats": ["me", "bob", "carol"]})
    declined = client.post(f"{API}/games/{game['id']}/decline", headers=carol)
    assert declined.status_code == 200 and declined.json()["status"] == "cancelled"
    creator = lines_about(listed(client, alice), game["id"])
    assert [n["kind"] for n in creator] == ["invite_declined"]
    assert creator[0]["text"] == (
        f"carol declined your invitation to Boatzee: the game is called off "
        f"(game {game['id']} with bob and carol)"
    )
    # Bob's open invitation to that game becomes the news that it is called off.
    others = lines_about(listed(client, bob), game["id"])
    assert [(n["kind"], n["events"]) for n in others] == [("invite_declined", 2)]
    assert others[0]["text"].startswith("carol declined the invitation to Boatzee")
    # The one who declined is told nothing more.
    assert [n["kind"] for n in lines_about(listed(client, carol), game["id"])] == ["invitation"]


def test_the_notifications_page_offers_accept_and_decline_for_an_open_invitation(
    client: TestClient, make_user: MakeUser
) -> None:
    alice, _ = make_user("alice"), make_user("bob")
    game = create(client, alice, {"game": "boatzee", "seats": ["me", "bob"], "pace": "days-3"})
    signed = client.post(
        f"{API}/auth/login", json={"user_id": "bob", "password": "correct horse battery"}
    )
    assert signed.status_code == 200, signed.text
    page = client.get("/notifications").text
    assert f'action="/games/{game["id"]}/accept"' in page
    assert f'action="/games/{game["id"]}/decline"' in page
    assert f'Boatzee #{game["id"]}</a> <span class="with">with alice</span>' in page
    assert "3 days per move" in page


def test_a_reminder_and_a_timeout_name_the_game_and_the_time_left(
    client: TestClient, make_user: MakeUser, site_clock: TimeMachineFixture
) -> None:
    game, players = two_people(
        client, make_user, vacation=False, pace={"initial": 5, "increment": 5, "cap": 5}
    )
    bob = players[1]
    turn_to(client, game, players, 1)

    def latest() -> Any:
        mine = lines_about(listed(client, bob), game["id"])
        return mine[0] if mine and mine[0]["kind"] in ("time_low", "timed_out") else None

    # 4.1 s of bob's 5 s bank pass: the sweeper reminds him, then his time runs out.
    site_clock.shift(4.1)
    reminded = wait_until(latest, timeout=6, what="the reminder")
    assert re.fullmatch(
        rf"Time runs low in Boatzee: your turn, \d s left \(game {game['id']} with alice\)",
        reminded["text"],
    ), reminded["text"]
    site_clock.shift(1.5)
    out = wait_until(
        lambda: (n := latest()) and n["kind"] == "timed_out" and n, timeout=6, what="timeout"
    )
    assert out["text"] == (
        f"You ran out of time in Boatzee: the game is aborted (game {game['id']} with alice)"
    )


def test_texts_stay_short_and_say_the_pace() -> None:
    from dicehall.server.domain.games import notice_texts
    from dicehall.server.domain.games.pace import PRESETS, Pace
    from dicehall.server.domain.games.records import GameRecord, SeatInfo

    def table(name_length: int) -> list[SeatInfo]:
        others = [SeatInfo(i, 100 + i, f"p{i}" + "x" * name_length, None) for i in range(1, 8)]
        return [SeatInfo(0, 1, "me", None), *others]

    record = GameRecord(9, "boatzee", "{}", 8, "active", 3, None, 0, None, 0, now())
    text = notice_texts.your_turn(record, table(8), 0, 3, 3 * 86400 + 5)
    assert text == (
        "p3xxxxxxxx moved in Boatzee: your turn, 3 d 0 h left "
        "(game 9 with p1xxxxxxxx, p2xxxxxxxx, p3xxxxxxxx and 4 more)"
    )
    # Long names: the opponents are cut first, then the head; the game is always named.
    text = notice_texts.your_turn(record, table(60), 0, 3, 3 * 86400 + 5)
    assert len(text) <= notice_texts.LONGEST and text.endswith("left (game 9)")
    text = notice_texts.your_turn(record, table(190), 0, 3, None)
    assert len(text) == notice_texts.LONGEST and text.endswith("… (game 9)")
    assert notice_texts.pace_words(None) == "no clock"
    assert notice_texts.pace_words(Pace(2 * 86400, 2 * 86400, 2 * 86400, "days-2")) == (
        "2 days per move"
    )
    assert notice_texts.pace_words(PRESETS["brisk"]) == "1 day, +4 h a move, at most 2 days"
    assert notice_texts.listing(["a", "b", "c"]) == "a, b and c"
