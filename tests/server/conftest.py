"""Site fixtures: an app on SQLite and on the local PostgreSQL, users with API tokens."""

from __future__ import annotations

import atexit
import contextlib
import os
import queue
import tempfile
import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest
from fastapi.testclient import TestClient

from dicehall.server.app import create_app
from dicehall.server.core.config import Settings
from dicehall.server.core.db import make_engine, migrate
from dicehall.server.domain.services import Services, build_services
from tests.live import add_user
from tests.sqlite_template import migrated_sqlite

PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"

Headers = dict[str, str]
MakeUser = Callable[[str], Headers]


def _postgres_available() -> bool:
    try:
        with psycopg.connect(PG_ADMIN, connect_timeout=3):
            return True
    except psycopg.OperationalError:
        return False


@pytest.fixture(scope="session")
def postgres_ok() -> bool:
    """PostgreSQL is required in CI; elsewhere its tests skip when it is not running."""
    ok = _postgres_available()
    if not ok and os.environ.get("CI"):
        pytest.fail("PostgreSQL at 127.0.0.1:5432 is required in CI")
    return ok


class _Databases:
    """Test databases on the local PostgreSQL, made cheap: each is a copy of one template
    this process migrated once, the next one copied in the background while a test runs,
    and each dropped in the background (a CREATE or DROP DATABASE waits for a checkpoint,
    up to a second, which need not hold up a test)."""

    def __init__(self) -> None:
        self.template: str | None = None
        self.doomed: queue.Queue[str] = queue.Queue()
        self.dropper: threading.Thread | None = None
        self.ready: queue.Queue[str] = queue.Queue(maxsize=1)
        self.maker: threading.Thread | None = None
        self.closing = threading.Event()

    def _admin(self, statement: str) -> None:
        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute(statement.encode())

    def _template(self) -> str:
        if self.template is None:
            name = f"dicehall_tpl_{uuid.uuid4().hex[:12]}"
            self._admin(f'CREATE DATABASE "{name}"')
            engine = make_engine(f"postgresql://postgres@127.0.0.1:5432/{name}")
            try:
                migrate(engine)
            finally:
                engine.dispose()
            self.template = name
            atexit.register(self.close)
        return self.template

    def _drop_forever(self) -> None:
        while True:
            name = self.doomed.get()
            try:
                self._admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            except psycopg.Error:
                pass  # gone already, or PostgreSQL went away: nothing left to clean
            finally:
                self.doomed.task_done()

    def _copy(self) -> str:
        name = f"dicehall_test_{uuid.uuid4().hex[:12]}"
        self._admin(f'CREATE DATABASE "{name}" TEMPLATE "{self._template()}"')
        return name

    def _make_forever(self) -> None:
        while not self.closing.is_set():
            try:
                name = self._copy()
            except psycopg.Error:
                return  # PostgreSQL went away: fresh() makes its own, and says why
            self.ready.put(name)

    def fresh(self) -> tuple[str, Callable[[], None]]:
        self._template()
        if self.maker is None:
            self.maker = threading.Thread(target=self._make_forever, daemon=True)
            self.maker.start()
        try:
            name = self.ready.get(timeout=30) if self.maker.is_alive() else self._copy()
        except queue.Empty:
            name = self._copy()
        if self.dropper is None:
            self.dropper = threading.Thread(target=self._drop_forever, daemon=True)
            self.dropper.start()
        return f"postgresql://postgres@127.0.0.1:5432/{name}", lambda: self.doomed.put(name)

    def close(self) -> None:
        self.closing.set()
        while self.maker is not None and self.maker.is_alive():
            with contextlib.suppress(queue.Empty):
                self.doomed.put(self.ready.get(timeout=0.1))
        with contextlib.suppress(queue.Empty):
            while True:
                self.doomed.put(self.ready.get_nowait())
        if self.dropper is not None:
            self.doomed.join()
        if self.template is not None:
            self._admin(f'DROP DATABASE IF EXISTS "{self.template}" WITH (FORCE)')


_DATABASES = _Databases()


def fresh_postgres_db() -> tuple[str, Callable[[], None]]:
    """A new PostgreSQL database, already migrated, and a function that drops it."""
    return _DATABASES.fresh()


#: Where the tests' sites write mail when a test names no folder of its own.
TEST_MAIL_DIR = os.path.join(tempfile.gettempdir(), f"dicehall-test-mail-{os.getpid()}")


