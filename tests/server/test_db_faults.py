"""Database faults answer 503: a PostgreSQL session terminated under a request.

(Longer than most test modules: the faults are made at chosen statements in-process and at
random under a real server, and both share the same checks of what was stored.)

A read (GET, HEAD) that loses its connection is run once more on a fresh one; a write is
not, and answers 503 ``database_unavailable`` with a Retry-After, having changed nothing.
The sessions are ended the way an operator or a restart ends them (``pg_terminate_backend``),
at chosen statements in-process and at random under a real server's load.
"""

from __future__ import annotations

import json
import logging
import random
import sqlite3
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from functools import partial
from typing import Any

import httpx2
import psycopg
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, create_engine, event, func, select, text
from sqlalchemy.exc import DBAPIError

from dicehall.server.api.errors import DATABASE_RETRY_AFTER
from dicehall.server.app import create_app
from dicehall.server.core import db
from dicehall.server.core.models import EventRow, GameRow
from dicehall.server.domain.services import Services, build_services
from dicehall.server.http.accesslog import JsonFormatter
from tests.live import LiveServer, add_user, free_port
from tests.server.conftest import MakeUser, site_settings
from tests.server.pig_entry import PIG_PLUGIN, register_pig
from tests.server.test_live import _verify_replays
from tests.waiting import wait_until

register_pig()

API = "/api/v1"
#: These tests are about PostgreSQL's sessions: they run on it (and skip only where it is
#: not running, never in CI).
ON_POSTGRES = pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
#: The threads that run a TestClient's requests (the bot driver's are asyncio's own).
REQUEST_THREAD = "AnyIO worker thread"
DROPPED = "lost its database connection"
ACCESS = "dicehall.access"


