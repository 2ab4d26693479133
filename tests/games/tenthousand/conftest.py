"""Ten Thousand tests keep solved tables in a scratch data directory of the session's own."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def tenthousand_data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data directory of the session's own."""
    return tmp_path_factory.mktemp("dicehall-data")


@pytest.fixture(autouse=True)
def _scratch_data_dir(tenthousand_data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A bot that solves on first use stores its tables here, not in the user's home.
    monkeypatch.setenv("DICEHALL_DATA", str(tenthousand_data_dir))
