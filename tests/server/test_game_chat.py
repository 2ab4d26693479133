"""Chat in a game: the players' channel and the spectators' (which
the players read only once the game is over), who may not write or read at all, bodies and
presets, the pace limit, ignores hiding lines both ways (in reads, unread counts and
pushes) and refusing new players' lines across them, the unread count and read mark, the
status page's mark, and the pushes."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import insert, select, update

from dicehall.server.core.clock import now
from dicehall.server.core.models import ChatLine, User
from dicehall.server.domain.people import chat, relations
from dicehall.server.domain.services import Services
from tests.server.conftest import Headers, MakeUser
from tests.server.resigning import resign
from tests.server.test_accounts import browser, log_in
from tests.server.test_watching import _receive_until, two_players

API = "/api/v1"
NOBODY: Headers = {}


def say(client: TestClient, game_id: int, headers: Headers, **body: Any) -> Any:
    answer = client.post(f"{API}/games/{game_id}/chat", json=body, headers=headers)
    assert answer.status_code == 201, answer.text
    return answer.json()


def lines(client: TestClient, game_id: int, headers: Headers, **query: Any) -> Any:
    answer = client.get(f"{API}/games/{game_id}/chat", params=query, headers=headers)
    assert answer.status_code == 200, answer.text
    return answer.json()


def bodies(page: Any) -> list[str]:
    return [line["body"] for line in page["lines"]]


def refused(answer: Any, status: int, code: str) -> Any:
    assert answer.status_code == status, answer.text
    assert answer.json()["code"] == code, answer.text
    return answer.json()


def rest(services: Services) -> None:
    """Let two minutes pass for the pace limit: every line is dated two minutes back."""
    with services.write_conn() as conn:
        conn.execute(update(ChatLine).values(created_at=now() - timedelta(minutes=2)))


def pk_of(services: Services, name: str) -> int:
    with services.read_conn() as conn:
        return int(conn.execute(select(User.id).where(User.key == name)).scalar_one())


def ignore(services: Services, owner: str, target: str) -> None:
    with services.write_conn() as conn:
        relations.put(conn, pk_of(services, owner), pk_of(services, target), "ignore", None)


def summary(client: TestClient, game_id: int, headers: Headers) -> Any:
    answer = client.get(f"{API}/games", headers=headers)
    assert answer.status_code == 200, answer.text
    return next(g for g in answer.json() if g["id"] == game_id)


def test_players_talk_and_read_the_spectators_only_after_the_game(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    game, alice, bob = two_players(client, make_user, private=False)
    carol = make_user("carol")
    gid = game["id"]
    line = say(client, gid, alice, body="  hello   bob  ")
    assert line["body"] == "hello bob" and line["channel"] == "players"
    assert line["seat"] == 0 and line["user_id"] == "alice"
    assert line["display_name"] == "alice" and line["created_at"].endswith("+00:00")
    mine = lines(client, gid, bob)
    assert mine["channel"] == "players" and mine["sees"] == ["players"]
    assert mine["lines"] == [line] and mine["unread"] == 1

    # Carol only watches: she writes to the spectators, and reads both channels.
    kibitz = say(client, gid, carol, body="bob should keep the sixes")
    assert kibitz["channel"] == "spectators" and kibitz["seat"] is None
    theirs = lines(client, gid, carol)
    assert theirs["channel"] == "spectators" and theirs["sees"] == ["players", "spectators"]
    assert bodies(theirs) == ["hello bob", "bob should keep the sixes"]
    assert theirs["unread"] == 0
    # The players do not read it while the game is on, nor count it unread.
    for player in (alice, bob):
        assert bodies(lines(client, gid, player)) == ["hello bob"]
    assert lines(client, gid, alice)["unread"] == 0

    # Once the game is over, they do; a player who resigned still talks as a player.
    resign(client, alice, gid)
    after = lines(client, gid, bob)
    assert after["sees"] == ["players", "spectators"]
    assert bodies(after) == ["hello bob", "bob should keep the sixes"]
    rest(services)
    assert say(client, gid, alice, preset="gg")["channel"] == "players"
    assert bodies(lines(client, gid, bob, after=kibitz["id"])) == ["Good game"]
    assert lines(client, gid, carol, after=10**9)["lines"] == []


def test_a_waiting_game_has_chat_and_strangers_and_visitors_do_not(
    client: TestClient, make_user: MakeUser
) -> None:
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    created = client.post(
        f"{API}/games",
        json={"game": "boatzee", "seats": ["me", "bob"], "private": True, "pace": "none"},
        headers=alice,
    )
    assert created.status_code == 201, created.text
    gid = created.json()["id"]
    # Bob has not accepted yet: the invited player talks with the others seated.
    say(client, gid, alice, body="are you in?")
    assert say(client, gid, bob, body="in a minute")["channel"] == "players"
    # A private game does not exist for a stranger, and a visitor must sign in.
    for answer in (
        client.get(f"{API}/games/{gid}/chat", headers=carol),
        client.post(f"{API}/games/{gid}/chat", json={"body": "hi"}, headers=carol),
        client.post(f"{API}/games/{gid}/chat/read", json={}, headers=carol),
        client.get(f"{API}/games/{2_000_000_000}/chat", headers=carol),
    ):
        assert refused(answer, 404, "not_found")["error"].startswith("there is no game")
    for answer in (
        client.get(f"{API}/games/{gid}/chat", headers=NOBODY),
        client.post(f"{API}/games/{gid}/chat", json={"body": "hi"}, headers=NOBODY),
    ):
        assert answer.status_code == 401, answer.text
    # Invited to watch, carol is a spectator; she keeps no read mark.
    invited = client.post(f"{API}/games/{gid}/watchers", json={"user": "carol"}, headers=alice)
    assert invited.status_code == 200, invited.text
    assert say(client, gid, carol, body="hello")["channel"] == "spectators"
    refused(
        client.post(f"{API}/games/{gid}/chat/read", json={}, headers=carol), 403, "not_a_player"
    )
    assert bodies(lines(client, gid, bob)) == ["are you in?", "in a minute"]


def test_bodies_and_presets(client: TestClient, make_user: MakeUser, services: Services) -> None:
    game, alice, _bob = two_players(client, make_user, private=False)
    gid = game["id"]
    url = f"{API}/games/{gid}/chat"
    for body in ({"body": ""}, {"body": " \n\t "}, {"body": "x" * 301}, {}):
        refused(client.post(url, json=body, headers=alice), 422, "invalid_body")
    for bad in ("nul\x00", "bell\x07", "\u202eevil", "lone \ud800"):
        # As JSON escapes (a lone surrogate cannot be encoded otherwise).
        sent = {**alice, "Content-Type": "application/json"}
        answer = client.post(url, content=json.dumps({"body": bad}), headers=sent)
        refused(answer, 422, "invalid_body")
    both = {"body": "hi", "preset": "gl"}
    refused(client.post(url, json=both, headers=alice), 422, "invalid_body")
    refused(client.post(url, json={"preset": "win"}, headers=alice), 422, "invalid_preset")
    refused(client.post(url, json={"body": "hi", "x": 1}, headers=alice), 422, "invalid_request")
    assert lines(client, gid, alice)["lines"] == []  # nothing refused was stored

    assert say(client, gid, alice, body="x" * 300)["body"] == "x" * 300
    rest(services)
    assert say(client, gid, alice, body="two\nlines")["body"] == "two lines"
    page = lines(client, gid, alice)
    assert page["presets"] == [
        {"key": "gl", "text": "Good luck"},
        {"key": "gg", "text": "Good game"},
        {"key": "ty", "text": "Thanks"},
    ]
    for preset in page["presets"]:
        rest(services)
        assert say(client, gid, alice, preset=preset["key"])["body"] == preset["text"]
    rest(services)
    markup = '<img src=x onerror="alert(1)">'
    assert say(client, gid, alice, body=markup)["body"] == markup  # stored as written


def test_one_line_a_second_and_twenty_a_minute(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    game, alice, bob = two_players(client, make_user, private=False)
    gid = game["id"]
    say(client, gid, alice, body="one")
    answer = client.post(f"{API}/games/{gid}/chat", json={"body": "two"}, headers=alice)
    assert refused(answer, 429, "too_fast")["retry_after"] == 1
    assert answer.headers["Retry-After"] == "1"
    say(client, gid, bob, body="the pace is each writer's own")

    # Twenty lines of alice's in the last minute, the oldest 50 s ago: 10 s to wait.
    alice_pk = pk_of(services, "alice")
    start = now() - timedelta(seconds=50)
    with services.write_conn() as conn:
        conn.execute(update(ChatLine).values(created_at=now() - timedelta(minutes=2)))
        for index in range(chat.PER_MINUTE):
            conn.execute(
                insert(ChatLine).values(
                    game_id=gid,
                    user_pk=alice_pk,
                    channel="players",
                    body=f"line {index}",
                    created_at=start + timedelta(seconds=2 * index),
                )
            )
    answer = client.post(f"{API}/games/{gid}/chat", json={"body": "more"}, headers=alice)
    wait = refused(answer, 429, "too_fast")["retry_after"]
    assert 9 <= wait <= 11, wait
    # Another game of hers is not limited by this one.
    other = client.post(
        f"{API}/games",
        json={"game": "boatzee", "seats": ["me", "bot:random"], "pace": "none"},
        headers=alice,
    )
    assert other.status_code == 201, other.text
    say(client, other.json()["id"], alice, body="fine here")


def test_an_ignore_hides_lines_both_ways_and_refuses_new_ones(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    game, alice, bob = two_players(client, make_user, private=False)
    carol = make_user("carol")
    gid = game["id"]
    say(client, gid, bob, body="from bob")
    rest(services)
    say(client, gid, alice, body="from alice")
    say(client, gid, carol, body="from carol")
    ignore(services, "alice", "bob")
    # The players' channel is theirs alone: a new line would reach nobody, so it is refused
    # either way (never shown to its writer as sent), naming nobody; nothing is stored.
    rest(services)
    for writer in (alice, bob):
        answer = client.post(f"{API}/games/{gid}/chat", json={"body": "there?"}, headers=writer)
        assert refused(answer, 403, "not_accepted")["error"] == relations.CHAT_TABLE
    # What they said before is hidden across the ignore, both ways.
    assert bodies(lines(client, gid, alice)) == ["from alice"]
    assert bodies(lines(client, gid, bob)) == ["from bob"]
    assert bodies(lines(client, gid, carol)) == ["from bob", "from alice", "from carol"]
    assert lines(client, gid, alice)["unread"] == 0
    assert lines(client, gid, bob)["unread"] == 0
    assert summary(client, gid, alice)["chat_unread"] == 0
    # The spectators' channel has no set audience: carol, who ignores alice, still writes
    # there, and neither reads the other once the game is over.
    ignore(services, "carol", "alice")
    say(client, gid, carol, body="carol again")
    resign(client, bob, gid)
    assert bodies(lines(client, gid, alice)) == ["from alice"]
    assert bodies(lines(client, gid, bob)) == ["from bob", "from carol", "carol again"]
    assert bodies(lines(client, gid, carol)) == ["from bob", "from carol", "carol again"]
    # Lifted, the ignore hid nothing for good, and the players talk again.
    with services.write_conn() as conn:
        relations.remove(conn, pk_of(services, "alice"), pk_of(services, "bob"))
    assert bodies(lines(client, gid, alice)) == ["from bob", "from alice"]
    assert lines(client, gid, alice)["unread"] == 1
    say(client, gid, bob, body="good game")


def test_unread_count_read_mark_and_status_page(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    game, alice, bob = two_players(client, make_user, private=False)
    gid = game["id"]
    first = say(client, gid, alice, body="first")
    rest(services)
    say(client, gid, alice, body="second")
    assert summary(client, gid, bob)["chat_unread"] == 2
    assert summary(client, gid, alice)["chat_unread"] == 0  # my own lines are read
    assert lines(client, gid, bob)["unread"] == 2

    other = browser(client)
    log_in(other, "bob", "correct horse battery")
    status = other.get("/status")
    assert status.status_code == 200
    assert f'data-testid="chat-unread-{gid}"' in status.text
    assert "2 unread chat lines" in status.text

    url = f"{API}/games/{gid}/chat/read"
    marked = client.post(url, json={"up_to": first["id"]}, headers=bob)
    assert marked.status_code == 200 and marked.json() == {"unread": 1}
    assert client.post(url, json={}, headers=bob).json() == {"unread": 0}
    # A mark never moves back.
    assert client.post(url, json={"up_to": first["id"]}, headers=bob).json() == {"unread": 0}
    assert summary(client, gid, bob)["chat_unread"] == 0
    assert f'data-testid="chat-unread-{gid}"' not in other.get("/status").text
    refused(client.post(url, json={"up_to": 0}, headers=bob), 422, "invalid_request")


def test_pushes_reach_whom_they_may(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    game, alice, bob = two_players(client, make_user, private=False)
    carol, dave = make_user("carol"), make_user("dave")
    gid = game["id"]
    with (
        client.websocket_connect(f"{API}/ws", headers=dict(bob)) as bobs,
        client.websocket_connect(f"{API}/ws?watch={gid}", headers=dict(alice)) as board,
        client.websocket_connect(f"{API}/ws?watch={gid}", headers=dict(carol)) as watcher,
    ):
        for socket in (bobs, board, watcher):
            assert socket.receive_json() == {"type": "hello"}
        line = say(client, gid, alice, body="good luck, bob")
        assert _receive_until(bobs, "chat") == {"type": "chat", "game": gid, "line": line}
        # Followers of the game hear that a channel has a line, never the line.
        hint = {"type": "chat_new", "game": gid, "channel": "players"}
        assert _receive_until(watcher, "chat_new") == hint
        assert _receive_until(board, "chat") == {"type": "chat", "game": gid, "line": line}
        assert _receive_until(board, "chat_new") == hint

        # A spectator's line reaches no player's own pushes: bob's next line is alice's.
        say(client, gid, carol, body="psst")
        spectators = {"type": "chat_new", "game": gid, "channel": "spectators"}
        assert _receive_until(watcher, "chat_new") == spectators
        # Dave is ignored by bob: bob's sockets get nothing of his (he watches, so he writes
        # to the spectators; bob reads him nowhere).
        ignore(services, "bob", "dave")
        say(client, gid, dave, body="hi bob")
        rest(services)
        again = say(client, gid, alice, body="your turn soon")
        assert _receive_until(bobs, "chat")["line"] == again

        # Across an ignore no players' line is taken, so none is pushed: alice ignores bob.
        ignore(services, "alice", "bob")
        rest(services)
        for writer in (alice, bob):
            answer = client.post(f"{API}/games/{gid}/chat", json={"body": "x"}, headers=writer)
            refused(answer, 403, "not_accepted")
        with services.write_conn() as conn:
            relations.remove(conn, pk_of(services, "alice"), pk_of(services, "bob"))
        said = say(client, gid, alice, body="back again")
        assert _receive_until(bobs, "chat")["line"] == said


@pytest.mark.parametrize("after", [-1, 2**31])
def test_after_out_of_range_is_422(client: TestClient, make_user: MakeUser, after: int) -> None:
    game, alice, _bob = two_players(client, make_user, private=False)
    answer = client.get(f"{API}/games/{game['id']}/chat", params={"after": after}, headers=alice)
    refused(answer, 422, "invalid_request")