def site_settings(db_url: str, **overrides: object) -> Settings:
    """Settings for tests: cheap password hashing, small dice batches."""
    values: dict[str, object] = {
        "db_url": db_url,
        "argon2_time_cost": 1,
        "argon2_memory_kib": 1024,
        "dice_batch_size": 40,
        "bag_batch_size": 10,
        # Small decks: a deck is hashed whole when it is made and when a proof is served.
        "deck_keys": 64,
        "deck_shuffles": 8,
        "deck_reserve": 2,
        "auth_rate_per_minute": 1000,
        # Slow bots' tables are built by the tests that need them, not by every app.
        "warm_bots": False,
        "bot_workers": 1,
        # A cold hint worker is spawned on first use, which takes seconds on a loaded CI
        # machine; the tests of the budget itself set their own.
        "hint_seconds": 60.0,
        # No periodic site jobs (auto-match, tournaments) nor scheduled tournaments in every
        # test's site: the tests of those jobs turn them on or run them by hand.
        "site_jobs": False,
        "tournament_schedule": "",
        # A mail (a verification link, a notice) never lands in the real data directory.
        "mail_dir": TEST_MAIL_DIR,
    }
    values.update(overrides)
    return Settings(**values)  # type: ignore[arg-type]


def _parametrizes_db_url(metafunc: pytest.Metafunc) -> bool:
    return any(
        "db_url"
        in (
            mark.args[0]
            if isinstance(mark.args[0], (list, tuple))
            else [name.strip() for name in mark.args[0].split(",")]
        )
        for mark in metafunc.definition.iter_markers("parametrize")
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A site test runs on SQLite; one marked ``both_databases`` runs on PostgreSQL too."""
    if "db_url" not in metafunc.fixturenames or _parametrizes_db_url(metafunc):
        return
    both = metafunc.definition.get_closest_marker("both_databases") is not None
    metafunc.parametrize("db_url", BOTH if both else ["sqlite"], indirect=True)


#: The databases of a test marked ``both_databases``.
BOTH = ["sqlite", "postgresql"]


@pytest.fixture
def db_url(request: pytest.FixtureRequest, tmp_path: object) -> Iterator[str]:
    """A fresh, migrated site database: SQLite, or PostgreSQL where the test asks for it
    (``@pytest.mark.both_databases``, or ``parametrize("db_url", [...], indirect=True)``)."""
    if request.param == "sqlite":
        yield migrated_sqlite(Path(str(tmp_path)) / "site.sqlite3")
        return
    if not request.getfixturevalue("postgres_ok"):
        pytest.skip("PostgreSQL is not running here")
    url, drop = fresh_postgres_db()
    try:
        yield url
    finally:
        drop()


@pytest.fixture
def services(db_url: str) -> Iterator[Services]:
    """The site's services on a fresh database."""
    built = build_services(site_settings(db_url))
    try:
        yield built
    finally:
        built.engine.dispose()


def jobless_services(db_url: str) -> Iterator[Services]:
    """The site's services with its periodic jobs off, for a fixture to yield from (the
    test runs the jobs itself)."""
    built = build_services(site_settings(db_url, site_jobs=False))
    try:
        yield built
    finally:
        built.engine.dispose()


@pytest.fixture
def client(services: Services) -> Iterator[TestClient]:
    """A test client of the site (its lifespan runs)."""
    with TestClient(create_app(services=services)) as test_client:
        yield test_client


@pytest.fixture
def make_user(services: Services) -> MakeUser:
    """Create a user directly in the database; return bearer headers for them."""

    def make(name: str) -> Headers:
        return add_user(services, name, services.hasher.hash("correct horse battery"))

    return make


@pytest.fixture
def old_scheme(monkeypatch: pytest.MonkeyPatch) -> None:
    """Games made while it is on roll from the old pool (scheme 2), as games made before
    migration 0014 do: no deck is bound to them."""
    from dicehall.server.domain.dice.decks import DeckPool
    from dicehall.server.domain.games import seat_draw

    def unbound(*_args: object, **_kwargs: object) -> None:
        return None

    monkeypatch.setattr(DeckPool, "bind", unbound)
    monkeypatch.setattr(seat_draw, "deck_for_draw", unbound)  # seat draws read dice sets