class Terminator:
    """Ends sessions of the site's database, as an operator would, from a connection of its
    own to that database (which it spares)."""

    def __init__(self, db_url: str) -> None:
        self.conn = psycopg.connect(db_url, autocommit=True)
        self.lock = threading.Lock()

    def one(self, pid: int) -> None:
        """End session ``pid`` and wait until it has ended."""
        with self.lock:
            self.conn.execute("SELECT pg_terminate_backend(%s, 5000)", (pid,))

    def everyone(self) -> int:
        """End every other session of the database (waiting for each); how many there were."""
        with self.lock:
            rows = self.conn.execute(
                "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            ).fetchall()
        return len(rows)

    def close(self) -> None:
        self.conn.close()


@pytest.fixture
def terminator(db_url: str) -> Iterator[Terminator]:
    ending = Terminator(db_url)
    try:
        yield ending
    finally:
        ending.close()


@pytest.fixture
def no_idle_ping(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pooled connections are handed out unpinged, however long they sat idle: a terminated
    session is then found by the request's own statement, never replaced before it."""
    monkeypatch.setattr(db, "PING_AFTER_IDLE_SECONDS", 3600.0)


def _in_request() -> bool:
    return threading.current_thread().name.startswith(REQUEST_THREAD)


@contextmanager
def ended_at(
    engine: Engine, terminator: Terminator, where: str, times: int = 1
) -> Iterator[list[int]]:
    """End a request's session just as it is about to run its first statement (``"first"``),
    its first statement that starts with ``where`` otherwise, or, for ``"COMMIT"``, just
    before it commits; ``times`` times in all. Yields the list of the ended sessions."""
    ended: list[int] = []

    def due(statement: str) -> bool:
        return (
            len(ended) < times
            and _in_request()
            and (where == "first" or statement.lstrip().startswith(where))
        )

    def before_statement(conn: Any, cursor: Any, statement: str, *_: Any) -> None:
        if where != "COMMIT" and due(statement):
            ended.append(cursor.connection.info.backend_pid)
            terminator.one(ended[-1])

    def before_commit(conn: Any) -> None:
        if where == "COMMIT" and due("COMMIT"):
            ended.append(conn.connection.dbapi_connection.info.backend_pid)
            terminator.one(ended[-1])

    event.listen(engine, "before_cursor_execute", before_statement)
    event.listen(engine, "commit", before_commit)
    try:
        yield ended
    finally:
        event.remove(engine, "before_cursor_execute", before_statement)
        event.remove(engine, "commit", before_commit)


def new_game(client: TestClient, headers: dict[str, str]) -> Any:
    body = {"game": "pig", "seats": ["me", "bot:random"], "options": {"target": 100}}
    response = client.post(f"{API}/games", json=body, headers=headers)
    assert response.status_code == 201, response.text
    return response.json()


def stored(services: Services, game_id: int) -> tuple[int, int]:
    """A game's version and number of events, as stored."""
    with services.read_conn() as conn:
        version = conn.scalar(select(GameRow.version).where(GameRow.id == game_id))
        events = conn.scalar(select(func.count()).where(EventRow.game_id == game_id))
    assert version is not None and events is not None
    return int(version), int(events)


def unavailable(response: Any) -> None:
    """The answer to a request whose database connection dropped."""
    assert response.status_code == 503, response.text
    assert response.headers["Retry-After"] == str(DATABASE_RETRY_AFTER)


# -- recognising a dropped connection ---------------------------------------------------------


@ON_POSTGRES
def test_what_counts_as_a_dropped_connection(db_url: str, terminator: Terminator) -> None:
    engine = db.make_engine(db_url)
    try:
        with engine.connect() as conn:
            pid = conn.execute(text("SELECT pg_backend_pid()")).scalar()
            assert isinstance(pid, int)
            terminator.one(pid)
            with pytest.raises(DBAPIError) as terminated:
                conn.execute(text("SELECT 1"))
        assert terminated.value.connection_invalidated and db.is_disconnect(terminated.value)
        # A statement that is wrong, or one the server cancelled, is no dropped connection.
        with engine.connect() as conn, pytest.raises(DBAPIError) as wrong:
            conn.execute(text("SELECT 1 / 0"))
        assert not db.is_disconnect(wrong.value)
        with engine.connect() as conn, pytest.raises(DBAPIError) as cancelled:
            conn.execute(text("SET statement_timeout = 1"))
            conn.execute(text("SELECT pg_sleep(1)"))
        assert cancelled.value.orig.sqlstate == "57014"  # type: ignore[union-attr]
        assert not db.is_disconnect(cancelled.value)
    finally:
        engine.dispose()
    # Nobody listens: refused at connect, which SQLAlchemy does not mark as a disconnect.
    refused = db.make_engine(f"postgresql://postgres@127.0.0.1:{free_port()}/none")
    with pytest.raises(DBAPIError) as no_server, refused.connect():
        pass
    assert not no_server.value.connection_invalidated and db.is_disconnect(no_server.value)


def test_a_sqlite_file_that_cannot_be_opened_counts_as_dropped(tmp_path: Any) -> None:
    engine = create_engine(f"sqlite:///{tmp_path}/gone/site.sqlite3")
    with pytest.raises(DBAPIError) as cannot_open, engine.connect():
        pass
    orig = cannot_open.value.orig
    assert isinstance(orig, sqlite3.OperationalError)
    assert db.is_disconnect(cannot_open.value)
    memory = create_engine("sqlite://")
    with memory.connect() as conn, pytest.raises(DBAPIError) as no_table:
        conn.execute(text("SELECT * FROM nothing"))
    assert not db.is_disconnect(no_table.value)


def test_another_database_error_is_still_unexpected(
    services: Services, make_user: MakeUser, caplog: pytest.LogCaptureFixture
) -> None:
    alice = make_user("alice")
    broken: list[str] = []

    def broken_read(conn: Any, cursor: Any, statement: str, params: Any, *_: Any) -> Any:
        if _in_request() and statement.lstrip().startswith("SELECT games."):
            broken.append(statement)
            return "SELECT * FROM no_such_table", params
        return statement, params

    with TestClient(create_app(services=services), raise_server_exceptions=False) as client:
        game = new_game(client, alice)
        event.listen(services.engine, "before_cursor_execute", broken_read, retval=True)
        try:
            answer = client.get(f"{API}/games/{game['id']}", headers=alice)
        finally:
            event.remove(services.engine, "before_cursor_execute", broken_read)
    assert answer.status_code == 500 and answer.json()["code"] == "internal"
    assert len(broken) == 1  # not run again
    assert DROPPED not in caplog.text and "unexpected error" in caplog.text


# -- reads are run again ----------------------------------------------------------------------


@ON_POSTGRES
@pytest.mark.usefixtures("no_idle_ping")
def test_a_read_whose_session_ends_is_run_again_on_a_fresh_one(
    client: TestClient,
    services: Services,
    make_user: MakeUser,
    terminator: Terminator,
    caplog: pytest.LogCaptureFixture,
) -> None:
    alice = make_user("alice")
    game = new_game(client, alice)
    caplog.set_level(logging.INFO, logger=ACCESS)
    for path, route in [
        (f"{API}/games/{game['id']}", f"{API}/games/{{game_id}}"),
        (f"/games/{game['id']}", "/games/{game_id}"),
    ]:
        caplog.clear()
        with ended_at(services.engine, terminator, "first") as ended:
            answer = client.get(path, headers=alice)
        assert answer.status_code == 200, answer.text
        assert len(ended) == 1
        # One warning line, no traceback; one request to the access log, as answered.
        dropped = [r for r in caplog.records if DROPPED in r.getMessage()]
        assert len(dropped) == 1 and dropped[0].levelno == logging.WARNING, caplog.text
        said = dropped[0].getMessage()
        assert said.startswith(f"GET {path} {DROPPED} (") and said.endswith("running it once more")
        assert all(r.exc_info is None for r in caplog.records)
        access = [json.loads(JsonFormatter().format(r)) for r in caplog.records if r.name == ACCESS]
        assert [(line["route"], line["status"]) for line in access] == [(route, 200)]


@ON_POSTGRES
@pytest.mark.usefixtures("no_idle_ping")
def test_a_read_that_loses_two_sessions_answers_503(
    client: TestClient, services: Services, make_user: MakeUser, terminator: Terminator
) -> None:
    alice = make_user("alice")
    game = new_game(client, alice)
    with ended_at(services.engine, terminator, "first", times=2) as ended:
        answer = client.get(f"{API}/games/{game['id']}", headers=alice)
    assert len(ended) == 2
    unavailable(answer)
    assert answer.json() == {
        "error": "the database cannot be reached just now; try again shortly",
        "code": "database_unavailable",
        "retry_after": DATABASE_RETRY_AFTER,
    }
    # A page gets the site's own page, with the same status and Retry-After.
    with ended_at(services.engine, terminator, "first", times=2):
        page = client.get(f"/games/{game['id']}")
    unavailable(page)
    assert page.headers["content-type"].startswith("text/html")
    assert "Back in a moment" in page.text and "try again in a few seconds" in page.text
    assert client.get(f"/games/{game['id']}").status_code == 200


@ON_POSTGRES
@pytest.mark.usefixtures("no_idle_ping")
def test_after_every_session_is_ended_the_next_requests_succeed(
    client: TestClient, services: Services, make_user: MakeUser, terminator: Terminator
) -> None:
    alice = make_user("alice")
    game = new_game(client, alice)
    assert terminator.everyone() >= 1
    # The read finds a dead connection and is run again; SQLAlchemy invalidated the whole
    # pool on that drop, so the write after it gets a fresh connection too.
    fresh = client.get(f"{API}/games/{game['id']}", headers=alice)
    assert fresh.status_code == 200, fresh.text
    body = {"action": {"type": "roll_again"}, "expected_version": fresh.json()["version"]}
    moved = client.post(f"{API}/games/{game['id']}/actions", json=body, headers=alice)
    assert moved.status_code == 200, moved.text


@ON_POSTGRES
def test_an_idle_connection_whose_session_ended_is_replaced_before_a_write(
    client: TestClient,
    services: Services,
    make_user: MakeUser,
    terminator: Terminator,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    alice = make_user("alice")
    game = new_game(client, alice)
    terminator.everyone()
    # Every pooled connection counts as idle: each is pinged, and a dead one replaced.
    monkeypatch.setattr(db, "PING_AFTER_IDLE_SECONDS", 0.0)
    caplog.clear()
    body = {"action": {"type": "roll_again"}, "expected_version": game["version"]}
    moved = client.post(f"{API}/games/{game['id']}/actions", json=body, headers=alice)
    assert moved.status_code == 200, moved.text
    assert DROPPED not in caplog.text


# -- writes are not ---------------------------------------------------------------------------


@ON_POSTGRES
@pytest.mark.usefixtures("no_idle_ping")
@pytest.mark.parametrize("where", ["first", "INSERT INTO game_events", "UPDATE games", "COMMIT"])
def test_a_move_whose_session_ends_answers_503_and_changes_nothing(
    client: TestClient,
    services: Services,
    make_user: MakeUser,
    terminator: Terminator,
    where: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    alice = make_user("alice")
    game = new_game(client, alice)
    before = stored(services, game["id"])
    body = {"action": {"type": "roll_again"}, "expected_version": game["version"]}
    url = f"{API}/games/{game['id']}/actions"
    caplog.clear()
    connected_after: list[str] = []
    with ended_at(services.engine, terminator, where) as ended:

        def connected(*_: Any) -> None:
            if ended and _in_request():
                connected_after.append(where)

        event.listen(services.engine, "connect", connected)
        try:
            answer = client.post(url, json=body, headers={**alice, "Idempotency-Key": "m1"})
        finally:
            event.remove(services.engine, "connect", connected)
    assert len(ended) == 1  # ended once, and not run again
    # Rolling back after the drop connected nowhere (its connection is invalidated).
    assert connected_after == []
    unavailable(answer)
    assert answer.json()["code"] == "database_unavailable"
    assert f"POST {url} {DROPPED}" in caplog.text and "answered 503" in caplog.text
    assert "unexpected error" not in caplog.text
    # Ended before its COMMIT went through, the move's transaction rolled back whole.
    assert stored(services, game["id"]) == before
    # The client's retry, same version and key, is the move's only application.
    again = client.post(url, json=body, headers={**alice, "Idempotency-Key": "m1"})
    assert again.status_code == 200, again.text
    assert not again.json()["replayed"]
    version, events = stored(services, game["id"])
    assert version == again.json()["version"] > before[0] and events > before[1]


# -- under load, against a real server --------------------------------------------------------


@pytest.mark.slow
@ON_POSTGRES
def test_ending_the_sites_sessions_mid_load_answers_503_never_500(
    db_url: str, terminator: Terminator
) -> None:
    server = LiveServer(db_url, plugins=PIG_PLUGIN)
    server.start()
    services = build_services(site_settings(db_url))
    answers: list[tuple[str, int, str | None]] = []
    acknowledged: dict[int, int] = {}
    lock = threading.Lock()
    stop = threading.Event()

    def ask(client: httpx2.Client, method: str, url: str, **kwargs: Any) -> Any:
        """One request, noted; a 503 must be a dropped connection's, with its Retry-After."""
        response = client.request(method, url, **kwargs)
        code = None
        if response.status_code == 503:
            code = response.json()["code"] if url.startswith(API) else "page"
            assert response.headers.get("Retry-After") == str(DATABASE_RETRY_AFTER)
        with lock:
            answers.append((method, response.status_code, code))
        return response

    def until_answered(call: Callable[[], Any]) -> Any:
        for _ in range(50):
            response = call()
            if response.status_code != 503:
                return response
        raise AssertionError("fifty 503s in a row")

    players = [add_user(services, f"player{seed}") for seed in range(4)]
    alice = add_user(services, "alice")

    def play(seed: int) -> None:
        rng = random.Random(seed)
        headers = players[seed]
        body = {"game": "pig", "seats": ["me", "bot:random"], "options": {"target": 40}}
        with httpx2.Client(base_url=server.base, timeout=10) as client:

            def start() -> Any:
                made = until_answered(
                    lambda: ask(client, "POST", f"{API}/games", json=body, headers=headers)
                )
                assert made.status_code == 201, made.text
                return made.json()

            game = start()
            while not stop.is_set():
                if game["status"] == "finished":
                    game = start()
                    continue
                url = f"{API}/games/{game['id']}"
                move = {"action": rng.choice(game["legal"]), "expected_version": game["version"]}
                answer = ask(client, "POST", f"{url}/actions", json=move, headers=headers)
                if answer.status_code == 503:
                    # Applied or not: the game as stored says, and the client goes on from it.
                    answer = until_answered(partial(ask, client, "GET", url, headers=headers))
                assert answer.status_code == 200, answer.text
                game = answer.json()
                with lock:
                    acknowledged[game["id"]] = max(acknowledged.get(game["id"], 0), game["version"])
                if rng.random() < 0.3:
                    ask(client, "GET", f"/games/{game['id']}")

    def watch() -> None:
        with httpx2.Client(base_url=server.base, timeout=10) as client:
            while not stop.is_set():
                ask(client, "GET", f"{API}/games/live")
                ask(client, "GET", "/live")

    def answered(count: int, running: list[Future[None]]) -> bool:
        """``count`` answers so far (or a client stopped: its error is raised below)."""
        return len(answers) >= count or any(future.done() for future in running)

    ended = 0
    try:
        with ThreadPoolExecutor(6) as pool:
            running = [pool.submit(play, seed) for seed in range(4)]
            running += [pool.submit(watch) for _ in range(2)]
            try:
                for round_ in range(1, 6):
                    wait_until(
                        partial(answered, 40 * round_, running), timeout=10, what="more answers"
                    )
                    # Four times; then the load goes on a while with no more faults.
                    if round_ < 5:
                        ended += terminator.everyone()
            finally:
                stop.set()
            for future in running:
                future.result()
        assert ended >= 4
        codes = {(status, code) for _, status, code in answers}
        assert codes <= {
            (200, None),
            (201, None),
            (503, "database_unavailable"),
            (503, "page"),
        }, codes
        log = server.log_tail(200_000)
        assert "unexpected error" not in log and DROPPED in log
        # After the faults, the site answers as before.
        with httpx2.Client(base_url=server.base, timeout=10) as client:
            body = {"game": "pig", "seats": ["me", "bot:random"], "options": {"target": 40}}
            made = client.post(f"{API}/games", json=body, headers=alice)
            assert made.status_code == 201, made.text
            game = made.json()
            move = {"action": {"type": "roll_again"}, "expected_version": game["version"]}
            url = f"{API}/games/{game['id']}"
            assert client.post(f"{url}/actions", json=move, headers=alice).status_code == 200
            assert client.get("/live").status_code == 200
        # No acknowledged move was lost, and every game replays from its log to its state
        # (read through connections made now: this process's pooled ones were ended too).
        services.engine.dispose()
        for game_id, version in acknowledged.items():
            assert stored(services, game_id)[0] >= version
        assert _verify_replays(services) >= len(acknowledged)
    finally:
        server.stop()
        services.engine.dispose()
