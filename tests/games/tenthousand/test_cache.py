"""The solution cache: kept in this process and in the data directory, solved when missing or
stale, written atomically, and harmless when the directory cannot be written."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest

from dicehall.games.tenthousand import TenThousandOptions, cache
from dicehall.games.tenthousand.cache import SolveKey
from dicehall.games.tenthousand.duel import Progress

KEY = SolveKey(target=600, entry_threshold=300, epsilon=1e-3)


@pytest.fixture
def fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty data directory, and nothing held in this process."""
    monkeypatch.setenv("DICEHALL_DATA", str(tmp_path))
    cache.forget()
    return tmp_path


def test_solves_once_then_reads_the_disk(fresh: Path) -> None:
    first = cache.solution(KEY)
    assert not first.cached
    path = cache.cache_path(KEY)
    assert path.parent == fresh / "tenthousand" and path.exists()
    assert cache.solution(KEY) is first  # held in this process
    cache.forget()
    again = cache.solution(KEY)
    assert again.cached and again is not first
    np.testing.assert_array_equal(again.duel.win, first.duel.win)
    np.testing.assert_array_equal(again.duel.last_roll, first.duel.last_roll)
    np.testing.assert_array_equal(again.solitaire.expected_turns, first.solitaire.expected_turns)
    assert again.seconds == first.seconds and again.duel.cap_steps == first.duel.cap_steps
    assert not list(path.parent.glob(".tmp-*"))  # nothing left over from the atomic write


def _rewrite_meta(path: Path, **changes: object) -> None:
    with np.load(path) as data:
        arrays = {name: np.array(data[name]) for name in data.files}
    meta = json.loads(str(arrays.pop("meta")))
    meta.update(changes)
    np.savez(
        path,
        meta=np.array(json.dumps(meta)),
        win=arrays["win"],
        last_roll=arrays["last_roll"],
        last_after=arrays["last_after"],
        expected_turns=arrays["expected_turns"],
    )


@pytest.mark.parametrize(
    "changes",
    [{"version": cache.SOLVER_VERSION - 1}, {"rules": "0" * 64}, {"cap_steps": 3}],
)
def test_stale_files_are_solved_again(fresh: Path, changes: dict[str, object]) -> None:
    cache.solution(KEY)
    path = cache.cache_path(KEY)
    _rewrite_meta(path, **changes)
    assert cache.load(KEY, path) is None
    cache.forget()
    solved = cache.solution(KEY)
    assert not solved.cached
    assert cache.load(KEY, path) is not None  # and saved again, current


def test_damaged_or_foreign_files_are_solved_again(fresh: Path) -> None:
    path = cache.cache_path(KEY)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not a table")
    assert cache.load(KEY, path) is None
    assert not cache.solution(KEY).cached
    other = SolveKey(target=650, entry_threshold=300, epsilon=1e-3)
    # A file holding another key's tables (renamed by hand) is not taken for this key.
    path.replace(cache.cache_path(other))
    assert cache.load(other, cache.cache_path(other)) is None


def test_recompute_solves_even_when_cached(fresh: Path) -> None:
    cache.solution(KEY)
    assert not cache.solution(KEY, recompute=True).cached


def test_an_unwritable_directory_only_costs_a_solve(
    fresh: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = fresh / "file"
    blocker.write_text("a file where the directory would be")
    monkeypatch.setenv("DICEHALL_DATA", str(blocker))
    solved = cache.solution(KEY)
    assert not solved.cached and solved.duel.win.shape == (12, 12)


def test_progress_goes_to_the_given_callback_or_the_display(fresh: Path) -> None:
    seen: list[tuple[int, int]] = []
    cache.solution(KEY, lambda done, total: seen.append((done, total)))
    assert seen[-1] == (78, 78)
    described: list[str] = []

    @contextmanager
    def display(description: str) -> Iterator[Progress]:
        described.append(description)
        yield lambda done, total: seen.append((done, total))

    cache.show_progress_with(display)
    try:
        cache.solution(KEY, recompute=True)
    finally:
        cache.show_progress_with(None)
    assert described == ["Solving Ten Thousand (target 600)"]


def test_keys_follow_the_options() -> None:
    key = SolveKey.of(TenThousandOptions(target=1020, entry_threshold=990))
    assert (key.target, key.entry_threshold, key.four_and_pair) == (1050, 1000, False)
    assert SolveKey.of(TenThousandOptions()).filename == (
        "solution-v1-target10000-entry1000-fp0-eps1e-07.npz"
    )
    with pytest.raises(ValueError):
        SolveKey(target=10, entry_threshold=0)
    with pytest.raises(ValueError):
        SolveKey(epsilon=0.0)
