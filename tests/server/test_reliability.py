"""Reliability, shown and enforced: a profile counts games finished
and timeouts and gives the median time per turn over the last 200 turns; the limits on games
in progress and games waiting for players are settings, and a refusal names its code."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError
from sqlalchemy import insert, select
from time_machine import TimeMachineFixture

from dicehall.server.app import create_app
from dicehall.server.core.clock import now
from dicehall.server.core.config import Settings
from dicehall.server.core.models import GameRow, SeatTimeout, TurnTime, User
from dicehall.server.domain import reliability
from dicehall.server.domain.services import Services, build_services
from tests.live import add_user
from tests.server.conftest import Headers, MakeUser, site_settings
from tests.server.test_clocks import PAST_TINY, both_move, fetch, two_people

API = "/api/v1"


def profile(client: TestClient, user_id: str) -> Any:
    answer = client.get(f"{API}/users/{user_id}")
    assert answer.status_code == 200, answer.text
    return answer.json()


def user_pk(services: Services, user_id: str) -> int:
    with services.sessions() as db:
        pk = db.scalar(select(User.id).where(User.user_id == user_id))
        assert pk is not None
        return int(pk)


# -- shown ---------------------------------------------------------------------------------------


def test_a_new_player_has_nothing_to_show(client: TestClient, make_user: MakeUser) -> None:
    make_user("fresh")
    assert profile(client, "FRESH")["reliability"] == {
        "games_finished": 0,
        "timeouts": 0,
        "median_turn_seconds": None,
        "median_turn": None,
    }


def test_a_timeout_and_finished_games_show_on_both_profiles(
    client: TestClient, make_user: MakeUser, time_machine: TimeMachineFixture
) -> None:
    # The site's clock stands still until the test moves it past the late seat's deadline.
    time_machine.move_to(now(), tick=False)
    game, players = two_people(client, make_user, vacation=False)
    game = both_move(client, game, players)
    late = game["to_act"]
    names = {seat["seat"]: seat["user"] for seat in game["seats"]}
    time_machine.shift(PAST_TINY)
    assert fetch(client, game["id"], players[1 - late])["status"] == "finished"
    slow, prompt = profile(client, names[late]), profile(client, names[1 - late])
    assert slow["reliability"]["timeouts"] == 1 and prompt["reliability"]["timeouts"] == 0
    assert slow["reliability"]["games_finished"] == prompt["reliability"]["games_finished"] == 1
    # The prompt seat's turn passed on to the late one: it was timed.
    seconds = prompt["reliability"]["median_turn_seconds"]
    assert seconds is not None and 0 <= seconds < 3
    assert prompt["reliability"]["median_turn"] == f"{int(seconds)} s"


def test_the_median_is_over_the_last_200_turns_and_said_in_words(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    make_user("steady")
    make_user("other")
    pk, other = user_pk(services, "steady"), user_pk(services, "other")
    with services.write() as db:
        game_id = db.scalar(
            insert(GameRow)
            .values(
                kind="boss",
                options="{}",
                seats=2,
                status="finished",
                created_by=pk,
                created_at=now(),
                updated_at=now(),
            )
            .returning(GameRow.id)
        )
        moment = now()

        def turns(user: int, seconds: float, count: int) -> list[dict[str, Any]]:
            return [
                {"user_pk": user, "game_id": game_id, "seconds": seconds, "at": moment}
                for _ in range(count)
            ]

        # 300 old slow turns, then 200 recent ones: only the recent ones count.
        db.execute(insert(TurnTime), turns(pk, 90_000.0, 300))
        db.execute(insert(TurnTime), turns(pk, 7_500.0, 120) + turns(pk, 60.0, 80))
        db.execute(insert(TurnTime), turns(other, 5.0, 10))
        db.execute(
            insert(SeatTimeout),
            [
                {"game_id": game_id, "seat": 0, "version": v, "user_pk": pk, "at": moment}
                for v in range(3)
            ],
        )
    shown = profile(client, "steady")["reliability"]
    assert shown["median_turn_seconds"] == 7_500.0
    assert shown["median_turn"] == "2 h 5 min"
    assert shown["timeouts"] == 3
    assert shown["games_finished"] == 0  # the game has no seat of theirs
    with services.read_conn() as conn:
        assert len(reliability.recent_turns(conn, pk)) == reliability.RECENT_TURNS
        assert reliability.median_turn(conn, other) == 5.0


def test_the_profile_page_shows_reliability_and_links_the_history(
    client: TestClient, make_user: MakeUser
) -> None:
    game, players = two_people(client, make_user, vacation=False)
    both_move(client, game, players)
    page = client.get("/users/alice")
    assert page.status_code == 200
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page.text))
    assert "Games finished 0" in text and "Timeouts 0" in text
    assert "Time per turn" in text
    assert 'href="/users/alice/games"' in page.text


# -- enforced ------------------------------------------------------------------------------------


@pytest.fixture
def small(db_url: str) -> Iterator[tuple[TestClient, Services]]:
    """A site where a player may have 2 games in progress and 1 waiting for players."""
    built = build_services(site_settings(db_url, max_active_games=2, max_open_games=1))
    try:
        with TestClient(create_app(services=built)) as client:
            yield client, built
    finally:
        built.engine.dispose()


def _user(services: Services, name: str) -> Headers:
    return add_user(services, name, services.hasher.hash("correct horse battery"))


def _create(client: TestClient, headers: Headers, *seats: str) -> Any:
    return client.post(f"{API}/games", json={"game": "boss", "seats": list(seats)}, headers=headers)


def _refused(answer: Any, code: str) -> str:
    assert answer.status_code == 429, answer.text
    assert answer.json()["code"] == code, answer.json()
    return str(answer.json()["error"])


def test_games_in_progress_are_limited_by_the_setting(
    small: tuple[TestClient, Services],
) -> None:
    client, services = small
    alice, bob = _user(services, "alice"), _user(services, "bob")
    playing = [_create(client, alice, "me", "bot:random").json() for _ in range(2)]
    assert all(g["status"] == "active" for g in playing)
    message = _refused(_create(client, alice, "me", "bot:random"), "too_many_active_games")
    assert "you already play 2 games" in message
    # Joining a game counts too.
    waiting = _create(client, bob, "me", "open")
    assert waiting.status_code == 201, waiting.text
    join = f"{API}/games/{waiting.json()['id']}/join"
    _refused(client.post(join, json={}, headers=alice), "too_many_active_games")
    # Once one ends, there is room again.
    ended = client.post(
        f"{API}/games/{playing[0]['id']}/resign",
        json={"expected_version": playing[0]["version"]},
        headers=alice,
    )
    assert ended.status_code == 200 and ended.json()["status"] == "finished"
    assert client.post(join, json={}, headers=alice).status_code == 200


def test_games_waiting_for_players_are_limited_by_the_setting(
    small: tuple[TestClient, Services],
) -> None:
    client, services = small
    carol, dave = _user(services, "carol"), _user(services, "dave")
    assert _create(client, carol, "me", "open").status_code == 201
    message = _refused(_create(client, carol, "me", "open"), "too_many_open_games")
    assert "1 games waiting for players" in message
    theirs = _create(client, dave, "me", "open")
    assert theirs.status_code == 201
    joined = client.post(f"{API}/games/{theirs.json()['id']}/join", json={}, headers=carol)
    _refused(joined, "too_many_open_games")
    # A game against bots starts at once: it is not limited by the waiting room's quota.
    assert _create(client, carol, "me", "bot:random").status_code == 201


def test_the_new_game_page_obeys_the_setting_too(small: tuple[TestClient, Services]) -> None:
    client, _services = small
    page = client.get("/signup")
    token = re.search(r'name="csrf_token" value="([^"]*)"', page.text)
    assert token
    signed = client.post(
        "/signup",
        data={"csrf_token": token.group(1), "user_id": "erin", "password": "correct horse 42"},
        follow_redirects=False,
    )
    assert signed.status_code == 303
    csrf = re.search(r'name="csrf_token" value="([^"]*)"', client.get("/profile").text)
    assert csrf
    form = {"csrf_token": csrf.group(1), "opp1": "bot:random", "opt_horses": "1"}
    for _ in range(2):
        made = client.post("/new/boss", data=form, follow_redirects=False)
        assert made.status_code == 303, made.text
    refused = client.post("/new/boss", data=form, follow_redirects=False)
    assert refused.status_code == 422
    assert "You already play 2 games" in refused.text


def test_both_limits_are_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    assert (Settings().max_active_games, Settings().max_open_games) == (100, 10)
    monkeypatch.setenv("DICEHALL_MAX_ACTIVE_GAMES", "7")
    monkeypatch.setenv("DICEHALL_MAX_OPEN_GAMES", "3")
    settings = Settings()
    assert (settings.max_active_games, settings.max_open_games) == (7, 3)
    limits = reliability.limits_of(settings)
    assert (limits.active, limits.open) == (7, 3)
    monkeypatch.setenv("DICEHALL_MAX_ACTIVE_GAMES", "0")
    with pytest.raises(ValidationError):
        Settings()
