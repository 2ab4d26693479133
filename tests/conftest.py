"""Shared fixtures: running the CLI in-process; Pig installed as a separate game."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from dicehall import games
from dicehall.cli.main import run
from tests.signals import python_default_signals

#: A hard per-test time limit that native code cannot hold off.
pytest_plugins = ["tests.hard_timeout"]


def pytest_configure(config: pytest.Config) -> None:
    # A run started in the background ignores SIGINT; its children must not inherit that.
    python_default_signals()


@dataclass
class CliResult:
    """What one ``dicehall`` invocation printed and returned."""

    code: int
    out: str
    err: str


CliRunner = Callable[..., CliResult]


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    """Run ``dicehall ARGS...`` in-process; optional ``input`` feeds standard input."""

    def invoke(*args: str, input: str | None = None) -> CliResult:
        if input is not None:
            import io

            monkeypatch.setattr("sys.stdin", io.StringIO(input))
        capsys.readouterr()
        code = run(list(args))
        captured = capsys.readouterr()
        return CliResult(code, captured.out, captured.err)

    return invoke


@pytest.fixture
def installed_pig(tmp_path: Path) -> Iterator[None]:
    """Pig 'installed' as a separate distribution: a dist-info with a dicehall.games entry
    point on sys.path, exactly what pip leaves behind."""
    info = tmp_path / "dicehall_pig-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: dicehall-pig\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[dicehall.games]\npig = tests.games.pig_plugin:ENTRY\n")
    sys.path.insert(0, str(tmp_path))
    # Other tests register a Pig by hand; only the installed one may answer here.
    by_hand = games._EXTRA.pop("pig", None)
    games.refresh()
    try:
        yield
    finally:
        sys.path.remove(str(tmp_path))
        if by_hand is not None:
            games._EXTRA["pig"] = by_hand
        games.refresh()
