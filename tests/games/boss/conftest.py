"""The real hand's equilibrium, solved once per test session into a scratch directory that
every Boss Dice test uses as the data directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from dicehall.games.boss.equilibrium import Equilibrium
from dicehall.games.boss.equilibrium_store import load_or_solve


@pytest.fixture(scope="session")
def boss_data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data directory of the session's own."""
    return tmp_path_factory.mktemp("dicehall-data")


@pytest.fixture(autouse=True)
def _scratch_data_dir(boss_data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a bot that solves the equilibrium on first use stores it here, not in the user's home
    monkeypatch.setenv("DICEHALL_DATA", str(boss_data_dir))


@pytest.fixture(scope="session")
def full_equilibrium(boss_data_dir: Path) -> Equilibrium:
    """The equilibrium of six faces and five dice; the bots built later use the same one."""
    return load_or_solve(directory=boss_data_dir)[0]
