"""Spectators: a private game does not exist for a stranger (404 in
every endpoint, the board page and the live list) until the players invite them; the live
list filters by game and pages; a spectator's socket follows its game and is counted."""

from __future__ import annotations

import random
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from dicehall.server.api.schemas import GameSummary
from dicehall.server.domain.services import Services
from tests.server.conftest import Headers, MakeUser
from tests.server.test_accounts import browser, log_in
from tests.server.test_five_games import check_only_own_view

API = "/api/v1"
NOBODY: Headers = {}
GAME_PUSH = {"type", "game", "version", "status"}
COUNT_PUSH = {"type", "game", "watching", "seq"}


def create(client: TestClient, headers: Headers, body: dict[str, Any]) -> Any:
    answer = client.post(f"{API}/games", json=body, headers=headers)
    assert answer.status_code == 201, answer.text
    return answer.json()


def two_players(
    client: TestClient, make_user: MakeUser, *, private: bool, game: str = "boatzee"
) -> tuple[Any, Headers, Headers]:
    """A started game between alice (seat 0) and bob (seat 1)."""
    alice, bob = make_user("alice"), make_user("bob")
    created = create(
        client, alice, {"game": game, "seats": ["me", "bob"], "private": private, "pace": "none"}
    )
    accepted = client.post(f"{API}/games/{created['id']}/accept", headers=bob)
    assert accepted.status_code == 200, accepted.text
    assert accepted.json()["status"] == "active"
    return accepted.json(), alice, bob


def move(client: TestClient, game_id: int, players: dict[int, Headers], rng: random.Random) -> Any:
    """A random legal move by whoever is to act; the answer."""
    game = client.get(f"{API}/games/{game_id}", headers=players[0]).json()
    seat = game["to_act"]
    mine = client.get(f"{API}/games/{game_id}", headers=players[seat]).json()
    answer = client.post(
        f"{API}/games/{game_id}/actions",
        json={"action": rng.choice(mine["legal"]), "expected_version": mine["version"]},
        headers=players[seat],
    )
    assert answer.status_code == 200, answer.text
    return answer.json()


def live_ids(client: TestClient, headers: Headers, query: str = "") -> list[int]:
    answer = client.get(f"{API}/games/live{query}", headers=headers)
    assert answer.status_code == 200, answer.text
    return [g["id"] for g in answer.json()]


def board_page(client: TestClient, game_id: int, headers: Headers) -> Any:
    """The board page as the user of ``headers`` sees it in a browser (signed in with a
    session cookie: pages take no API token), or as a signed-out visitor."""
    if not headers:
        return client.get(f"/games/{game_id}")
    name = client.get(f"{API}/users/me", headers=headers).json()["user_id"]
    other = browser(client)
    log_in(other, name)
    return other.get(f"/games/{game_id}")


def hidden_everywhere(client: TestClient, game_id: int, headers: Headers) -> None:
    """Every way to look at the game answers exactly as for a game that does not exist."""
    missing = 2_000_000_000
    for path in ("", "/events", "/log", "/watchers"):
        seen = client.get(f"{API}/games/{game_id}{path}", headers=headers)
        none = client.get(f"{API}/games/{missing}{path}", headers=headers)
        assert seen.status_code == none.status_code == 404, (path, seen.text)
        assert seen.json() == {
            **none.json(),
            "error": none.json()["error"].replace(str(missing), str(game_id)),
        }
    page = board_page(client, game_id, headers)
    assert page.status_code == 404
    assert f"There is no game {game_id}." in page.text
    assert game_id not in live_ids(client, headers)
    with (
        pytest.raises(WebSocketDisconnect) as refused,
        # (a copy: the test client adds the upgrade's headers to the dict it is given)
        client.websocket_connect(f"{API}/ws?watch={game_id}", headers=dict(headers)) as socket,
    ):
        socket.receive_json()
    assert refused.value.code == 4404


