"""Operations: JSON access lines, request ids, /metrics, /healthz and /readyz."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import os
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, func, select

from dicehall.server.app import create_app
from dicehall.server.core.models import DiceCursor, DiceSet
from dicehall.server.domain.services import Services, build_services
from dicehall.server.http import health
from dicehall.server.http.accesslog import JsonFormatter, access_log_enabled, serve_log_config
from tests.server.conftest import Headers, MakeUser, site_settings
from tests.server.pig_entry import register_pig
from tests.server.test_redis_isolation import DEAD_REDIS, REDIS_URL, need_redis
from tests.waiting import wait_until

register_pig()

API = "/api/v1"
ACCESS = "dicehall.access"
FIELDS = {"request_id", "type", "user_id", "method", "route", "status", "duration_ms"}


@pytest.fixture
def access(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    """The access lines, as records (INFO and up)."""
    caplog.set_level(logging.INFO, logger=ACCESS)
    return caplog


def lines(caplog: pytest.LogCaptureFixture, **match: Any) -> list[dict[str, Any]]:
    """The access lines (as the JSON formatter writes them) whose fields match ``match``."""
    found = []
    for record in caplog.records:
        if record.name != ACCESS:
            continue
        line = json.loads(JsonFormatter().format(record))
        if all(line.get(key) == value for key, value in match.items()):
            found.append(line)
    return found


def new_game(client: TestClient, headers: Headers) -> Any:
    response = client.post(
        f"{API}/games",
        json={"game": "pig", "seats": ["me", "bot:random"], "options": {"target": 100}},
        headers=headers,
    )
    assert response.status_code == 201, response.text
    return response.json()


def sample(text: str, name: str, **labels: str) -> float | None:
    """The value of one sample in Prometheus' text format, or None."""
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        head, _, value = line.rpartition(" ")
        metric, _, rest = head.partition("{")
        found = dict(re.findall(r'(\w+)="([^"]*)"', rest))
        if metric == name and found == labels:
            return float(value)
    return None


# -- access lines and request ids ---------------------------------------------------------


def test_a_request_logs_one_json_line_with_the_route_template(
    client: TestClient, make_user: MakeUser, access: pytest.LogCaptureFixture
) -> None:
    alice = make_user("alice")
    game = new_game(client, alice)
    access.clear()
    response = client.get(f"{API}/games/{game['id']}", headers=alice)
    assert response.status_code == 200
    [line] = lines(access)
    assert line.keys() >= FIELDS
    assert line["route"] == "/api/v1/games/{game_id}"
    assert f"/games/{game['id']}" not in json.dumps(line)  # the template, never the raw path
    assert (line["method"], line["status"], line["user_id"]) == ("GET", 200, "alice")
    assert line["type"] == "http" and line["level"] == "info" and line["logger"] == ACCESS
    assert isinstance(line["duration_ms"], float) and line["duration_ms"] >= 0
    assert line["request_id"] == response.headers["x-request-id"]


def test_the_user_is_logged_for_a_move_and_null_for_a_visitor(
    client: TestClient, make_user: MakeUser, access: pytest.LogCaptureFixture
) -> None:
    alice = make_user("alice")
    game = new_game(client, alice)
    moved = client.post(
        f"{API}/games/{game['id']}/actions",
        json={"action": {"type": "roll_again"}, "expected_version": game["version"]},
        headers=alice,
    )
    assert moved.status_code == 200, moved.text
    [line] = lines(access, route="/api/v1/games/{game_id}/actions")
    assert (line["method"], line["status"], line["user_id"]) == ("POST", 200, "alice")
    client.get(f"{API}/games/kinds")
    [kinds] = lines(access, route="/api/v1/games/kinds")
    assert kinds["user_id"] is None
    client.get("/no/such/page")
    [missing] = lines(access, status=404)
    assert missing["route"] is None and "no/such" not in json.dumps(missing)


def test_a_page_logs_the_signed_in_browser_user(
    client: TestClient, access: pytest.LogCaptureFixture
) -> None:
    body = {"user_id": "carol", "password": "correct horse battery"}
    assert client.post(f"{API}/auth/signup", json=body).status_code == 201
    assert client.get("/").status_code == 200
    [home] = lines(access, route="/")
    assert home["user_id"] == "carol"


def test_a_sane_request_id_is_echoed_and_others_replaced(
    client: TestClient, access: pytest.LogCaptureFixture
) -> None:
    sent = "req-42.abc:7_X"
    response = client.get(f"{API}/games/kinds", headers={"X-Request-ID": sent})
    assert response.headers["x-request-id"] == sent
    assert lines(access, request_id=sent)
    for bad in (b"has space", b"x" * 65, "new\u00e9".encode(), b"a/b", b""):
        answered = client.get(f"{API}/games/kinds", headers={b"X-Request-ID": bad})
        assert re.fullmatch(r"[0-9a-f]{32}", answered.headers["x-request-id"])
    ids = {client.get("/healthz").headers["x-request-id"] for _ in range(3)}
    assert len(ids) == 3


