"""Site fixtures: an app on SQLite and on the local PostgreSQL, users with API tokens."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator

import psycopg
import pytest
from fastapi.testclient import TestClient

from dicehall.server.app import create_app
from dicehall.server.core.config import Settings
from dicehall.server.domain.services import Services, build_services
from tests.live import add_user

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


def fresh_postgres_db() -> tuple[str, Callable[[], None]]:
    """A new empty PostgreSQL database and a function that drops it."""
    name = f"dicehall_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')

    def drop() -> None:
        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    return f"postgresql://postgres@127.0.0.1:5432/{name}", drop


def site_settings(db_url: str, **overrides: object) -> Settings:
    """Settings for tests: cheap password hashing, small dice batches."""
    values: dict[str, object] = {
        "db_url": db_url,
        "argon2_time_cost": 1,
        "argon2_memory_kib": 1024,
        "dice_batch_size": 40,
        "auth_rate_per_minute": 1000,
        # Slow bots' tables are built by the tests that need them, not by every app.
        "warm_bots": False,
        "bot_workers": 1,
        # A cold hint worker is spawned on first use, which takes seconds on a loaded CI
        # machine; the tests of the budget itself set their own.
        "hint_seconds": 60.0,
    }
    values.update(overrides)
    return Settings(**values)  # type: ignore[arg-type]


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: object) -> Iterator[str]:
    """Each site test runs on SQLite and on PostgreSQL."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path}/site.sqlite3"
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
