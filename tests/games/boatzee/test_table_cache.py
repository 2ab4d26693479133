"""The table cache: where it lives, the version key, and solving again when stale."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from dicehall.engine.storage import data_dir
from dicehall.games.boatzee import table_cache
from dicehall.games.boatzee.scoring import BOX_INDEX, BOXES
from dicehall.games.boatzee.solver import solve
from dicehall.games.boatzee.table_cache import Table, load, store, version_key
from tests.games.boatzee.solved import solved_dir

__all__ = ["solved_dir"]

ONLY_CHANCE_OPEN = ((1 << len(BOXES)) - 1) ^ 1 << BOX_INDEX["chance"]


@pytest.fixture
def empty_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("DICEHALL_DATA", str(tmp_path))
    table_cache.forget()
    return tmp_path


def _small_table() -> Table:
    solution = solve("boatzee", 2, filled=ONLY_CHANCE_OPEN)
    return Table("boatzee", 2, solution.values, solution.expected, solution.std, 0.5)


def test_data_dir_follows_the_environment(empty_data: Path) -> None:
    assert data_dir() == empty_data


def test_store_then_load_gives_the_same_table(empty_data: Path) -> None:
    table = _small_table()
    store(table)
    files = sorted(p.name for p in (empty_data / "boatzee").iterdir())
    assert files == ["boatzee-x2.json", "boatzee-x2.npy"]
    meta = json.loads((empty_data / "boatzee" / "boatzee-x2.json").read_text())
    assert meta["version"] == version_key("boatzee", 2)
    back = load("boatzee", 2)
    assert back is not None
    assert np.array_equal(back.values, table.values, equal_nan=True)
    assert (back.expected, back.std, back.seconds) == (table.expected, table.std, 0.5)
    assert load("boatzee", 1) is None and load("yahtzee", 2) is None


def test_version_key_depends_on_ruleset_and_multiplier() -> None:
    keys = {version_key(r, k) for r in ("boatzee", "yahtzee") for k in (1, 2, 3)}
    assert len(keys) == 6
    assert all(key.startswith(f"{table_cache.SOLVER_VERSION}-") for key in keys)


def test_stale_missing_or_broken_tables_are_not_loaded(empty_data: Path) -> None:
    store(_small_table())
    meta_path = empty_data / "boatzee" / "boatzee-x2.json"
    npy_path = empty_data / "boatzee" / "boatzee-x2.npy"
    good = meta_path.read_text()
    meta_path.write_text(good.replace(version_key("boatzee", 2), "0-oldoldoldoldold"))
    assert load("boatzee", 2) is None
    meta_path.write_text("{not json")
    assert load("boatzee", 2) is None
    meta_path.write_text(good)
    npy_path.write_bytes(b"garbage")
    assert load("boatzee", 2) is None
    npy_path.unlink()
    assert load("boatzee", 2) is None


def test_a_stale_table_is_solved_again(
    solved_dir: Path, empty_data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An old solver version's table (wrong numbers, too) is replaced by a fresh solve.
    current = table_cache.SOLVER_VERSION
    monkeypatch.setattr(table_cache, "SOLVER_VERSION", current - 1)
    store(_small_table())
    monkeypatch.setattr(table_cache, "SOLVER_VERSION", current)
    assert load("boatzee", 2) is None
    fresh = table_cache.table("boatzee", 2)
    assert not np.isnan(fresh.values[0, 0, 0])
    monkeypatch.setenv("DICEHALL_DATA", str(solved_dir))
    reference = load("boatzee", 2)
    assert reference is not None
    assert np.array_equal(fresh.values, reference.values, equal_nan=True)
    monkeypatch.setenv("DICEHALL_DATA", str(empty_data))
    assert load("boatzee", 2) is not None


def test_tables_are_kept_in_memory_per_data_dir(empty_data: Path) -> None:
    store(_small_table())
    small = table_cache.table("boatzee", 2)
    assert np.isnan(small.values[0, 0, 0])
    assert table_cache.table("boatzee", 2) is small