def test_refusals_before_routing_carry_an_id_and_a_line(
    client: TestClient, access: pytest.LogCaptureFixture
) -> None:
    response = client.post(f"{API}/games", content=b"x" * 70000, headers={"X-Request-ID": "big"})
    assert response.status_code == 413
    assert response.headers["x-request-id"] == "big"
    [line] = lines(access, request_id="big")
    assert line["status"] == 413


def test_a_websocket_logs_one_line_when_it_ends(
    client: TestClient, make_user: MakeUser, access: pytest.LogCaptureFixture
) -> None:
    bob = make_user("bob")
    with client.websocket_connect(f"{API}/ws", headers={**bob, "X-Request-ID": "sock-1"}) as ws:
        assert ws.receive_json() == {"type": "hello"}
        assert sample(client.get("/metrics").text, "dicehall_websocket_connections_open") == 1
    wait_until(lambda: lines(access, type="websocket"), timeout=5, what="the socket's line")
    [line] = lines(access, type="websocket")
    assert line.keys() >= FIELDS
    assert (line["route"], line["user_id"], line["status"]) == ("/api/v1/ws", "bob", 101)
    assert line["request_id"] == "sock-1" and line["close_code"] is not None
    assert sample(client.get("/metrics").text, "dicehall_websocket_connections_open") == 0


def test_probes_are_logged_at_debug_only(
    client: TestClient, access: pytest.LogCaptureFixture
) -> None:
    for path in ("/healthz", "/readyz", "/metrics"):
        assert client.get(path).status_code == 200
    assert lines(access) == []
    access.set_level(logging.DEBUG, logger=ACCESS)
    client.get("/healthz")
    [line] = lines(access, route="/healthz")
    assert line["level"] == "debug"


