"""The Boss Dice equilibrium, solved once and kept in the user data directory.

The file holds the two strategy arrays and a version key; a file from another version, or
one that does not fit the hand it is read for, is solved again and overwritten.
"""

from __future__ import annotations

import os
import tempfile
from contextlib import suppress
from pathlib import Path

import numpy as np

from dicehall.engine.storage import data_dir
from dicehall.games.boss.equilibrium import Equilibrium, ProgressFn, solve_fixed_point
from dicehall.games.boss.hand_game import HandGame, hand_game
from dicehall.games.boss.profiles import Profile

#: Bump when the model or the solver changes what a stored strategy means.
VERSION = 1

_SOLVED: dict[tuple[int, int], Equilibrium] = {}


def cache_path(game: HandGame, directory: Path | None = None) -> Path:
    """Where the equilibrium of ``game`` is stored."""
    base = data_dir() if directory is None else directory
    return base / "boss" / f"equilibrium-v{VERSION}-{game.faces}f{game.dice}d.npz"


def save(equilibrium: Equilibrium, path: Path) -> None:
    """Write an equilibrium atomically (a half-written file is never read)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    game = equilibrium.game
    with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".tmp", delete=False) as handle:
        np.savez_compressed(
            handle,
            version=np.array(VERSION),
            shape=np.array([game.faces, game.dice, game.n_states, len(game.classes)]),
            fresh=np.array(equilibrium.fresh),
            come_up=equilibrium.profile.come_up,
            keep=equilibrium.profile.keep,
        )
    os.replace(handle.name, path)


def load(game: HandGame, path: Path) -> Equilibrium | None:
    """The stored equilibrium of ``game``, or None when the file is missing or does not fit."""
    try:
        with np.load(path, allow_pickle=False) as data:
            expected = [game.faces, game.dice, game.n_states, len(game.classes)]
            if int(data["version"]) != VERSION or data["shape"].tolist() != expected:
                return None
            come_up = np.array(data["come_up"], dtype=np.float64)
            keep = np.array(data["keep"], dtype=np.float64)
            fresh = float(data["fresh"])
    except (OSError, KeyError, ValueError):
        return None
    if come_up.shape != (game.n_states, len(game.classes)) or keep.shape != (
        game.n_states,
        game.width,
    ):
        return None
    return Equilibrium(game, Profile(come_up, keep), fresh)


def load_or_solve(
    faces: int = 6,
    dice: int = 5,
    *,
    directory: Path | None = None,
    refresh: bool = False,
    progress: ProgressFn | None = None,
) -> tuple[Equilibrium, bool]:
    """The equilibrium of the hand, and whether it was already solved (in memory or on disk).

    ``refresh`` solves it again and overwrites the stored file.
    """
    key = (faces, dice)
    if not refresh and key in _SOLVED:
        return _SOLVED[key], True
    game = hand_game(faces, dice)
    path = cache_path(game, directory)
    found = None if refresh else load(game, path)
    if found is None:
        profile, fresh = solve_fixed_point(game, progress)
        solved = Equilibrium(game, profile, fresh)
        with suppress(OSError):  # a read-only data directory only costs a solve next time
            save(solved, path)
        _SOLVED[key] = solved
        return solved, False
    _SOLVED[key] = found
    return found, True


def forget(faces: int = 6, dice: int = 5) -> None:
    """Drop an equilibrium held in memory; its next use reads the file (or solves)."""
    _SOLVED.pop((faces, dice), None)


def equilibrium() -> Equilibrium:
    """The equilibrium of the real hand (six faces, five dice), solved on first use."""
    return load_or_solve()[0]
