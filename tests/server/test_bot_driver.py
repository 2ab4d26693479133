"""Slow bots and long bot-only stretches are played by the bot driver, never in a request."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update

from dicehall import games
from dicehall.server.core.clock import now
from dicehall.server.core.models import GameRow
from dicehall.server.domain.games import bot_turns, play
from dicehall.server.domain.services import Services
from dicehall.server.workers.driver import BotDriver
from tests.server.conftest import Headers, MakeUser
from tests.server.pig_entry import SLOW_BOT, register_pig
from tests.server.test_cache_safety import check_every_game
from tests.waiting import WaitTimeout, wait_until

register_pig()

API = "/api/v1"


def wait_for(client: TestClient, headers: Headers, game_id: int, done: Any, seconds: float) -> Any:
    """Poll the game until ``done(payload)``; fail after ``seconds``."""
    seen: list[Any] = []

    def reached() -> Any:
        game = client.get(f"{API}/games/{game_id}", headers=headers).json()
        seen[:] = [game]
        return game if done(game) else None

    try:
        return wait_until(reached, timeout=seconds, what=f"game {game_id} to move on")
    except WaitTimeout as stuck:
        raise AssertionError(f"game {game_id} stuck: {seen[-1]}") from stuck


def test_a_slow_bot_moves_after_the_request_and_the_board_is_told(
    client: TestClient, services: Services, make_user: MakeUser
) -> None:
    me = make_user("alice")
    body = {"game": "boss", "seats": ["bot:equilibrium", "me"], "options": {"horses": 1}}
    created = client.post(f"{API}/games", json=body, headers=me)
    assert created.status_code == 201, created.text
    game = created.json()
    if not game["your_turn"]:
        turn = game["bot_turn"]
        assert turn is not None and turn["bot"] == "equilibrium" and turn["slow"]
        assert turn["warming_up"] in (True, False) and game["legal"] == []
    game = wait_for(client, me, game["id"], lambda g: g["your_turn"] or g["status"] != "active", 60)
    assert game["bot_turn"] is None
    check_every_game(client, services, {"alice": me})


def test_bot_only_play_goes_on_in_bounded_slices(
    client: TestClient, services: Services, make_user: MakeUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(play, "MAX_ADVANCE_STEPS", 3)
    me = make_user("alice")
    body = {"game": "pig", "seats": ["me", "bot:random", "bot:random"], "options": {"target": 60}}
    game = client.post(f"{API}/games", json=body, headers=me).json()
    sliced = 0
    for _ in range(200):
        game = wait_for(client, me, game["id"], lambda g: g["bot_turn"] is None, 30)
        if game["status"] == "finished":
            break
        action = {"type": "hold"} if game["view"]["turn_total"] >= 10 else {"type": "roll_again"}
        response = client.post(
            f"{API}/games/{game['id']}/actions",
            json={"action": action, "expected_version": game["version"]},
            headers=me,
        )
        assert response.status_code == 200, response.text
        sliced += response.json()["bot_turn"] is not None
    assert game["status"] == "finished"
    assert sliced, "no move left bot play to the driver"
    check_every_game(client, services, {"alice": me})


def test_holdem_with_only_bots_left_plays_out_in_the_background(
    client: TestClient, services: Services, make_user: MakeUser
) -> None:
    me = make_user("alice")
    seats = ["me"] + ["bot:random"] * 5
    body = {"game": "holdem", "seats": seats, "options": {"stack": 200}}
    game = client.post(f"{API}/games", json=body, headers=me).json()
    deadline = time.monotonic() + 120
    while game["status"] == "active":
        assert time.monotonic() < deadline, "the game never ended"
        game = wait_for(
            client, me, game["id"], lambda g: g["your_turn"] or g["status"] != "active", 60
        )
        if game["status"] != "active":
            break
        shove = [a for a in game["legal"] if a["type"] in {"all_in", "call", "check"}]
        started = time.monotonic()
        response = client.post(
            f"{API}/games/{game['id']}/actions",
            json={"action": shove[0], "expected_version": game["version"]},
            headers=me,
        )
        assert response.status_code == 200, response.text
        assert time.monotonic() - started < 5, "a request played on too long"
        game = response.json()
    assert game["status"] == "finished"
    check_every_game(client, services, {"alice": me})


def test_warm_ups_leave_a_worker_free_and_start_with_the_quickest(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With two bot workers one build runs at a time, the quickest first, so decisions never
    queue behind the long builds. Every installed game's slow bots are warmed, a plug-in's
    (Pig's, registered by hand) too."""
    two = services.settings.model_copy(update={"bot_workers": 2})
    driver = BotDriver(replace(services, settings=two))
    submitted: list[tuple[str, str]] = []
    builds: list[asyncio.Future[float]] = []
    cold = {
        (kind, bot): slow.cold_seconds
        for kind in games.available()
        for bot, slow in games.get(kind).slow_bots.items()
    }
    assert ("pig", SLOW_BOT) in cold

    async def scenario() -> None:
        loop = asyncio.get_running_loop()

        def fake_submit(_fn: Any, kind: str, bot: str, *_args: Any) -> asyncio.Future[float]:
            submitted.append((kind, bot))
            builds.append(loop.create_future())
            return builds[-1]

        monkeypatch.setattr(driver, "_submit", fake_submit)
        driver.warm_all()
        assert len(submitted) == 1
        for count in range(2, len(cold) + 1):
            assert driver._warm_queue
            builds[-1].set_result(0.1)
            await asyncio.sleep(0)
            assert len(submitted) == count
        assert not driver._warm_queue

    asyncio.run(scenario())
    assert sorted(submitted) == sorted(cold)
    assert [cold[key] for key in submitted] == sorted(cold.values())