def test_access_lines_can_be_turned_off(
    services: Services, monkeypatch: pytest.MonkeyPatch, access: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("DICEHALL_ACCESS_LOG", "0")
    client = TestClient(create_app(services=services))
    response = client.get(f"{API}/games/kinds")
    assert response.status_code == 200 and response.headers["x-request-id"]
    assert lines(access) == []
    assert access_log_enabled({}) and access_log_enabled({"DICEHALL_ACCESS_LOG": "1"})
    for off in ("0", "false", "No", "off"):
        assert not access_log_enabled({"DICEHALL_ACCESS_LOG": off})


def test_the_formatter_writes_one_json_object_per_record() -> None:
    try:
        raise ValueError("boom")
    except ValueError:
        record = logging.LogRecord("dicehall.x", logging.ERROR, __file__, 1, "a %s", ("b",), None)
        record.exc_info = sys.exc_info()
    line = json.loads(JsonFormatter().format(record))
    assert (line["msg"], line["level"], line["logger"]) == ("a b", "error", "dicehall.x")
    assert "ValueError: boom" in line["exc"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", line["ts"])
    config = serve_log_config()
    assert config["loggers"]["dicehall"]["level"] == "INFO"
    assert config["handlers"]["dicehall_json"]["stream"] == "ext://sys.stderr"
    assert "uvicorn" in config["loggers"]  # uvicorn's own configuration is kept


# -- metrics -------------------------------------------------------------------------------


def _reserve_in_database(services: Services) -> int:
    """Committed dice sets not served yet, read straight from the tables."""
    with services.read_conn() as conn:
        last = conn.execute(select(func.max(DiceSet.id))).scalar_one()
        cursor = conn.execute(select(DiceCursor.next_set)).scalar_one()
    return int(last) - int(cursor) + 1


@pytest.mark.both_databases
def test_metrics_name_every_number_and_count_a_move(
    client: TestClient, make_user: MakeUser, services: Services
) -> None:
    alice = make_user("alice")
    game = new_game(client, alice)
    moved = client.post(
        f"{API}/games/{game['id']}/actions",
        json={"action": {"type": "roll_again"}, "expected_version": game["version"]},
        headers=alice,
    )
    assert moved.status_code == 200, moved.text
    before = _reserve_in_database(services)
    response = client.get("/metrics")
    after = _reserve_in_database(services)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain; version=0.0.4")
    text = response.text
    for name in (
        "dicehall_http_request_duration_seconds",
        "dicehall_move_duration_seconds",
        "dicehall_websocket_connections_open",
        "dicehall_games_in_progress",
        "dicehall_dice_reserve_sets",
        "dicehall_bot_games_driving",
        "dicehall_bot_tasks_pending",
        "dicehall_clock_sweeps_total",
    ):
        assert f"# TYPE {name} " in text, name
    assert sample(text, "dicehall_move_duration_seconds_count", status="2xx") == 1
    route = "/api/v1/games/{game_id}/actions"
    labels = {"route": route, "method": "POST", "status": "2xx"}
    assert sample(text, "dicehall_http_request_duration_seconds_count", **labels) == 1
    assert sample(text, "dicehall_games_in_progress") == 1
    # The pool refiller may commit sets while the page is built: bracket the gauge.
    reserve = sample(text, "dicehall_dice_reserve_sets")
    assert reserve is not None and 0 < before <= reserve <= after
    assert sample(text, "dicehall_bot_games_driving") is not None
    assert sample(text, "dicehall_bot_tasks_pending") is not None
    assert sample(text, "dicehall_clock_sweeps_total") is not None


def test_each_app_counts_in_its_own_registry(client: TestClient, services: Services) -> None:
    client.get(f"{API}/games/kinds")
    other = TestClient(create_app(services=services))
    labels = {"route": "/api/v1/games/kinds", "method": "GET", "status": "2xx"}
    name = "dicehall_http_request_duration_seconds_count"
    assert sample(client.get("/metrics").text, name, **labels) == 1
    assert sample(other.get("/metrics").text, name, **labels) is None


def test_openmetrics_is_served_when_asked(client: TestClient) -> None:
    response = client.get("/metrics", headers={"Accept": "application/openmetrics-text"})
    assert response.headers["content-type"].startswith("application/openmetrics-text")
    assert response.text.rstrip().endswith("# EOF")


# -- health --------------------------------------------------------------------------------


def test_healthz_and_readyz(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
    ready = client.get("/readyz")
    assert ready.status_code == 200
    assert ready.json() == {"status": "ok", "database": "ok", "redis": None}
    for path in ("/healthz", "/readyz", "/metrics"):
        assert path not in client.get(f"{API}/openapi.json").json()["paths"]


@pytest.mark.both_databases
def test_readyz_is_503_when_the_database_is_unreachable(
    services: Services, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    url = services.engine.url
    if url.get_backend_name() == "sqlite":
        dead = create_engine(f"sqlite:///{tmp_path}/missing/dir/site.sqlite3")
    else:
        dead = create_engine(url.set(port=1))  # nothing listens there
    try:
        app = create_app(services=dataclasses.replace(services, engine=dead))
        response = TestClient(app).get("/readyz")
    finally:
        dead.dispose()
    assert response.status_code == 503
    assert response.json() == {"status": "unavailable", "database": "unavailable", "redis": None}
    assert "readiness: the database is unavailable" in caplog.text
    assert TestClient(app).get("/healthz").status_code == 200  # the process still runs


@pytest.fixture
def dead_redis(db_url: str) -> Iterator[Services]:
    built = build_services(site_settings(db_url, redis_url=DEAD_REDIS))
    try:
        yield built
    finally:
        built.engine.dispose()


def test_readyz_is_503_when_redis_does_not_answer(dead_redis: Services) -> None:
    started = time.monotonic()
    response = TestClient(create_app(services=dead_redis)).get("/readyz")
    assert response.status_code == 503
    assert response.json() == {"status": "unavailable", "database": "ok", "redis": "unavailable"}
    assert time.monotonic() - started < 5


def test_readyz_with_a_live_redis(services: Services) -> None:
    need_redis()
    settings = services.settings.model_copy(update={"redis_url": REDIS_URL})
    app = create_app(services=dataclasses.replace(services, settings=settings))
    response = TestClient(app).get("/readyz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "redis": "ok"}


def test_a_hanging_check_times_out_and_is_not_started_twice(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(health, "CHECK_SECONDS", 0.1)
    calls: list[float] = []
    release = threading.Event()

    def hang() -> None:
        calls.append(time.monotonic())
        release.wait(5)

    async def twice() -> list[str]:
        return [await health.probe("database", "hangs", hang) for _ in range(2)]

    try:
        assert asyncio.run(twice()) == ["timeout", "timeout"]
        assert len(calls) == 1
    finally:
        release.set()


# -- dicehall serve ------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.mark.slow
def test_serve_writes_json_access_lines_to_stderr(tmp_path: Path) -> None:
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    args = [sys.executable, "-m", "dicehall", "serve", "--db", f"sqlite:///{tmp_path}/s.sqlite3"]
    args += ["--port", str(port), "--workers", "2"]
    env = {**os.environ, "DICEHALL_WARM_BOTS": "0", "DICEHALL_BOT_WORKERS": "1"}
    env.pop("DICEHALL_ACCESS_LOG", None)
    stderr = tmp_path / "stderr.log"
    with stderr.open("wb") as sink:
        server = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=sink)
        try:

            def answers() -> bool:
                assert server.poll() is None, stderr.read_text()
                try:
                    return httpx2.get(f"{base}/healthz", timeout=1).status_code == 200
                except httpx2.HTTPError:
                    return False

            wait_until(answers, timeout=60, interval=0.1, what="the server to start")
            answer = httpx2.get(f"{base}/api/v1/games/kinds", headers={"X-Request-ID": "srv-1"})
            assert answer.headers["x-request-id"] == "srv-1"
            wait_until(
                lambda: b"srv-1" in stderr.read_bytes(), timeout=10, what="the request's line"
            )
        finally:
            server.terminate()
            server.wait(timeout=20)
    found = [
        json.loads(line)
        for line in stderr.read_text().splitlines()
        if line.startswith("{") and "srv-1" in line
    ]
    assert len(found) == 1, stderr.read_text()
    assert found[0]["route"] == "/api/v1/games/kinds" and found[0]["status"] == 200
    assert "/healthz" not in stderr.read_text()  # probes stay out of the INFO stream
