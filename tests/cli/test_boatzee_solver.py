"""``dicehall solve boatzee`` and ``dicehall hint boatzee``, and the optimal bot at the table."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from dicehall.games.boatzee.hints import hint, scored_card
from dicehall.games.boatzee.scoring import BOXES, TITLES
from dicehall.games.boatzee.valuation import for_game
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
    assert set(data) == {"ruleset", "expected", "std", "seconds", "wall_seconds"}
    assert data["ruleset"] == "boatzee"
    assert f"{data['expected']:.6f}" == "245.870775"
    assert 39 < data["std"] < 41 and data["seconds"] > 0
    assert data["wall_seconds"] >= data["seconds"]


def test_solve_reports_the_wall_time_waited_compilation_included(
    cli: CliRunner, monkeypatch: pytest.MonkeyPatch, empty_data: Path
) -> None:
    """The time reported is what the user waited (the solver's first compilation included),
    not only the solve's own seconds. A clock stands in for the real one."""
    from dicehall.cli.commands import boatzee as commands
    from dicehall.games.boatzee import solver, table_cache

    now = [1000.0]

    def compile_kernels() -> None:
        now[0] += 18.0  # the first compilation

    def solve_and_store(*args: object, **kwargs: object) -> table_cache.Table:
        now[0] += 2.28
        return table_cache.Table("boatzee", 1, np.zeros(1), 245.87, 39.82, 2.28)

    monkeypatch.setattr(commands, "clock", lambda: now[0])
    monkeypatch.setattr(solver, "compile_kernels", compile_kernels)
    monkeypatch.setattr(table_cache, "solve_and_store", solve_and_store)
    data = json.loads(cli("solve", "boatzee", "--json").out)
    assert data["seconds"] == 2.28 and data["wall_seconds"] == pytest.approx(20.28)
    shown = cli("solve", "boatzee").out
    assert "Solved in 20.3 s (2.28 s solving; the rest loading and compiling the solver" in shown


def test_solve_yahtzee_as_text(cli: CliRunner, empty_data: Path) -> None:
    result = cli("solve", "boatzee", "--ruleset", "yahtzee")
    assert result.code == 0, result.err
    assert "Optimal expected score: 254.5877" in result.out
    assert "Standard deviation:" in result.out and "Solved in" in result.out
    assert "yahtzee rules" in result.out
    assert (empty_data / "boatzee" / "yahtzee-x1.json").exists()


def test_solve_gets_the_tables_of_double_and_triple_ready(cli: CliRunner, solved: Path) -> None:
    result = cli("solve", "boatzee", "--columns", "3", "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["column_tables"] == ["flex-x1", "flex-x2", "flex-x3"]
    assert abs(data["expected"] - 245.870775) < 1e-6
    assert all((solved / "boatzee" / f"flex-x{k}.json").exists() for k in (1, 2, 3))
    assert "column_tables" not in json.loads(cli("solve", "boatzee", "--json").out)
    refused = cli("solve", "boatzee", "--columns", "4")
    assert refused.code == 2 and "--columns" in refused.err


def test_solve_builds_the_final_score_distributions_on_request(
    cli: CliRunner, solved: Path
) -> None:
    from dicehall.games.boatzee.final_scores import load

    meta = solved / "boatzee" / "finals-x1.json"
    before = meta.stat().st_mtime_ns
    result = cli("solve", "boatzee", "--final-scores", "--json")
    assert result.code == 0, result.err
    assert json.loads(result.out)["final_scores"] == "finals-x1"
    assert meta.stat().st_mtime_ns > before  # built afresh, as solve solves afresh
    found = load()
    assert found is not None and found.remaining(0, 0).sum() == pytest.approx(1.0, abs=1e-5)
    assert "final_scores" not in json.loads(cli("solve", "boatzee", "--json").out)


def test_final_scores_are_for_the_boatzee_ruleset(cli: CliRunner, empty_data: Path) -> None:
    result = cli("solve", "boatzee", "--ruleset", "yahtzee", "--final-scores")
    assert result.code == 2 and "boatzee ruleset" in result.err
    assert not (empty_data / "boatzee").exists()  # refused before anything was solved


def test_solve_refuses_an_unknown_ruleset(cli: CliRunner, empty_data: Path) -> None:
    result = cli("solve", "boatzee", "--ruleset", "poker")
    assert result.code == 2
    assert "error:" in result.err and "ruleset" in result.err
    assert not (empty_data / "boatzee").exists()


def test_hint_table_ranks_every_choice(cli: CliRunner, solved: Path) -> None:
    result = cli(
        "hint", "boatzee", "--dice", "1,1,2,3,4", "--rolls-left", "2", "--scored", "ones=1,twos=2"
    )
    assert result.code == 0, result.err
    assert "keep 1 2 3 4, re-roll 1 die" in result.out
    assert "expected final" in result.out and "2 re-rolls left, card total 3" in result.out
    rows = [line.split("│") for line in result.out.splitlines() if line.count("│") == 4]
    assert len(rows) == 23 + 11  # every distinct keep, and every open box
    assert "keep 1 2 3 4" in rows[0][2]
    values = [float(row[3]) for row in rows]
    assert values == sorted(values, reverse=True)
    boxes = {row[2].strip().removeprefix("score ").split(" (")[0] for row in rows}
    assert {TITLES[box] for box in BOXES if box not in ("ones", "twos")} <= boxes


def test_hint_json_is_the_seat_hint(cli: CliRunner, solved: Path) -> None:
    args = ("--dice", "1,1,2,3,4", "--rolls-left", "2", "--scored", "ones=1, 2s=2", "--json")
    result = cli("hint", "boatzee", *args)
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert set(data) == {"summary", "choices", "note", "basis", "basis_text"}
    assert data["note"].startswith("Values from the solved tables")
    assert data["basis"] == "exact"
    choices = data["choices"]
    assert len(choices) == 5
    assert {k: choices[0][k] for k in ("keep", "text")} == {
        "keep": [1, 2, 3, 4],
        "text": f"Keep 1 2 3 4 and re-roll 1: expect {choices[0]['value']:.1f} in all",
    }
    # The same values as the exact hint and the table: the expected final total, the card's
    # 3 points included.
    card = scored_card({"ones": 1, "twos": 2}, "boatzee")
    exact = hint(card, (1, 1, 2, 3, 4), 2, "boatzee", for_game(1, "boatzee"))
    for mine, theirs in zip(choices, exact, strict=False):
        assert mine.get("keep") == (None if theirs.keep is None else list(theirs.keep))
        assert mine.get("box") == theirs.box
        assert mine["value"] == pytest.approx(theirs.expected_final)


def test_a_hints_value_is_the_number_its_text_and_table_give(cli: CliRunner, solved: Path) -> None:
    """Issue 36: ``value`` was the points still to come (199.19) while ``text`` said "expect
    208.2 in all" and the note "the expected final score". One meaning: the expected final
    score of the whole game, the card's points included, in the JSON, its text and note,
    and the table."""
    args = ("--dice", "4,4,4,6,6", "--rolls-left", "0", "--scored", "ones=1,twos=2,threes=6")
    result = cli("hint", "boatzee", *args, "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert "the points already on the card included" in data["note"]
    best = data["choices"][0]
    assert best["text"] == "Score Full House for 25: expect 208.2 in all"
    assert best["value"] == pytest.approx(208.19, abs=0.005)
    for choice in data["choices"]:
        quoted = re.search(r"expect (\d+\.\d) in all", choice["text"])
        assert quoted is not None and quoted[1] == f"{choice['value']:.1f}"
    table = cli("hint", "boatzee", *args).out
    row = next(line.split("│") for line in table.splitlines() if "score Full House" in line)
    assert row[3].strip() == f"{best['value']:.2f}" == "208.19"


def test_hint_with_yahtzee_rules_follows_the_joker(cli: CliRunner, solved: Path) -> None:
    args = (
        "--dice", "5,5,5,5,5", "--rolls-left", "1", "--scored", "boatzee=50,fives=15,chance=21",
        "--bonuses", "1", "--ruleset", "yahtzee",
    )  # fmt: skip
    result = cli("hint", "boatzee", *args, "--json")
    assert result.code == 0, result.err
    choices = json.loads(result.out)["choices"]
    boxes = {c["box"] for c in choices if "box" in c}
    assert boxes == {"three_kind", "four_kind", "full_house", "small_straight", "large_straight"}
    best = choices[0]
    assert best["box"] == "large_straight" and best["points"] == 40  # a joker: in full
    assert 186 + best["value"] > 50 + 15 + 21 + 100 + 100 + 40
    table = cli("hint", "boatzee", *args).out
    assert "score Large Straight (40)" in table and "card total 186" in table


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
    for as_json in ((), ("--json",)):
        result = cli("hint", "boatzee", *args, *as_json)
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


def test_hint_against_an_opponent_ranks_by_the_chance_to_win(cli: CliRunner, solved: Path) -> None:
    # The last turn: 22 in Chance beats the opponent's 21. Re-rolling the 3 and the 1
    # expects more points but may lose; re-rolling the 1 alone wins surely, with more points.
    others = ",".join(f"{box}=0" for box in BOXES if box != "chance")
    args = ("--dice", "6,6,6,3,1", "--rolls-left", "1", "--scored", others)
    result = cli("hint", "boatzee", *args, "--opponent", f"{others},chance=21")
    assert result.code == 0, result.err
    assert "chance to win" in result.out and "opponent 21" in result.out
    rows = [line.split("│") for line in result.out.splitlines() if line.count("│") == 5]
    assert "keep 3 6 6 6, re-roll 1 die" in rows[0][2] and rows[0][3].strip() == "100.00%"
    assert [row[3].strip() for row in rows if "score Chance (22)" in row[2]] == ["100.00%"]
    wins = [float(row[3].strip().rstrip("%")) for row in rows]
    assert wins == sorted(wins, reverse=True)
    said = " ".join(result.out.split())
    # 18 + two dice: 20 loses (1 in 36), 21 ties (2 in 36): 1 - 1/36 - 1/36 to win.
    assert "would keep 6 6 6, re-roll 2 dice (25.00 expected): a 94.44% chance" in said
    assert "against 100.00% above" in said


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--scored", "ones=1", "--opponent", "ones=1,twos=2,threes=3"], "one more (2)"),
        (["--opponent", "", "--ruleset", "yahtzee"], "boatzee ruleset"),
        (["--opponent", "fh=20"], "cannot hold 20"),
    ],
)
def test_hint_against_an_opponent_refuses_bad_input(
    cli: CliRunner, solved: Path, extra: list[str], message: str
) -> None:
    result = cli("hint", "boatzee", "--dice", "1,2,3,4,5", "--rolls-left", "1", *extra)
    assert result.code == 2, result.out
    assert "error:" in result.err and message in result.err
