"""The full solved tables, the relaxed column tables and the final-score distributions,
built once per test session in a temporary data directory.

Import the fixtures into a test module to use them. Under pytest-xdist every worker uses the
same directory, and a file lock lets the first one solve while the others wait and then
read the cached tables. Each test that uses the tables points ``DICEHALL_DATA`` there.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from dicehall.games.boatzee import final_scores, flex_tables, table_cache
from dicehall.games.boatzee.card import Ruleset

#: The tables the tests need: both rulesets for one column, and the x2, x3 boatzee tables.
NEEDED: tuple[tuple[Ruleset, int], ...] = (
    ("boatzee", 1),
    ("yahtzee", 1),
    ("boatzee", 2),
    ("boatzee", 3),
)


@pytest.fixture(scope="session")
def solved_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data directory holding every table in :data:`NEEDED`, solved in this session."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # the session's directory, shared by the workers
    root = base / "boatzee-tables"
    root.mkdir(exist_ok=True)
    with open(root / ".lock", "w") as lock, pytest.MonkeyPatch.context() as patch:
        fcntl.flock(lock, fcntl.LOCK_EX)
        patch.setenv("DICEHALL_DATA", str(root))
        for ruleset, multiplier in NEEDED:
            table_cache.table(ruleset, multiplier)
        for multiplier in (1, 2, 3):  # strong's Double and Triple
            flex_tables.flex_table(multiplier)
        final_scores.final_scores()  # winmax's distributions
    return root


@pytest.fixture
def solved(solved_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Point ``DICEHALL_DATA`` at the solved tables for one test."""
    monkeypatch.setenv("DICEHALL_DATA", str(solved_dir))
    yield solved_dir
