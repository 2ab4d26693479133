"""Shared fixtures: running the CLI in-process."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest

from dicehall.cli.main import run


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