def visible(client: TestClient, game_id: int, headers: Headers) -> None:
    for path in ("", "/events", "/watchers"):
        answer = client.get(f"{API}/games/{game_id}{path}", headers=headers)
        assert answer.status_code == 200, (path, answer.text)
    # The log waits for the end of the game (it holds every die): a 409, not a 404.
    assert client.get(f"{API}/games/{game_id}/log", headers=headers).status_code == 409
    assert board_page(client, game_id, headers).status_code == 200
    assert game_id in live_ids(client, headers)


def test_a_private_game_is_hidden_from_strangers_until_invited(
    client: TestClient, make_user: MakeUser
) -> None:
    game, alice, bob = two_players(client, make_user, private=True)
    carol = make_user("carol")
    game_id = game["id"]
    for players in (alice, bob):
        visible(client, game_id, players)
    for stranger in (carol, NOBODY):
        hidden_everywhere(client, game_id, stranger)
    # Nor are its hints (for its players only): not a 403, which would say it exists.
    assert client.get(f"{API}/games/{game_id}/hint", headers=carol).status_code == 404
    # A stranger cannot invite themselves: the game is still not there for them.
    asked = client.post(f"{API}/games/{game_id}/watchers", json={"user": "carol"}, headers=carol)
    assert asked.status_code == 404 and asked.json()["code"] == "not_found"

    invited = client.post(f"{API}/games/{game_id}/watchers", json={"user": "Carol"}, headers=bob)
    assert invited.status_code == 200, invited.text
    assert invited.json() == {"watchers": ["carol"], "watching": 0}
    visible(client, game_id, carol)
    watched = client.get(f"{API}/games/{game_id}", headers=carol).json()
    assert watched["my_seat"] is None and watched["legal"] == []
    hidden_everywhere(client, game_id, NOBODY)

    withdrawn = client.delete(f"{API}/games/{game_id}/watchers/carol", headers=alice)
    assert withdrawn.status_code == 200, withdrawn.text
    assert withdrawn.json() == {"watchers": [], "watching": 0}
    hidden_everywhere(client, game_id, carol)


def test_a_public_game_is_anyones_to_watch(client: TestClient, make_user: MakeUser) -> None:
    game, _alice, _bob = two_players(client, make_user, private=False)
    carol = make_user("carol")
    for anyone in (carol, NOBODY):
        visible(client, game["id"], anyone)


def test_a_private_game_waiting_with_an_open_seat_is_in_the_waiting_room(
    client: TestClient, make_user: MakeUser
) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    game = create(client, alice, {"game": "boatzee", "seats": ["me", "open"], "private": True})
    # Anyone may join it from the waiting room, so its waiting board is no secret...
    assert game["id"] in [g["id"] for g in client.get(f"{API}/games/open").json()]
    assert client.get(f"{API}/games/{game['id']}").status_code == 200
    assert client.get(f"/games/{game['id']}").status_code == 200
    # ... but once bob took the seat and it started, it is theirs alone.
    joined = client.post(f"{API}/games/{game['id']}/join", json={}, headers=bob)
    assert joined.status_code == 200 and joined.json()["status"] == "active"
    hidden_everywhere(client, game["id"], NOBODY)


def test_inviting_watchers(client: TestClient, make_user: MakeUser) -> None:
    game, alice, bob = two_players(client, make_user, private=True)
    carol, dan = make_user("carol"), make_user("dan")
    url = f"{API}/games/{game['id']}/watchers"
    for _ in range(2):  # idempotent
        answer = client.post(url, json={"user": "dan"}, headers=alice)
        assert answer.status_code == 200 and answer.json()["watchers"] == ["dan"]
    # A player needs no invitation; an unknown user is a 404.
    assert client.post(url, json={"user": "bob"}, headers=alice).json()["watchers"] == ["dan"]
    unknown = client.post(url, json={"user": "zed"}, headers=alice)
    assert unknown.status_code == 404 and unknown.json()["code"] == "no_such_user"
    assert client.delete(f"{url}/zed", headers=alice).status_code == 404
    # A guest may watch but not invite; signed out, nobody may.
    guest = client.post(url, json={"user": "carol"}, headers=dan)
    assert guest.status_code == 403 and guest.json()["code"] == "not_a_player"
    assert client.delete(f"{url}/dan", headers=dan).status_code == 403
    assert client.post(url, json={"user": "carol"}).status_code == 401
    assert client.post(url, json={"user": ""}, headers=alice).status_code == 422
    assert client.post(url, json={}, headers=alice).status_code == 422
    client.post(url, json={"user": "carol"}, headers=bob)
    assert client.get(url, headers=carol).json() == {"watchers": ["carol", "dan"], "watching": 0}
    for _ in range(2):  # idempotent
        answer = client.delete(f"{url}/DAN", headers=bob)
        assert answer.status_code == 200 and answer.json()["watchers"] == ["carol"]
    del carol


