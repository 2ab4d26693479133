"""The command line with Ten Thousand: score, play, sim and rules, and bad input everywhere."""

from __future__ import annotations

import json
from typing import Any

import pytest

from dicehall.cli.common import console
from tests.conftest import CliResult, CliRunner

WORKED_EXAMPLE: dict[str, Any] = {
    "roll": [1, 2, 2, 2, 4, 5],
    "options": [
        {"keep": [1, 2, 2, 2, 5], "points": 350},
        {"keep": [1, 2, 2, 2], "points": 300},
        {"keep": [2, 2, 2, 5], "points": 250},
        {"keep": [2, 2, 2], "points": 200},
        {"keep": [1, 5], "points": 150},
        {"keep": [1], "points": 100},
        {"keep": [5], "points": 50},
    ],
}


def one_line_error(result: CliResult, text: str) -> None:
    """Exit status 2, one line on standard error containing ``text``, no traceback."""
    assert result.code == 2, (result.out, result.err)
    assert "Traceback" not in result.out + result.err
    lines = [line for line in result.err.splitlines() if line.strip()]
    assert len(lines) == 1, result.err
    assert lines[0].startswith("error:") and text in lines[0], lines[0]


# -- score ------------------------------------------------------------------------------------


def test_score_reproduces_the_worked_example_exactly(cli: CliRunner) -> None:
    result = cli("score", "tenthousand", "1,2,2,2,4,5", "--json")
    assert result.code == 0
    assert json.loads(result.out) == WORKED_EXAMPLE


def test_score_sorts_the_roll_and_accepts_spaces(cli: CliRunner) -> None:
    result = cli("score", "tenthousand", "5 4 2 1 2 2", "--json")
    assert json.loads(result.out) == WORKED_EXAMPLE


def test_score_zero_out_has_no_options(cli: CliRunner) -> None:
    result = cli("score", "tenthousand", "6,4,2,3,6,4", "--json")
    assert json.loads(result.out) == {"roll": [2, 3, 4, 4, 6, 6], "options": []}
    text = cli("score", "tenthousand", "6,4,2,3,6,4")
    assert text.code == 0 and "zeroes out" in text.out


def test_score_table_lists_every_set_aside(cli: CliRunner) -> None:
    result = cli("score", "tenthousand", "1,2,2,2,4,5")
    assert result.code == 0
    assert "7 legal set-asides" in result.out
    rows = [line for line in result.out.splitlines() if "│" in line]
    assert len(rows) == 7
    for item in WORKED_EXAMPLE["options"]:
        keep = ",".join(str(d) for d in item["keep"])
        assert any(keep in row and str(item["points"]) in row for row in rows), keep


def test_score_with_a_house_rule(cli: CliRunner) -> None:
    plain = json.loads(cli("score", "tenthousand", "2,2,2,2,3,3", "--json").out)
    house = cli(
        "score",
        "tenthousand",
        "2,2,2,2,3,3",
        "--json",
        "--option",
        "four_and_pair_is_three_pairs=true",
    )
    assert plain["options"][0] == {"keep": [2, 2, 2, 2], "points": 400}
    assert json.loads(house.out)["options"][0] == {"keep": [2, 2, 2, 2, 3, 3], "points": 500}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("1,2,7",), "'7' is not a die face (1 to 6)"),
        (("0,1",), "'0' is not a die face"),
        (("1,x",), "'x' is not a die face"),
        (("1,2,3,4,5,6,1",), "expected at most 6 dice, got 7"),
        (("",), "expected at least 1 dice, got 0"),
        (("1,5", "--option", "bonus=1"), "unknown option 'bonus'"),
        (("1,5", "--option", "four_and_pair_is_three_pairs=perhaps"), "true or false"),
        (("1,5", "--option", "target"), "an option must look like name=value"),
    ],
)
def test_score_bad_input_is_a_one_line_error(
    cli: CliRunner, args: tuple[str, ...], message: str
) -> None:
    one_line_error(cli("score", "tenthousand", *args), message)


# -- play -------------------------------------------------------------------------------------


def test_play_a_short_game_to_the_end(cli: CliRunner) -> None:
    # Seed 3 rolls 1,2,3,4,4,4 first: set aside entry a (1,4,4,4 = 500) and bank; that
    # reaches the target of 50, so the bot gets its one last turn and the game ends.
    result = cli(
        "play", "tenthousand", "--seats", "you,bot:heuristic", "--seed", "3",
        "--option", "target=50", "--option", "entry_threshold=0", input="a\nb\n",
    )  # fmt: skip
    assert result.code == 0, result.err
    out = result.out
    assert "You roll [1] [2] [3] [4] [4] [4]" in out
    assert "a) set aside 1,4,4,4" in out and "500 points" in out
    assert "You set aside 1,4,4,4 for 500: turn total 500." in out
    assert "You bank 500: total 500." in out
    assert "You reached 50:" in out and "every other player gets one more turn" in out
    assert "heuristic bot rolls" in out
    assert "Game over after 2 turns" in out
    assert "No scoring dice: heuristic bot zeroed out on 6 (loses 450)." in out
    assert "You win and the pot of $0.50." in out