@pytest.mark.parametrize("wakes", [0, 1, 5])
def test_the_driver_stops_even_when_woken_as_it_is_cancelled(
    services: Services, wakes: int
) -> None:
    """A kick arriving in the same step as the stop must not keep the driver's loop alive
    (Python 3.11's ``wait_for`` swallowed such a cancellation and shutdown hung)."""

    async def scenario() -> None:
        driver = BotDriver(services)
        await driver.start()
        for _ in range(3):
            await asyncio.sleep(0)  # the loop is now waiting to be woken
        for _ in range(wakes):
            driver.kick()
            assert driver._wake is not None
            driver._wake.set()
        stopping = asyncio.ensure_future(driver.stop())
        done, _ = await asyncio.wait({stopping}, timeout=30)
        assert done, "stopping the driver hung"
        assert driver._task is not None and driver._task.done()

    asyncio.run(scenario())


def test_a_lease_is_renewed_only_while_it_is_held(
    client: TestClient, services: Services, make_user: MakeUser
) -> None:
    me = make_user("alice")
    body = {"game": "boss", "seats": ["me", "bot:random"], "options": {"horses": 1}}
    game_id = client.post(f"{API}/games", json=body, headers=me).json()["id"]
    start = now()
    with services.write_conn() as conn:
        conn.execute(update(GameRow).where(GameRow.id == game_id).values(bot_due=True))
        assert bot_turns.claim_game(conn, game_id, start, start + timedelta(seconds=15))
        # Held: renewed; a second claim meanwhile fails.
        later = start + timedelta(seconds=5)
        assert bot_turns.renew_game(conn, game_id, later, later + timedelta(seconds=15))
        assert not bot_turns.claim_game(conn, game_id, later, later + timedelta(seconds=15))
        # Run out (the driver died): not renewed, and free to claim.
        gone = later + timedelta(seconds=16)
        assert not bot_turns.renew_game(conn, game_id, gone, gone + timedelta(seconds=15))
        assert bot_turns.claim_game(conn, game_id, gone, gone + timedelta(seconds=15))
        bot_turns.release_game(conn, game_id)
        assert not bot_turns.renew_game(conn, game_id, gone, gone + timedelta(seconds=15))