def test_the_live_list(client: TestClient, make_user: MakeUser) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    boatzee = [
        create(client, alice, {"game": "boatzee", "seats": ["me", "bot:random"]})["id"]
        for _ in range(3)
    ]
    ten = create(client, bob, {"game": "tenthousand", "seats": ["me", "bot:random"]})["id"]
    waiting = create(client, alice, {"game": "boatzee", "seats": ["me", "open"]})["id"]
    hidden = create(
        client, bob, {"game": "boatzee", "seats": ["me", "bot:random"], "private": True}
    )["id"]
    # /games/live is its own route, not a game id (its router comes before the games').
    everyone = live_ids(client, NOBODY)
    # Newest first, games in progress only, private ones left out.
    assert everyone == [ten, *reversed(boatzee)]
    assert waiting not in everyone and hidden not in everyone
    assert live_ids(client, bob) == [hidden, ten, *reversed(boatzee)]
    assert live_ids(client, alice, "?game=boatzee") == list(reversed(boatzee))
    assert live_ids(client, bob, "?game=TenThousand") == [ten]
    unknown = client.get(f"{API}/games/live?game=chess")
    assert unknown.status_code == 422 and unknown.json()["code"] == "unknown_game"
    # Pages: before the last id of a page.
    first = live_ids(client, NOBODY, "?limit=2")
    rest = live_ids(client, NOBODY, f"?limit=2&before={first[-1]}")
    assert first + rest == everyone
    assert client.get(f"{API}/games/live?limit=0").status_code == 422
    # Summaries, not games: no view of any seat in them.
    for summary in client.get(f"{API}/games/live").json():
        assert set(summary) == set(GameSummary.model_fields)
        assert summary["your_turn"] is False


def _receive_until(socket: Any, kind: str) -> dict[str, Any]:
    """The next message of type ``kind`` (others skipped, and checked to carry no view)."""
    while True:
        message: dict[str, Any] = socket.receive_json()
        if message["type"] == "game" and "your_turn" not in message:
            assert set(message) == GAME_PUSH, message
        if message["type"] == "watching":
            assert set(message) == COUNT_PUSH, message
        if message["type"] == kind:
            return message


