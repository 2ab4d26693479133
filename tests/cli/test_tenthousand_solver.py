"""``dicehall solve tenthousand`` and ``dicehall hint tenthousand``, and a game against the
``optimal`` bot in the terminal. Small targets only: the default rules take a minute or
more to solve, which belongs in the benchmark."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dicehall.games.tenthousand import cache
from tests.conftest import CliResult, CliRunner

SMALL = ("-o", "target=1500", "-o", "entry_threshold=500")


@pytest.fixture(scope="module")
def shared_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data directory for this module's tests (the tables solved once serve them all)."""
    return tmp_path_factory.mktemp("dicehall-data")


@pytest.fixture(autouse=True)
def data_dir(shared_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Solves go to the scratch directory, never to the user's."""
    monkeypatch.setenv("DICEHALL_DATA", str(shared_dir))
    return shared_dir


def one_line_error(result: CliResult, text: str) -> None:
    assert result.code == 2, (result.out, result.err)
    assert "Traceback" not in result.out + result.err
    lines = [line for line in result.err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:") and text in lines[0], result.err


def test_solve_json_has_the_figures(
    cli: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DICEHALL_DATA", str(tmp_path))
    cache.forget()
    result = cli("solve", "tenthousand", "--json", *SMALL)
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert {"max_expected_turn", "expected_turns_to_target", "first_seat_win", "seconds"} <= set(
        data
    )
    assert f"{data['max_expected_turn']:.2f}" == "538.90"
    assert data["bank_thresholds"] == {
        "1": 300,
        "2": 250,
        "3": 450,
        "4": 1050,
        "5": 3050,
        "6": 16000,
    }
    solved = cache.solution(cache.SolveKey(1500, 500))
    assert data["first_seat_win"] == solved.duel.first_seat_win
    assert data["expected_turns_to_target"] == solved.solitaire.turns_to_target()
    assert data["cached"] is False and data["seconds"] >= 0
    assert (tmp_path / "tenthousand" / cache.SolveKey(1500, 500).filename).exists()
    cache.forget()
    again = json.loads(cli("solve", "tenthousand", "--json", *SMALL).out)
    assert again["cached"] is True and again["first_seat_win"] == data["first_seat_win"]


def test_solve_table_shows_the_figures(cli: CliRunner) -> None:
    result = cli("solve", "tenthousand", *SMALL)
    assert result.code == 0, result.err
    for text in ("538.90", "16,000", "hot dice", "first seat", "fewest expected turns"):
        assert text in result.out


def test_hint_json_ranks_every_choice(cli: CliRunner) -> None:
    result = cli(
        "hint", "tenthousand", "--roll", "1,2,2,2,4,5", "--banked", "300",
        "--opponent", "700", "--turn", "100", "--json", *SMALL,
    )  # fmt: skip
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["measure"] == "win_probability" and data["opponent"] == 700
    assert len(data["options"]) == 14  # seven set-asides, each banked or rolled on
    values = [o["value"] for o in data["options"]]
    assert values == sorted(values, reverse=True)
    assert set(data["options"][0]) == {
        "keep", "points", "turn_total", "then", "dice_to_roll", "value",
    }  # fmt: skip


def test_hint_solo_ranks_by_expected_points(cli: CliRunner) -> None:
    result = cli("hint", "tenthousand", "--roll", "1,2,2,2,4,5", "--solo", "--json")
    data = json.loads(result.out)
    assert data["measure"] == "expected_points" and data["opponent"] is None
    best = data["options"][0]
    assert (best["keep"], best["then"], best["dice_to_roll"]) == ([1], "roll", 5)
    assert best["value"] == pytest.approx(288.6, abs=0.05)


def test_hint_table_and_the_last_turn(cli: CliRunner) -> None:
    result = cli(
        "hint", "tenthousand", "--roll", "1,5", "--turn", "500", "--banked", "900",
        "--opponent", "1600", *SMALL,
    )  # fmt: skip
    assert result.code == 0, result.err
    assert "final round" in result.out and "chance to win" in result.out
    assert "roll 6 (hot dice) at 650" in result.out


def test_hint_on_a_roll_that_zeroes_out(cli: CliRunner) -> None:
    result = cli("hint", "tenthousand", "--roll", "2,3,4,6,6,4", "--solo")
    assert result.code == 0 and "zeroes out" in result.out


@pytest.mark.parametrize(
    ("args", "text"),
    [
        (("--roll", "1,2,7"), "roll"),
        (("--roll", "1,5", "--turn", "0"), "turn total must be at least 50"),
        (("--roll", "1,5", "--turn", "120"), "multiple of 50"),
        (("--roll", "1,5", "--turn", "100", "--banked", "-50"), "banked total"),
        (("--roll", "1,5", "--turn", "100", "--banked", "1500"), "reached the target"),
        (("--roll", "1,5", "--turn", "100", "--opponent", "10"), "opponent"),
    ],
)
def test_hint_bad_input_is_one_line(cli: CliRunner, args: tuple[str, ...], text: str) -> None:
    one_line_error(cli("hint", "tenthousand", *args, *SMALL), text)


def test_bad_options_are_one_line(cli: CliRunner) -> None:
    one_line_error(cli("solve", "tenthousand", "-o", "target=0"), "target")
    one_line_error(cli("hint", "tenthousand", "--roll", "1", "-o", "bogus=1"), "bogus")


def test_terminal_game_against_the_optimal_bot(cli: CliRunner) -> None:
    # Always keep the first listed set-aside and roll on until banking is offered, then bank.
    answers = "\n".join(["1", "r", "1", "b"] * 60) + "\n"
    result = cli(
        "play", "tenthousand", "--seats", "you,bot:optimal", "--seed", "5",
        "-o", "target=600", "-o", "entry_threshold=0", input=answers,
    )  # fmt: skip
    assert result.code == 0, result.out[-2000:] + result.err
    assert "You set aside" in result.out and "optimal bot rolls" in result.out
    assert "Game over" in result.out
