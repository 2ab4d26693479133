"""``dicehall solve boatzee`` and ``dicehall hint boatzee``, and the optimal bot at the table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dicehall.games.boatzee.scoring import BOXES
from tests.conftest import CliRunner
from tests.games.boatzee.solved import solved, solved_dir

__all__ = ["solved", "solved_dir"]


@pytest.fixture
def empty_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("DICEHALL_DATA", str(tmp_path))
    return tmp_path


def test_hint_solves_once_then_solve_reports_the_optimum(cli: CliRunner, empty_data: Path) -> None:
    first = cli("hint", "boatzee", "--dice", "6,6,6,6,6", "--rolls-left", "0", "--json")
    assert first.code == 0, first.err
    assert "solving it once" in first.err
    assert (empty_data / "boatzee" / "boatzee-x1.npy").exists()
    again = cli("hint", "boatzee", "--dice", "6,6,6,6,6", "--rolls-left", "0", "--json")
    assert again.code == 0 and "solving" not in again.err
    assert again.out == first.out
    assert json.loads(first.out)["choices"][0]["box"] == "boatzee"

    solved_now = cli("solve", "boatzee", "--json")
    assert solved_now.code == 0, solved_now.err
    data = json.loads(solved_now.out)
    assert set(data) == {"ruleset", "expected", "std", "seconds"}
    assert data["ruleset"] == "boatzee"
    assert f"{data['expected']:.6f}" == "245.870775"
    assert 39 < data["std"] < 41 and data["seconds"] > 0


def test_solve_yahtzee_as_text(cli: CliRunner, empty_data: Path) -> None:
    result = cli("solve", "boatzee", "--ruleset", "yahtzee")
    assert result.code == 0, result.err
    assert "Optimal expected score: 254.5877" in result.out
    assert "Standard deviation:" in result.out and "Solved in" in result.out
    assert "yahtzee rules" in result.out
    assert (empty_data / "boatzee" / "yahtzee-x1.json").exists()


def test_solve_refuses_an_unknown_ruleset(cli: CliRunner, empty_data: Path) -> None:
    result = cli("solve", "boatzee", "--ruleset", "poker")
    assert result.code == 2
    assert "error:" in result.err and "ruleset" in result.err
    assert not (empty_data / "boatzee").exists()


def test_hint_json_ranks_every_choice(cli: CliRunner, solved: Path) -> None:
    result = cli(
        "hint", "boatzee", "--dice", "1,1,2,3,4", "--rolls-left", "2", "--scored", "ones=1,twos=2"
    )
    assert result.code == 0, result.err
    assert "keep 1 2 3 4, re-roll 1 die" in result.out
    assert "expected final" in result.out
    as_json = cli(
        "hint",
        "boatzee",
        "--dice",
        "1,1,2,3,4",
        "--rolls-left",
        "2",
        "--scored",
        "ones=1, 2s=2",
        "--json",
    )
    assert as_json.code == 0, as_json.err
    data = json.loads(as_json.out)
    assert list(data) == ["choices"]
    choices = data["choices"]
    assert choices[0] == {"keep": [1, 2, 3, 4], "expected_final": choices[0]["expected_final"]}
    assert all(set(c) in ({"keep", "expected_final"}, {"box", "expected_final"}) for c in choices)
    values = [c["expected_final"] for c in choices]
    assert values == sorted(values, reverse=True)
    assert len(choices) == 23 + 11
    assert {c["box"] for c in choices if "box" in c} == {
        "threes",
        "fours",
        "fives",
        "sixes",
        "three_kind",
        "four_kind",
        "full_house",
        "small_straight",
        "large_straight",
        "boatzee",
        "chance",
    }


def test_hint_with_yahtzee_rules_follows_the_joker(cli: CliRunner, solved: Path) -> None:
    result = cli(
        "hint",
        "boatzee",
        "--dice",
        "5,5,5,5,5",
        "--rolls-left",
        "1",
        "--scored",
        "boatzee=50,fives=15,chance=21",
        "--bonuses",
        "1",
        "--ruleset",
        "yahtzee",
        "--json",
    )
    assert result.code == 0, result.err
    boxes = {c["box"] for c in json.loads(result.out)["choices"] if "box" in c}
    assert boxes == {"three_kind", "four_kind", "full_house", "small_straight", "large_straight"}
    best = json.loads(result.out)["choices"][0]
    assert best["expected_final"] > 50 + 15 + 21 + 100 + 100 + 40


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--dice", "1,2,3,4", "--rolls-left", "2"], "5"),
        (["--dice", "1,2,3,4,7", "--rolls-left", "2"], "7"),
        (["--dice", "1,2,3,4,5", "--rolls-left", "3"], "rolls left must be 0, 1 or 2"),
        (["--dice", "1,2,3,4,5", "--rolls-left", "1", "--scored", "ones"], "box=points"),
        (["--dice", "1,2,3,4,5", "--rolls-left", "1", "--scored", "elevens=3"], "not a box"),
        (["--dice", "1,2,3,4,5", "--rolls-left", "1", "--scored", "fh=20"], "cannot hold 20"),
        (["--dice", "1,2,3,4,5", "--rolls-left", "1", "--scored", "ss=30,ss=0"], "twice"),
        (["--dice", "1,2,3,4,5", "--rolls-left", "1", "--ruleset", "dice"], "ruleset"),
        (["--dice", "1,2,3,4,5", "--rolls-left", "1", "--bonuses", "1"], "yahtzee"),
    ],
)
def test_hint_refuses_bad_input(
    cli: CliRunner, solved: Path, args: list[str], message: str
) -> None:
    result = cli("hint", "boatzee", *args)
    assert result.code == 2
    assert "error:" in result.err and message in result.err
    assert "Traceback" not in result.err


def test_hint_on_a_full_card_is_refused(cli: CliRunner, solved: Path) -> None:
    full = ",".join(f"{box}=0" for box in BOXES)
    result = cli("hint", "boatzee", "--dice", "1,2,3,4,5", "--rolls-left", "0", "--scored", full)
    assert result.code == 2 and "game is over" in result.err


def test_play_against_the_optimal_bot(cli: CliRunner, solved: Path) -> None:
    # The human scores Chance, the optimal bot plays its whole turn, then the input ends.
    result = cli("play", "boatzee", "--seats", "you,bot:optimal", "--seed", "5", input="ch\nc\n")
    assert result.code == 130
    assert "You score" in result.out and "in Chance" in result.out
    assert "optimal bot scores" in result.out


def test_sim_with_the_optimal_bot(cli: CliRunner, solved: Path) -> None:
    result = cli("sim", "boatzee", "--bots", "optimal,greedy", "--games", "60", "--json")
    assert result.code == 0, result.err
    seats = json.loads(result.out)["seats"]
    assert [s["bot"] for s in seats] == ["optimal", "greedy"]
    assert seats[0]["mean_score"] > seats[1]["mean_score"]
