"""A damaged, locked or unreachable database: one line and exit 2, before anything starts."""

from __future__ import annotations

import os
import socket
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from dicehall.server.core.db import DatabaseUnusable, check_database, make_engine
from dicehall.server.domain.services import build_services
from tests.conftest import CliResult, CliRunner
from tests.server.conftest import site_settings


@pytest.fixture(autouse=True)
def no_server(monkeypatch: pytest.MonkeyPatch) -> None:
    """``serve`` must stop before uvicorn; if it ever got there, fail instead of blocking."""

    def refuse(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("uvicorn was started on an unusable database")

    monkeypatch.setattr("uvicorn.run", refuse)
    monkeypatch.setattr("dicehall.server.core.db.CHECK_LOCK_TIMEOUT", 0.3)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def real_database(path: Path) -> Path:
    """A migrated site database with its dice pool, every page in the main file."""
    services = build_services(site_settings(f"sqlite:///{path}", dice_batch_size=400))
    services.engine.dispose()
    services.write_engine.dispose()
    assert not Path(f"{path}-wal").exists()
    return path


def serve(cli: CliRunner, path: Path) -> CliResult:
    return cli("serve", "--db", f"sqlite:///{path}", "--port", str(free_port()))


def check(cli: CliRunner, path: Path) -> CliResult:
    return cli("check", "--db", f"sqlite:///{path}")


def assert_one_line(result: CliResult, fragment: str) -> None:
    assert result.code == 2, result
    assert result.err.startswith("error: ") and result.err.count("\n") == 1, result.err
    assert fragment in result.err, result.err


@pytest.fixture
def garbage(tmp_path: Path) -> Path:
    path = tmp_path / "garbage.sqlite3"
    path.write_bytes(os.urandom(8192))
    return path


@pytest.fixture
def truncated(tmp_path: Path) -> Path:
    data = real_database(tmp_path / "real.sqlite3").read_bytes()
    path = tmp_path / "truncated.sqlite3"
    path.write_bytes(data[: len(data) // 2])
    return path


@pytest.fixture
def locked(tmp_path: Path) -> Iterator[Path]:
    path = real_database(tmp_path / "locked.sqlite3")
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("PRAGMA locking_mode=EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    holder.execute("UPDATE dice_cursor SET next_set = next_set")
    try:
        yield path
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_serve_refuses_a_file_that_is_not_a_database(cli: CliRunner, garbage: Path) -> None:
    before = garbage.read_bytes()
    assert_one_line(serve(cli, garbage), f"{garbage} is not a SQLite database")
    assert garbage.read_bytes() == before
    assert_one_line(check(cli, garbage), f"{garbage} is not a SQLite database")


def test_serve_refuses_a_truncated_database(cli: CliRunner, truncated: Path) -> None:
    assert_one_line(serve(cli, truncated), f"{truncated} failed its integrity check: ")
    assert_one_line(check(cli, truncated), f"{truncated} failed its integrity check: ")


def test_serve_refuses_a_locked_database(cli: CliRunner, locked: Path) -> None:
    assert_one_line(serve(cli, locked), f"{locked} is locked by another process")
    assert_one_line(check(cli, locked), f"{locked} is locked by another process")


def test_a_corrupt_page_fails_the_integrity_check(tmp_path: Path) -> None:
    path = real_database(tmp_path / "site.sqlite3")
    with sqlite3.connect(path) as conn:
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        root = conn.execute(
            "SELECT rootpage FROM sqlite_master WHERE name = 'dice_sets'"
        ).fetchone()[0]
    conn.close()
    data = bytearray(path.read_bytes())
    start = (root - 1) * page_size
    data[start : start + page_size] = b"\x0d" + os.urandom(page_size - 1)
    path.write_bytes(bytes(data))
    engine = make_engine(f"sqlite:///{path}")
    with pytest.raises(DatabaseUnusable) as caught:
        check_database(engine)
    engine.dispose()
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{path} failed its integrity check: ") or message.endswith(
        "is not a SQLite database"
    )


def test_a_good_or_new_database_passes(tmp_path: Path) -> None:
    good = make_engine(f"sqlite:///{real_database(tmp_path / 'good.sqlite3')}")
    check_database(good)
    good.dispose()
    new = tmp_path / "new" / "site.sqlite3"
    fresh = make_engine(f"sqlite:///{new}")
    check_database(fresh)  # serve makes it at start
    fresh.dispose()
    assert not new.exists()


def test_check_needs_an_existing_dicehall_database(cli: CliRunner, tmp_path: Path) -> None:
    missing = tmp_path / "missing.sqlite3"
    assert_one_line(check(cli, missing), f"there is no database at {missing}")
    assert not missing.exists()
    other = tmp_path / "other.sqlite3"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE notes (text)")
    conn.close()
    assert_one_line(check(cli, other), "is it a dicehall database?")
    assert_one_line(cli("check", "--db", "mysql://x@localhost/db"), "unsupported database")
    assert_one_line(cli("check", "--db", "::not a url::"), "not a database URL")


@pytest.mark.both_databases
def test_an_unreachable_postgresql_is_one_line(cli: CliRunner) -> None:
    url = f"postgresql://postgres@127.0.0.1:{free_port()}/nothing"
    assert_one_line(cli("check", "--db", url), "cannot use the database")
    assert_one_line(
        cli("serve", "--db", url, "--port", str(free_port())), "cannot use the database"
    )


def test_markup_in_a_path_prints_as_it_is(cli: CliRunner, tmp_path: Path) -> None:
    folder = tmp_path / "x[" / "bold]"  # the path reads .../x[/bold]/...
    folder.mkdir(parents=True)
    path = folder / "garbage.sqlite3"
    path.write_bytes(b"not a database at all" * 10)
    assert_one_line(serve(cli, path), f"{path} is not a SQLite database")