def test_a_spectators_socket_follows_the_game(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    game, alice, bob = two_players(client, make_user, private=False)
    game_id = game["id"]
    players = {0: alice, 1: bob}
    rng = random.Random(7)
    with (
        client.websocket_connect(f"{API}/ws?watch={game_id}") as spectator,
        client.websocket_connect(f"{API}/ws?watch={game_id}", headers=dict(alice)) as player,
    ):
        assert spectator.receive_json() == {"type": "hello"}
        assert _receive_until(spectator, "watching")["watching"] == 1
        assert player.receive_json() == {"type": "hello"}
        # The player's board hears the count at once, and is not counted.
        assert _receive_until(player, "watching")["watching"] == 1
        for _ in range(4):
            answer = move(client, game_id, players, rng)
            pushed = _receive_until(spectator, "game")
            assert pushed == {
                "type": "game",
                "game": game_id,
                "version": answer["version"],
                "status": answer["status"],
            }
            # The spectator reads the game again: exactly a spectator's view.
            watched = client.get(f"{API}/games/{game_id}").json()
            assert watched["version"] == pushed["version"] and watched["my_seat"] is None
            check_only_own_view(services, watched)
            # The player gets their own push (with your_turn), not the spectator's too.
            mine = _receive_until(player, "game")
            assert "your_turn" in mine
            assert mine["version"] == answer["version"]


def test_the_count_of_spectators_goes_up_and_down(client: TestClient, make_user: MakeUser) -> None:
    game, alice, _bob = two_players(client, make_user, private=False)
    carol = make_user("carol")
    game_id = game["id"]
    url = f"{API}/games/{game_id}/watchers"

    def count() -> int:
        answer = client.get(url)
        assert answer.status_code == 200
        watching: int = answer.json()["watching"]
        return watching

    assert count() == 0
    with client.websocket_connect(f"{API}/ws?watch={game_id}") as first:
        assert first.receive_json() == {"type": "hello"}
        assert _receive_until(first, "watching")["watching"] == 1
        assert count() == 1
        with client.websocket_connect(f"{API}/ws?watch={game_id}", headers=dict(carol)) as second:
            assert second.receive_json() == {"type": "hello"}
            heard = _receive_until(first, "watching")
            assert heard["watching"] == 2
            assert count() == 2
            # A player's board follows the game uncounted.
            with client.websocket_connect(f"{API}/ws?watch={game_id}", headers=dict(alice)) as mine:
                assert mine.receive_json() == {"type": "hello"}
                assert _receive_until(mine, "watching")["watching"] == 2
                assert count() == 2
        left = _receive_until(first, "watching")
        assert left["watching"] == 1 and left["seq"] > heard["seq"]
        assert count() == 1
    assert count() == 0


def test_sockets_that_may_not_watch(client: TestClient, make_user: MakeUser) -> None:
    game, alice, _bob = two_players(client, make_user, private=True)
    carol = make_user("carol")
    game_id = game["id"]
    for query in ("abc", "0", "-1", "99999999999", str(game_id + 1000)):
        with (
            pytest.raises(WebSocketDisconnect) as refused,
            client.websocket_connect(f"{API}/ws?watch={query}", headers=dict(carol)) as socket,
        ):
            socket.receive_json()
        assert refused.value.code == 4404, query
    # Signed out, a socket that follows no game is still refused.
    with pytest.raises(WebSocketDisconnect) as refused, client.websocket_connect(f"{API}/ws"):
        pass
    assert refused.value.code == 4401
    # An invited guest watches until the invitation is withdrawn: then the socket closes.
    client.post(f"{API}/games/{game_id}/watchers", json={"user": "carol"}, headers=alice)
    with client.websocket_connect(f"{API}/ws?watch={game_id}", headers=dict(carol)) as socket:
        assert socket.receive_json() == {"type": "hello"}
        assert _receive_until(socket, "watching")["watching"] == 1
        client.delete(f"{API}/games/{game_id}/watchers/carol", headers=alice)
        with pytest.raises(WebSocketDisconnect) as closed:
            while True:
                socket.receive_json()
        assert closed.value.code == 4404
    assert client.get(f"{API}/games/{game_id}/watchers", headers=alice).json()["watching"] == 0


def test_signed_out_spectators_are_capped_per_process() -> None:
    import asyncio

    from dicehall.server.infra.push import LocalBroker, TooManySockets

    async def scenario() -> str:
        broker = LocalBroker(anonymous_watchers=1)
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        async with broker.watch(1, queue, user_pk=None, counted=True):
            # A signed-in spectator is capped by their own sockets, not by this.
            async with broker.watch(1, queue, user_pk=5, counted=True):
                assert broker.local_watching(1) == 2
            try:
                async with broker.watch(2, queue, user_pk=None, counted=True):
                    return "admitted"
            except TooManySockets as refused:
                return str(refused)

    assert "at most 1 signed-out" in asyncio.run(scenario())
