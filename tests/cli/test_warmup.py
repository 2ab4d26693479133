"""Bots that think from tables get them before the first roll: a cold solve never freezes a
game mid-turn, and the wait is announced (with the time left, in a terminal)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest

from tests.cli.test_terminal import spawn
from tests.conftest import CliRunner

SMALL = ("-o", "target=600", "-o", "entry_threshold=0")


@pytest.fixture
def cold(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An empty data directory and no tables held in this process."""
    from dicehall.games.tenthousand import cache

    monkeypatch.setenv("DICEHALL_DATA", str(tmp_path))
    cache.forget()
    yield tmp_path
    cache.forget()


def _mark_solves(monkeypatch: pytest.MonkeyPatch) -> None:
    from dicehall.games.tenthousand import cache

    real = cache.compute

    def compute(*args: object, **kwargs: object) -> cache.Solution:
        print("<<tables solved here>>")
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(cache, "compute", compute)


@pytest.mark.usefixtures("cold")
def test_play_solves_the_optimal_bots_tables_before_the_first_roll(
    cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    _mark_solves(monkeypatch)
    answers = "\n".join(["a", "r", "a", "b"] * 60) + "\n"
    args = ("play", "tenthousand", "--seats", "you,bot:optimal", "--seed", "5", *SMALL)
    out = cli(*args, input=answers).out
    said = out.index("Getting the optimal bot's tables ready before the first roll")
    solved = out.index("<<tables solved here>>")
    assert said < solved < out.index("You roll")
    assert out.count("<<tables solved here>>") == 1  # never again, mid-turn or later
    again = cli(*args, input=answers).out
    assert "<<tables solved here>>" not in again  # held (and kept on disk) since


@pytest.mark.usefixtures("cold")
def test_sim_gets_the_tables_ready_before_it_starts(
    cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    _mark_solves(monkeypatch)
    result = cli("sim", "tenthousand", "--bots", "optimal,heuristic", "-n", "3", *SMALL, "--json")
    assert result.code == 0, result.err
    assert result.out.startswith("<<tables solved here>>\n{")
    assert "before the first roll" in result.err


@pytest.mark.usefixtures("cold")
def test_a_cold_solve_in_a_terminal_shows_the_time_left() -> None:
    child = spawn(
        "play", "tenthousand", "--seats", "you,bot:optimal",
        "-o", "target=5000", "-o", "entry_threshold=300",
    )  # fmt: skip
    child.expect("before the first roll")
    child.expect("Solving Ten Thousand")
    child.expect(r"about\s+(\x1b\[[0-9;]*m)*\d+:\d\d:\d\d")  # the time left, once it is known
    assert "roll [" not in str(child.before)  # nobody has rolled: the game waits for the bot
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
