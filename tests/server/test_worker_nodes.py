"""Web processes without background work (``dicehall serve --no-background``) beside a
``dicehall worker``: the worker plays the bots' turns, the web process says from the
worker's reports whether a bot is warming up, and on PostgreSQL the move's commit wakes the
worker at once (its poll is set to a minute, so only the wake-up can be that quick)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx2
import pytest

from dicehall.server.domain import bot_tables
from dicehall.server.domain.services import Services, build_services
from tests.live import LiveServer, LiveWorker, add_user
from tests.server.conftest import site_settings
from tests.waiting import wait_until

API = "/api/v1"
#: A slow bot with a short build: Boss Dice's equilibrium (declared 3 s cold).
BODY = {"game": "boss", "seats": ["me", "bot:equilibrium"], "options": {"horses": 1}}


@pytest.fixture
def web(db_url: str) -> Iterator[tuple[LiveServer, Services]]:
    server = LiveServer(db_url, background=False)
    server.start()
    services = build_services(site_settings(db_url))
    try:
        yield server, services
    finally:
        server.stop()
        services.engine.dispose()


def game_of(client: httpx2.Client, headers: dict[str, str], game_id: int) -> Any:
    answer = client.get(f"{API}/games/{game_id}", headers=headers)
    assert answer.status_code == 200, answer.text
    return answer.json()


def bot_to_move(client: httpx2.Client, headers: dict[str, str]) -> Any:
    """A new game where the slow bot moves next (the player passes the first turn to it)."""
    for _ in range(10):
        created = client.post(f"{API}/games", json=BODY, headers=headers)
        assert created.status_code == 201, created.text
        game = created.json()
        if game["bot_turn"] is not None:
            return game
        # The player moves first: play the first legal action, then the bot is due.
        moved = client.post(
            f"{API}/games/{game['id']}/actions",
            json={"action": game["legal"][0], "expected_version": game["version"]},
            headers=headers,
        ).json()
        if moved.get("bot_turn") is not None:
            return moved
    raise AssertionError("no game left the bot to move")


@pytest.mark.both_databases
def test_a_worker_plays_the_bots_of_web_processes_without_background(
    web: tuple[LiveServer, Services], db_url: str
) -> None:
    server, services = web
    alice = add_user(services, "alice")
    postgres = db_url.startswith("postgresql")
    # On PostgreSQL the worker looks for due games only once a minute by itself.
    environ = {"DICEHALL_DRIVER_POLL_SECONDS": "60"} if postgres else {}
    worker = LiveWorker(db_url, environ=environ)
    with httpx2.Client(base_url=server.base, timeout=30) as client:
        game = bot_to_move(client, alice)
        version = game["version"]
        turn = game["bot_turn"]
        # Nobody has built the bot's tables: the web process says so, from no report.
        assert turn["bot"] == "equilibrium" and turn["warming_up"] is True and turn["eta_s"] >= 1
        # No process of the web server plays it.
        assert game_of(client, alice, game["id"])["version"] == version
        worker.start()
        try:
            if postgres:
                # Due before the worker started: found when it starts listening. A second
                # game made now is found only through the commit's wake-up.
                second = bot_to_move(client, alice)
                wait_until(
                    lambda: game_of(client, alice, second["id"])["version"] > second["version"],
                    timeout=40,
                    what="the worker to play the new game's bot, woken by the commit",
                )
            wait_until(
                lambda: game_of(client, alice, game["id"])["version"] > version,
                timeout=60,
                what="the worker to play the bot",
            )

            def reported_ready() -> bool:
                with services.read_conn() as conn:
                    return any(w.ready_at for k, w in bot_tables.every(conn).items())

            wait_until(reported_ready, timeout=30, what="the worker to report the bot ready")
            # The web process reads the report within its refresh (a game a try, few enough
            # for the quota on new games).
            wait_until(
                lambda: bot_to_move(client, alice)["bot_turn"]["warming_up"] is False,
                timeout=20,
                interval=1.5,
                what="the web process to say the bot is warm",
            )
        finally:
            assert worker.stop() == 0, worker.log_tail()
