"""The games' side of an announced absence (issue 36 review).

A move by a player who is away ends the absence, which moves the deadlines of every game it
held: it locks several games' rows, in id order, as coming back (``I am back``) and
announcing an absence do. The move must not do that while it still holds its own game's
row: a second transaction of the same player's that has locked a lower game and waits for
the mover's would deadlock with it on PostgreSQL, and one of them fail. The notices it
sends name each game as its options make it ("Double Boatzee")."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update
from time_machine import TimeMachineFixture

from dicehall.server.core.clock import now
from dicehall.server.core.models import GameRow
from dicehall.server.domain.games import absence
from dicehall.server.domain.games.moving import Move, make_move
from dicehall.server.domain.games.pace import Clock
from dicehall.server.domain.games.records import fetch_game
from dicehall.server.domain.services import Services
from dicehall.server.domain.vacation import FLOATING_HOUR
from dicehall.server.domain.work import write
from tests.server.conftest import MakeUser
from tests.server.test_clocks import create, fetch, site_clock
from tests.server.test_vacation import go_away, moment, saved_by_absence, stored

__all__ = ["site_clock"]  # a fixture

API = "/api/v1"
#: Long enough for PostgreSQL to find a deadlock (a second), short enough to fail soon.
PATIENCE = 15


def game_against(client: TestClient, alice: Any, name: str, make_user: MakeUser) -> Any:
    """A day-per-move Boatzee game of alice's against ``name``, alice to act."""
    other = make_user(name)
    body = {"game": "boatzee", "seats": ["me", name], "pace": "daily", "vacation": True}
    game = create(client, alice, body)
    accepted = client.post(f"{API}/games/{game['id']}/accept", headers=other)
    assert accepted.status_code == 200, accepted.text
    game = fetch(client, game["id"], alice)
    assert game["to_act"] == 0
    return game


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_a_move_and_coming_back_at_once_both_go_through(
    client: TestClient, make_user: MakeUser, services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice = make_user("alice")
    lower, higher = (game_against(client, alice, name, make_user) for name in ("bob", "carol"))
    assert lower["id"] < higher["id"]
    assert go_away(client, alice, datetime.now(UTC) + timedelta(days=2)).status_code == 200
    user = stored(services, "alice")
    # The move (in the higher game) reaches the absence's games and waits there until
    # "I am back" has locked the lower game; then both go on.
    mover_there, back_locked = threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def gated(conn: Any, game_id: int, *, lock: bool = False) -> Any:
        if threading.current_thread() is threads[0]:
            mover_there.set()
            assert back_locked.wait(PATIENCE), "coming back never locked the lower game"
        found = fetch_game(conn, game_id, lock=lock)
        if threading.current_thread() is threads[1] and game_id == lower["id"]:
            back_locked.set()
        return found

    monkeypatch.setattr(absence, "fetch_game", gated)

    def guarded(work: Callable[[], object]) -> Callable[[], None]:
        def go() -> None:
            try:
                work()
            except BaseException as exc:  # reported below
                errors.append(exc)

        return go

    def move() -> None:
        make_move(services, user, Move(higher["id"], higher["legal"][0], higher["version"]))

    def come_back() -> None:
        assert mover_there.wait(PATIENCE), "the move never reached the absence's games"
        write(services, lambda conn: absence.come_back(conn, user.id, now()))

    threads = [threading.Thread(target=guarded(move)), threading.Thread(target=guarded(come_back))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    assert fetch(client, higher["id"], alice)["version"] > higher["version"]
    shown = client.get(f"{API}/users/me/vacation", headers=alice).json()
    assert shown["away_until"] is None


def test_a_move_that_keeps_the_turn_answers_the_deadline_coming_back_gave(
    client: TestClient, make_user: MakeUser, services: Services, site_clock: TimeMachineFixture
) -> None:
    """The absence ends after the move has committed; the mover's answer still shows the
    game as that left it: still their turn, an hour from now, saved by vacation."""
    game, players, late, away_until = saved_by_absence(client, make_user, services, site_clock)
    game = fetch(client, game["id"], players[late])
    again = next(a for a in game["legal"] if a["type"] != "score")
    played = client.post(
        f"{API}/games/{game['id']}/actions",
        json={"action": again, "expected_version": game["version"]},
        headers=players[late],
    )
    assert played.status_code == 200, played.text
    answer = played.json()
    assert answer["to_act"] == late and answer["seats"][late]["away_until"] is None
    hour_on = datetime.now(UTC) + timedelta(seconds=FLOATING_HOUR)
    clock = answer["clock"]["seats"][late]
    assert moment(clock["deadline"]) == hour_on < away_until
    assert clock["saved_by"] == "vacation"
    assert fetch(client, game["id"], players[1 - late])["clock"]["seats"][late] == clock
    shown = client.get(f"{API}/users/me/vacation", headers=players[late]).json()
    assert shown["away_until"] is None and moment(shown["vacation_until"]) == hour_on


def test_coming_back_names_the_variant_of_each_game_it_moved(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    body = {"game": "boatzee", "seats": ["me", "bob"], "pace": "daily", "options": {"columns": 2}}
    game = create(client, alice, body)
    assert client.post(f"{API}/games/{game['id']}/accept", headers=bob).status_code == 200
    away = go_away(client, alice, datetime.now(UTC) + timedelta(days=2))
    away_until = moment(away.json()["away_until"])
    # As the sweeper leaves a game whose clock ran out during the absence. A write
    # transaction from the start: reading first and then writing fails on SQLite if the
    # site wrote in between (its notice deliveries run in the background).
    with services.write_conn() as conn:
        record = fetch_game(conn, game["id"])
        assert record.clock is not None and record.to_act == 0
        saved = Clock.loads(record.clock).extended_to(away_until, "away")
        conn.execute(
            update(GameRow)
            .where(GameRow.id == game["id"])
            .values(clock=saved.dumps(), deadline=away_until)
        )
    assert client.delete(f"{API}/users/me/away", headers=alice).status_code == 200
    notices = client.get(f"{API}/notifications", headers=alice).json()["notifications"]
    assert notices[0]["text"].startswith(
        f"You are back: your deadline in Double Boatzee (game {game['id']})"
    )
