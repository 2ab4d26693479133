"""The full solved tables, the relaxed column tables and the final-score distributions,
built once per machine and shared by every test session (see :mod:`tests.table_store`).

Import the fixtures into a test module to use them. The tables are cached in a folder named
by a hash of the Boatzee solver's sources, so a changed kernel gets new tables. ``make tables``
(run by ``make pytest``) builds them ahead, two chains at a time with progress; a session
that finds them missing builds them itself. Under pytest-xdist a file lock per chain of tables
lets each chain be solved once, the chains side by side, while a worker that needs a chain
another is solving waits and then reads the cached tables. Each session works on hard links
of the cached tables in a folder of its own; each test that uses them points
``DICEHALL_DATA`` there.
"""

from __future__ import annotations

import fcntl
import os
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import ExitStack
from pathlib import Path

import pytest

from dicehall.games.boatzee import final_scores, flex_tables, table_cache
from tests.table_store import ROOT, keyed_folder, link_tree, source_key

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
    for make in CHAINS[chain]:
        make()


#: What the tables depend on: the solver package, the engine and the games' shared modules,
#: and this file (the chains).
SOURCES = (
    ROOT / "src/dicehall/games/boatzee",
    ROOT / "src/dicehall/engine",
    *sorted((ROOT / "src/dicehall/games").glob("*.py")),
    Path(__file__).resolve(),
)


def cache_folder() -> Path:
    """This machine's folder of the tables for the current sources."""
    return keyed_folder("boatzee-tables", source_key(SOURCES))


def build(root: Path, chains: list[str] | None = None) -> None:
    """Every chain's tables in ``root``: first the chains nobody is solving yet, then the
    others, waiting for whoever solves them and reading what they solved."""
    with ExitStack() as held, pytest.MonkeyPatch.context() as patch:
        patch.setenv("DICEHALL_DATA", str(root))
        wanted = chains or list(CHAINS)
        locks = {c: held.enter_context(open(root / f".{c}.lock", "w")) for c in wanted}
        waiting = []
        for chain, lock in locks.items():
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                waiting.append(chain)
                continue
            _solve(chain)
            fcntl.flock(lock, fcntl.LOCK_UN)
        for chain in waiting:
            fcntl.flock(locks[chain], fcntl.LOCK_EX)
            _solve(chain)
            fcntl.flock(locks[chain], fcntl.LOCK_UN)


@pytest.fixture(scope="session")
def solved_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data directory of this session's own holding every table of :data:`CHAINS`."""
    cache = cache_folder()
    build(cache)
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # the session's directory, shared by the workers
    root = base / "boatzee-tables"
    root.mkdir(exist_ok=True)
    with open(base / ".boatzee-tables.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        link_tree(cache, root)
    return root


@pytest.fixture
def solved(solved_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Point ``DICEHALL_DATA`` at the solved tables for one test."""
    monkeypatch.setenv("DICEHALL_DATA", str(solved_dir))
    yield solved_dir


def _build_one(chain: str) -> tuple[str, float]:
    started = time.monotonic()
    build(cache_folder(), [chain])
    return chain, time.monotonic() - started


def main() -> None:
    """``python -m tests.games.boatzee.solved``: build the cache, two chains at a time."""
    folder = cache_folder()
    print(f"Boatzee test tables in {folder}", flush=True)
    started = time.monotonic()
    with ProcessPoolExecutor(max_workers=2) as pool:
        for done, (chain, seconds) in enumerate(pool.map(_build_one, CHAINS), start=1):
            print(f"  [{done}/{len(CHAINS)}] {chain}: {seconds:.1f} s", flush=True)
    print(f"  ready in {time.monotonic() - started:.1f} s", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
