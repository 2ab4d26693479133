"""The full solved tables, the relaxed column tables and the final-score distributions,
built once per test session in a temporary data directory.

Import the fixtures into a test module to use them. Under pytest-xdist every worker uses the
same directory, and a file lock per chain of tables lets each chain be solved once, the
chains side by side, while a worker that needs a chain another is solving waits and then
reads the cached tables. Each test that uses the tables points ``DICEHALL_DATA`` there.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from dicehall.games.boatzee import final_scores, flex_tables, table_cache

#: The tables the tests need, in chains that share nothing, so that two workers can solve
#: them side by side: the solitaire tables and winmax's distributions (which read the x1
#: table) in one, each of strong's relaxed column tables (the slowest, 12-14 s each) alone.
CHAINS: dict[str, tuple[Callable[[], object], ...]] = {
    "solitaire": (
        lambda: table_cache.table("boatzee", 1),
        final_scores.final_scores,
        lambda: table_cache.table("yahtzee", 1),
        lambda: table_cache.table("boatzee", 2),
        lambda: table_cache.table("boatzee", 3),
    ),
    "flex-x1": (lambda: flex_tables.flex_table(1),),
    "flex-x2": (lambda: flex_tables.flex_table(2),),
    "flex-x3": (lambda: flex_tables.flex_table(3),),
}


def _solve(chain: str) -> None:
    for build in CHAINS[chain]:
        build()


@pytest.fixture(scope="session")
def solved_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data directory holding every table of :data:`CHAINS`, solved in this session."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # the session's directory, shared by the workers
    root = base / "boatzee-tables"
    root.mkdir(exist_ok=True)
    with ExitStack() as held, pytest.MonkeyPatch.context() as patch:
        patch.setenv("DICEHALL_DATA", str(root))
        locks = {c: held.enter_context(open(root / f".{c}.lock", "w")) for c in CHAINS}
        waiting = []
        for chain, lock in locks.items():  # first the chains nobody is solving yet
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                waiting.append(chain)
                continue
            _solve(chain)
            fcntl.flock(lock, fcntl.LOCK_UN)
        for chain in waiting:  # then wait for the others, and read what they solved
            fcntl.flock(locks[chain], fcntl.LOCK_EX)
            _solve(chain)
            fcntl.flock(locks[chain], fcntl.LOCK_UN)
    return root


@pytest.fixture
def solved(solved_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Point ``DICEHALL_DATA`` at the solved tables for one test."""
    monkeypatch.setenv("DICEHALL_DATA", str(solved_dir))
    yield solved_dir
