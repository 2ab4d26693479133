"""Against a real server process: concurrent moves, retries, and a SIGKILL mid-load."""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx2
import pytest

from dicehall import games
from dicehall.engine import codec
from dicehall.engine.events import decode_event, replay
from dicehall.server.core.models import EventRow, GameRow
from dicehall.server.domain.services import Services, build_services
from tests.live import LiveServer, add_user
from tests.server.conftest import site_settings
from tests.server.pig_entry import PIG_PLUGIN, register_pig
from tests.waiting import wait_until

register_pig()
API = "/api/v1"


@pytest.fixture
def live(db_url: str) -> Iterator[tuple[LiveServer, Services]]:
    server = LiveServer(db_url, plugins=PIG_PLUGIN)
    server.start()
    services = build_services(site_settings(db_url))
    try:
        yield server, services
    finally:
        server.stop()
        services.engine.dispose()


def new_game(client: httpx2.Client, headers: dict[str, str], target: int = 100) -> Any:
    response = client.post(
        f"{API}/games",
        json={"game": "pig", "seats": ["me", "bot:random"], "options": {"target": target}},
        headers=headers,
    )
    assert response.status_code == 201, response.text
    return response.json()


@pytest.mark.both_databases
def test_concurrent_posts_of_one_version_apply_once(live: tuple[LiveServer, Services]) -> None:
    server, services = live
    alice = add_user(services, "alice")
    with httpx2.Client(base_url=server.base, timeout=30) as client:
        for round_ in range(5):
            game = new_game(client, alice)
            body = {"action": {"type": "roll_again"}, "expected_version": game["version"]}
            barrier = threading.Barrier(4)

            def post(_: int, body: Any = body, game: Any = game, barrier: Any = barrier) -> int:
                barrier.wait()
                url = f"{API}/games/{game['id']}/actions"
                return client.post(url, json=body, headers=alice).status_code

            with ThreadPoolExecutor(4) as pool:
                codes = sorted(pool.map(post, range(4)))
            assert codes == [200, 409, 409, 409], (round_, codes)
            after = client.get(f"{API}/games/{game['id']}", headers=alice).json()
            assert after["version"] > game["version"]

            # the same idempotency key from four threads: one move, four equal answers
            key_body = {"action": {"type": "hold"}, "expected_version": after["version"]}
            barrier2 = threading.Barrier(4)

            def post_key(
                _: int,
                after: Any = after,
                body: Any = key_body,
                gate: Any = barrier2,
                n: int = round_,
            ) -> Any:
                gate.wait()
                url = f"{API}/games/{after['id']}/actions"
                headers = {**alice, "Idempotency-Key": f"key-{n}"}
                response = client.post(url, json=body, headers=headers)
                return response.status_code, response.json()["version"]

            with ThreadPoolExecutor(4) as pool:
                answers = list(pool.map(post_key, range(4)))
            assert {code for code, _ in answers} == {200}
            assert len({version for _, version in answers}) == 1


def _verify_replays(services: Services) -> int:
    """Every stored game replays from its log to exactly its snapshot."""
    checked = 0
    with services.sessions() as db:
        for row in db.query(GameRow).filter(GameRow.snapshot.is_not(None)):
            game = games.get(row.kind).game
            events = [
                decode_event(game, codec.loads(e.data, Any))
                for e in db.query(EventRow).filter_by(game_id=row.id).order_by(EventRow.seq)
            ]
            options = codec.loads(row.options, game.options_type)
            assert replay(game, row.seats, options, events) == codec.loads(
                row.snapshot or "", game.state_type
            ), f"game {row.id} does not replay to its snapshot"
            checked += 1
    return checked


@pytest.mark.both_databases
def test_sigkill_during_load_loses_no_acknowledged_move(db_url: str) -> None:
    server = LiveServer(db_url, plugins=PIG_PLUGIN)
    server.start()
    services = build_services(site_settings(db_url))
    players = [add_user(services, f"player{i}") for i in range(6)]
    acknowledged: dict[int, int] = {}
    lock = threading.Lock()
    stop = threading.Event()

    def play(headers: dict[str, str], seed: int) -> None:
        rng = random.Random(seed)
        with httpx2.Client(base_url=server.base, timeout=5) as client:
            try:
                game = new_game(client, headers, target=60)
                while not stop.is_set():
                    if game["status"] == "finished":
                        game = new_game(client, headers, target=60)
                        continue
                    action = rng.choice(game["legal"])
                    body = {"action": action, "expected_version": game["version"]}
                    response = client.post(
                        f"{API}/games/{game['id']}/actions", json=body, headers=headers
                    )
                    if response.status_code != 200:
                        raise AssertionError(response.text)
                    game = response.json()
                    with lock:
                        acknowledged[game["id"]] = max(
                            acknowledged.get(game["id"], 0), game["version"]
                        )
            except (httpx2.HTTPError, AssertionError, KeyError):
                return  # the server died under us; what was acknowledged is recorded

    threads = [threading.Thread(target=play, args=(p, i)) for i, p in enumerate(players)]
    try:
        for thread in threads:
            thread.start()

        def in_full_flow() -> bool:
            # Well past the 20 moves checked below (2.5 s gives ~200), or every player gave
            # up (that check then fails).
            with lock:
                moves = sum(acknowledged.values())
            return moves > 100 or not any(thread.is_alive() for thread in threads)

        wait_until(in_full_flow, timeout=60, what="100 moves acknowledged under load")
        server.kill()
        stop.set()
        for thread in threads:
            thread.join(timeout=20)
        assert sum(acknowledged.values()) > 20, "the load did not get going"
        server.start()
        with httpx2.Client(base_url=server.base, timeout=10) as client:
            for game_id, version in acknowledged.items():
                stored = client.get(f"{API}/games/{game_id}").json()
                assert stored["version"] >= version, (game_id, stored["version"], version)
        assert _verify_replays(services) >= len(acknowledged)
    finally:
        stop.set()
        server.stop()
        services.engine.dispose()
