"""Two server processes on one PostgreSQL database and one Redis: every process sweeps for
clocks that ran out, and each timeout is applied exactly once."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx2
import pytest
from sqlalchemy import func, select

from dicehall.server.core.models import GameRow, SeatTimeout
from dicehall.server.domain.services import Services, build_services
from tests.live import LiveServer, add_user
from tests.server.conftest import fresh_postgres_db, site_settings
from tests.server.pig_entry import PIG_PLUGIN, register_pig
from tests.waiting import WaitTimeout, wait_until

register_pig()
API = "/api/v1"
REDIS_URL = "redis://127.0.0.1:6379/0"
GAMES = 12


def sweeps(server: LiveServer) -> int:
    """The clock sweeps the server's (only) process has finished, from its metrics."""
    text = httpx2.get(f"{server.base}/metrics", timeout=10).text
    found = re.search(r"^dicehall_clock_sweeps_total (\S+)$", text, re.MULTILINE)
    assert found is not None, text[-2000:]
    return int(float(found.group(1)))


def another_whole_sweep(*servers: LiveServer) -> None:
    """Wait until each server has swept once more from start to end (the sweep under way
    now may have begun earlier: two more must end)."""
    done = [sweeps(server) for server in servers]
    wait_until(
        lambda: all(sweeps(s) >= n + 2 for s, n in zip(servers, done, strict=True)),
        timeout=20,
        interval=0.1,
        what="two more clock sweeps on each server",
    )


@pytest.fixture
def two_servers(postgres_ok: bool) -> Iterator[tuple[LiveServer, LiveServer, Services]]:
    if not postgres_ok:
        pytest.fail("PostgreSQL must run for this test (127.0.0.1:5432)")
    url, drop = fresh_postgres_db()
    services = build_services(site_settings(url))
    servers = [LiveServer(url, redis_url=REDIS_URL, plugins=PIG_PLUGIN) for _ in range(2)]
    try:
        for server in servers:
            server.start()
        yield servers[0], servers[1], services
    finally:
        for server in servers:
            server.stop()
        services.engine.dispose()
        drop()


def test_each_timeout_is_applied_once_with_two_sweeping_servers(
    two_servers: tuple[LiveServer, LiveServer, Services],
) -> None:
    first, second, services = two_servers
    people = [add_user(services, f"player{i}") for i in range(2 * GAMES)]
    ids = []
    with httpx2.Client(timeout=30) as client:
        for n in range(GAMES):
            # Pairs meet on alternating servers; nobody moves, so each game times out.
            host, other = (first, second) if n % 2 else (second, first)
            creator, guest = people[2 * n], people[2 * n + 1]
            created = client.post(
                f"{host.base}{API}/games",
                json={
                    "game": "pig",
                    "seats": ["me", f"player{2 * n + 1}"],
                    "options": {"target": 1000},
                    "pace": {"initial": 2, "increment": 2, "cap": 2},
                    "vacation": False,
                },
                headers=creator,
            )
            assert created.status_code == 201, created.text
            game_id = created.json()["id"]
            accepted = client.post(f"{other.base}{API}/games/{game_id}/accept", headers=guest)
            assert accepted.status_code == 200, accepted.text
            ids.append(game_id)

    def ended() -> int:
        with services.sessions() as db:
            return int(
                db.scalar(
                    select(func.count())
                    .select_from(GameRow)
                    .where(GameRow.id.in_(ids), GameRow.status == "aborted")
                )
                or 0
            )

    try:
        wait_until(lambda: ended() == GAMES, timeout=20, what="every game to time out")
    except WaitTimeout:
        pytest.fail(f"{ended()} of {GAMES} ended\n{first.log_tail()}\n{second.log_tail()}")
    another_whole_sweep(first, second)  # nothing more may be applied
    with services.sessions() as db:
        counts = dict(
            db.execute(
                select(SeatTimeout.game_id, func.count())
                .where(SeatTimeout.game_id.in_(ids))
                .group_by(SeatTimeout.game_id)
            ).all()
        )
    assert counts == {game_id: 1 for game_id in ids}
    for server in (first, second):
        assert "Traceback" not in server.log_tail(100_000)
