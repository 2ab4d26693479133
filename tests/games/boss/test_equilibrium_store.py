"""The stored equilibrium: written once, read back, re-solved when stale or damaged."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from dicehall.engine.storage import data_dir
from dicehall.games.boss import equilibrium_store as store
from dicehall.games.boss.hand_game import hand_game

FACES, DICE = 3, 4


@pytest.fixture(autouse=True)
def _forget() -> None:
    store.forget(FACES, DICE)


def test_solved_once_then_read_back(tmp_path: Path) -> None:
    seen: list[tuple[int, int]] = []
    solved, cached = store.load_or_solve(
        FACES, DICE, directory=tmp_path, progress=lambda d, t: seen.append((d, t))
    )
    path = store.cache_path(solved.game, tmp_path)
    assert not cached and path.is_file() and path.parent == tmp_path / "boss"
    assert seen[-1] == (solved.game.n_states, solved.game.n_states)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    again, cached = store.load_or_solve(FACES, DICE, directory=tmp_path)
    assert cached and again is solved  # held in memory
    store.forget(FACES, DICE)
    before = len(seen)
    loaded, cached = store.load_or_solve(
        FACES, DICE, directory=tmp_path, progress=lambda d, t: seen.append((d, t))
    )
    assert cached and loaded is not solved and len(seen) == before  # read, not solved
    assert np.array_equal(loaded.profile.come_up, solved.profile.come_up)
    assert np.array_equal(loaded.profile.keep, solved.profile.keep)
    assert loaded.fresh == solved.fresh
    fresh, cached = store.load_or_solve(FACES, DICE, directory=tmp_path, refresh=True)
    assert not cached and fresh is not loaded


def test_stale_or_damaged_files_are_solved_again(tmp_path: Path) -> None:
    game = hand_game(FACES, DICE)
    path = store.cache_path(game, tmp_path)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not a numpy file")
    assert store.load(game, path) is None
    solved, cached = store.load_or_solve(FACES, DICE, directory=tmp_path)
    assert not cached and store.load(game, path) is not None
    # a file of another version, or for another hand, does not fit
    with np.load(path) as data:
        arrays = dict(data)
    np.savez(path, **{**arrays, "version": np.array(store.VERSION + 1)})
    assert store.load(game, path) is None
    np.savez(path, **{**arrays, "keep": arrays["keep"][:, :3]})
    assert store.load(game, path) is None
    store.save(solved, path)
    other = hand_game(3, 3)
    assert store.load(other, path) is None
    assert store.load(game, tmp_path / "missing.npz") is None


def test_the_data_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DICEHALL_DATA", str(tmp_path))
    assert data_dir() == tmp_path
    assert store.cache_path(hand_game(FACES, DICE)).parent == tmp_path / "boss"
    monkeypatch.delenv("DICEHALL_DATA")
    assert data_dir().name == "dicehall"


def test_a_directory_that_cannot_be_written_still_gives_the_equilibrium(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: object) -> None:
        raise PermissionError("read-only")

    monkeypatch.setattr(store, "save", refuse)
    solved, cached = store.load_or_solve(FACES, DICE, directory=tmp_path)
    assert not cached and solved.game.n_states > 0
    assert not (tmp_path / "boss").exists()
