"""``dicehall solve tenthousand`` and ``dicehall hint tenthousand``, and a game against the
``optimal`` bot in the terminal. Small targets only: the default rules take a minute or
more to solve, which belongs in the benchmark."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dicehall.games.tenthousand import GAME, cache
from dicehall.games.tenthousand.advice import solo_hint
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


def test_hint_table_ranks_every_choice_by_the_chance_to_win(cli: CliRunner) -> None:
    result = cli(
        "hint", "tenthousand", "--roll", "1,2,2,2,4,5", "--banked", "300",
        "--opponent", "700", "--turn", "100", *SMALL,
    )  # fmt: skip
    assert result.code == 0, result.err
    assert "chance to win" in result.out and "opponent 700" in result.out
    rows = [line for line in result.out.splitlines() if "%" in line and "│" in line]
    assert len(rows) == 14  # seven set-asides, each banked or rolled on
    chances = [float(row.split("│")[-2].strip().rstrip("%")) for row in rows]
    assert chances == sorted(chances, reverse=True)


def test_hint_names_the_choice_for_points_and_what_it_costs_in_chance_to_win(
    cli: CliRunner,
) -> None:
    # 800 behind at 1,500: three 1s banked is the most points, rolling on the better chance.
    result = cli(
        "hint", "tenthousand", "--roll", "1,1,1,2,3,4", "--banked", "600",
        "--opponent", "1400", *SMALL,
    )  # fmt: skip
    assert result.code == 0, result.err
    rows = [line for line in result.out.splitlines() if "%" in line and "│" in line]
    best = rows[0].split("│")
    assert best[2].strip() == "1,1,1" and "roll" in best[4]
    banked = next(row for row in rows if "bank 1,000" in row and "│ 1,1,1 " in row)
    banked_chance = banked.split("│")[-2].strip()
    text = " ".join(result.out.split())
    assert "Playing for the most points this turn would set aside 1,1,1, then bank 1,000" in text
    assert f"a {banked_chance} chance to win, against {best[-2].strip()} above" in text
    same = cli(
        "hint", "tenthousand", "--roll", "1,2,2,2,4,5", "--banked", "300",
        "--opponent", "700", "--turn", "100", *SMALL,
    )  # fmt: skip
    assert "makes the same choice" in " ".join(same.out.split())


def test_hint_json_is_the_seat_hint(cli: CliRunner) -> None:
    result = cli(
        "hint", "tenthousand", "--roll", "1,2,2,2,4,5", "--banked", "300",
        "--opponent", "700", "--turn", "100", "--json", *SMALL,
    )  # fmt: skip
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert set(data) == {"summary", "choices", "note", "basis", "basis_text"}
    assert data["basis"] == "exact"
    choices = data["choices"]
    assert len(choices) == 5  # the best five of the seven set-asides
    assert set(choices[0]) == {"keep", "points", "then", "value", "text"}
    values = [c["value"] for c in choices]
    assert values == sorted(values, reverse=True)
    # Each set-aside is worth its better follow-up, in expected points of the turn.
    options = GAME.options({"target": 1500, "entry_threshold": 500})
    solo = solo_hint((1, 2, 2, 2, 4, 5), 100, 300, options).choices
    for choice in choices:
        best = max(c.value for c in solo if list(c.keep) == choice["keep"])
        assert choice["value"] == pytest.approx(best)
    assert data["summary"] == f"Best: {choices[0]['text']}."


def test_hint_solo_ranks_by_expected_points(cli: CliRunner) -> None:
    result = cli("hint", "tenthousand", "--roll", "1,2,2,2,4,5", "--solo", "--json")
    data = json.loads(result.out)
    best = data["choices"][0]
    assert (best["keep"], best["then"], best["points"]) == ([1], "roll 5 dice", 100)
    assert best["value"] == pytest.approx(288.6, abs=0.05)
    table = cli("hint", "tenthousand", "--roll", "1,2,2,2,4,5", "--solo")
    assert "expected points" in table.out and "288.6" in table.out


def test_hint_json_on_a_roll_that_zeroes_out(cli: CliRunner) -> None:
    result = cli("hint", "tenthousand", "--roll", "2,3,4,6,6,4", "--solo", "--json")
    assert result.code == 0, result.err
    # The roll ends the turn: the seat has nothing to decide, as on the site.
    assert json.loads(result.out) == {"summary": "Hints appear here on your turn.", "choices": []}


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
    one_line_error(cli("hint", "tenthousand", *args, "--json", *SMALL), text)


def test_bad_options_are_one_line(cli: CliRunner) -> None:
    one_line_error(cli("solve", "tenthousand", "-o", "target=0"), "target")
    one_line_error(cli("hint", "tenthousand", "--roll", "1", "-o", "bogus=1"), "bogus")


def test_terminal_game_against_the_optimal_bot(cli: CliRunner) -> None:
    # Always keep the first listed set-aside and roll on until banking is offered, then bank.
    answers = "\n".join(["a", "r", "a", "b"] * 60) + "\n"
    result = cli(
        "play", "tenthousand", "--seats", "you,bot:optimal", "--seed", "5",
        "-o", "target=600", "-o", "entry_threshold=0", input=answers,
    )  # fmt: skip
    assert result.code == 0, result.out[-2000:] + result.err
    assert "You set aside" in result.out and "optimal bot rolls" in result.out
    assert "Game over" in result.out