def test_play_reprompts_on_bad_input_and_eof_leaves_cleanly(cli: CliRunner) -> None:
    moves = "d\n9\n1,1,1,1\n2,3\nhello\n[/]\n\nc\nb\nmaybe\nr\n"
    result = cli("play", "tenthousand", "--seats", "you,bot:random", "--seed", "3", input=moves)
    out = result.out
    assert "'d' is not on the list: type a letter from a to c" in out
    assert "'9' is not a die face" in out
    assert "Not allowed: 1,1,1,1 is not part of your roll (1,2,3,4,4,4)" in out
    assert "Not allowed: 2,3 does not score; every die you set aside must score" in out
    assert "'hello' is not on the list" in out
    assert "'[/]' is not a die face" in out  # shown as typed, never read as markup
    assert "Type a letter from the list, or the dice to set aside" in out
    assert "You set aside 1 for 100: turn total 100." in out
    assert "Your first bank needs at least 1000 points; you must roll on." in out
    assert "Not allowed: you cannot bank yet" in out
    assert "Type r." in out
    assert "You roll [1] [2] [2] [6] [6]" in out  # the roll after rolling on with five dice
    assert result.code == 130  # the input ran out: EOF leaves the game
    assert "Left the game." in out
    assert "Traceback" not in out + result.err


def test_play_ctrl_c_leaves_cleanly(cli: CliRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*args: object, **kwargs: object) -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr(console, "input", interrupted)
    result = cli("play", "tenthousand", "--seats", "you,bot:heuristic", "--seed", "1")
    assert result.code == 130
    assert "Left the game." in result.out
    assert "Traceback" not in result.out + result.err


def test_play_two_humans_in_hot_seat(cli: CliRunner) -> None:
    # Seed 3: Ann rolls 1,2,3,4,4,4 and banks 500 (target 50); Bob then has his last turn.
    result = cli(
        "play", "tenthousand", "--seats", "Ann,Bob", "--seed", "3",
        "--option", "target=50", "--option", "entry_threshold=0", input="a\nb\na\nb\n",
    )  # fmt: skip
    assert result.code == 0, result.err
    assert "Ann's turn" in result.out and "Bob's turn" in result.out
    assert "Ann banks 500" in result.out
    assert "Game over after 2 turns" in result.out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--seats", "you,bot:genius"), "has no bot 'genius'"),
        (("--seats", ",".join(["bot:random"] * 9)), "takes 1 to 8 seats, not 9"),
        (("--option", "target=5"), "target must be 50 to 100000"),
        (("--option", "entry_threshold=20000"), "target (10000) is below entry_threshold"),
        (("--option", "target=55"), "target (55) is below entry_threshold (1000)"),
    ],
)
def test_play_bad_setup_is_a_one_line_error(
    cli: CliRunner, args: tuple[str, ...], message: str
) -> None:
    one_line_error(cli("play", "tenthousand", *args, input=""), message)


# -- sim and rules ----------------------------------------------------------------------------


def test_sim_same_seed_same_numbers(cli: CliRunner) -> None:
    args = ("sim", "tenthousand", "--bots", "heuristic,random", "--games", "200", "--seed", "1")
    first = cli(*args, "--json")
    second = cli(*args, "--json")
    assert first.code == 0, first.err
    assert first.out == second.out
    data = json.loads(first.out)
    assert data["games"] == 200 and data["seed"] == 1
    assert data["mean_turns"] > 0
    seats = data["seats"]
    assert [s["bot"] for s in seats] == ["heuristic", "random"]
    for seat in seats:
        low, high = seat["win_share_95"]
        assert low <= seat["win_share"] <= high
        assert seat["mean_score"] > 0
    assert seats[0]["win_share"] > 0.9
    assert seats[0]["win_share"] + seats[1]["win_share"] == pytest.approx(1.0)
    other = json.loads(cli(*args[:-1], "2", "--json").out)
    assert other["seats"] != seats


def test_sim_table(cli: CliRunner) -> None:
    result = cli("sim", "tenthousand", "--bots", "threshold,heuristic", "--games", "20")
    assert result.code == 0
    assert "win share" in result.out and "mean turns per game" in result.out


def test_sim_bad_bot_is_a_one_line_error(cli: CliRunner) -> None:
    one_line_error(
        cli("sim", "tenthousand", "--bots", "heuristic,nobody", "--games", "5"), "no bot 'nobody'"
    )


def test_rules_prints_the_rules_as_implemented(cli: CliRunner) -> None:
    result = cli("rules", "tenthousand")
    assert result.code == 0
    out = result.out
    for text in (
        "Ten Thousand",
        "1,2,2,2,5 = 350",
        "entry_threshold",
        "four_and_pair_is_three_pairs",
        "zero_penalty",
        "Hot dice",
        "heuristic",
    ):
        assert text in out, text


def test_digits_are_always_dice_never_list_entries() -> None:
    """On 1,1,2,3,4,4 the answer ``1`` sets aside one 1 (not the list's first entry, 1,1);
    letters pick from the list, and faces may be written together."""
    from dicehall.cli.screens.tenthousand import parse_set_aside
    from dicehall.engine.errors import InvalidInput
    from dicehall.games.tenthousand.rules import SetAside
    from dicehall.games.tenthousand.scoring import set_asides

    choices = [SetAside(keep) for keep, _ in set_asides((1, 1, 2, 3, 4, 4))]
    assert choices[0] == SetAside((1, 1))
    assert parse_set_aside("1", choices) == SetAside((1,))
    assert parse_set_aside("a", choices) == choices[0]
    assert parse_set_aside(" B ", choices) == choices[1]
    assert parse_set_aside("11", choices) == parse_set_aside("1 1", choices) == SetAside((1, 1))
    assert parse_set_aside("1,1", choices) == SetAside((1, 1))
    for bad, message in (
        ("", "Type a letter"),
        ("z", "'z' is not on the list"),
        ("ab", "'ab' is not on the list"),
        ("7", "'7' is not a die face"),
        ("1 x", "'x' is not a die face"),
    ):
        with pytest.raises(InvalidInput, match=message):
            parse_set_aside(bad, choices)
