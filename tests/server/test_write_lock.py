"""The SQLite write lock has a deadline: a writer that cannot get it in time is answered 503
with Retry-After, reads go on, and nothing waits on the event loop."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from dicehall.server.app import create_app
from dicehall.server.core.writelock import Busy, WriteLock
from dicehall.server.domain.services import build_services
from tests.live import add_user
from tests.server.conftest import site_settings

API = "/api/v1"
BOSS = {"game": "boss", "seats": ["me", "bot:odds"]}


@contextmanager
def held_by_another_process(database: Path) -> Iterator[None]:
    """Another process holds the database's write lock until the block ends."""
    code = (
        "import sys, time; from pathlib import Path\n"
        "from dicehall.server.core.writelock import WriteLock\n"
        f"lock = WriteLock(Path({str(database)!r}), timeout=5)\n"
        "with lock:\n"
        "    print('held', flush=True)\n"
        "    sys.stdin.read()\n"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "held"
        yield
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait(timeout=10)


def test_a_lock_held_elsewhere_gives_busy_after_the_deadline(tmp_path: Path) -> None:
    database = tmp_path / "site.sqlite3"
    lock = WriteLock(database, timeout=0.3)
    with held_by_another_process(database):
        started = time.monotonic()
        with pytest.raises(Busy), lock:
            pass
        assert 0.25 <= time.monotonic() - started < 2
    with lock:  # free again once the other process lets go
        pass


def test_writes_answer_503_while_reads_go_on(tmp_path: Path) -> None:
    database = tmp_path / "site.sqlite3"
    services = build_services(site_settings(f"sqlite:///{database}", write_lock_timeout=0.5))
    try:
        with TestClient(create_app(services=services)) as client:
            alice = add_user(services, "alice")
            with held_by_another_process(database):
                started = time.monotonic()
                refused = client.post(
                    f"{API}/games",
                    json={"game": "boss", "seats": ["me", "bot:odds"]},
                    headers=alice,
                )
                assert refused.status_code == 503, refused.text
                assert refused.json()["code"] == "busy"
                assert refused.headers["Retry-After"].isdigit()
                assert time.monotonic() - started < 3
                assert client.get(f"{API}/games/kinds").status_code == 200
                assert client.get(f"{API}/games", headers=alice).json() == []
            created = client.post(f"{API}/games", json=BOSS, headers=alice)
            assert created.status_code == 201
    finally:
        services.engine.dispose()
