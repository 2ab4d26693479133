"""``dicehall`` for Boatzee: score, rules, sim, and the terminal game played from a script."""

from __future__ import annotations

import io
import json

from rich.console import Console

from dicehall.cli.screens.boatzee import BoatzeeScreen
from dicehall.engine import Result, Seeded, Table
from dicehall.games.boatzee import GAME, BoatzeeState, Reroll, Score
from dicehall.games.boatzee.scoring import BOXES
from tests.conftest import CliRunner


def test_score_table(cli: CliRunner) -> None:
    result = cli("score", "boatzee", "3,3,3,5,5")
    assert result.code == 0, result.err
    lines = {line.split("│")[1].strip(): line for line in result.out.splitlines() if "│" in line}
    assert "25" in lines["Full House"] and "19" in lines["Chance"] and "9" in lines["Threes"]
    assert lines["Boatzee"].split("│")[2].strip() == "0"


def test_score_json(cli: CliRunner) -> None:
    result = cli("score", "boatzee", "3 3 3 5 5", "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data == {
        "dice": [3, 3, 3, 5, 5],
        "boxes": {
            "ones": 0,
            "twos": 0,
            "threes": 9,
            "fours": 0,
            "fives": 10,
            "sixes": 0,
            "three_kind": 19,
            "four_kind": 0,
            "full_house": 25,
            "small_straight": 0,
            "large_straight": 0,
            "boatzee": 0,
            "chance": 19,
        },
    }


def test_score_json_per_column(cli: CliRunner) -> None:
    result = cli("score", "boatzee", "6,6,6,6,6", "--columns", "3", "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["boxes"]["boatzee"] == 50 and data["boxes"]["full_house"] == 0
    assert [c["boatzee"] for c in data["columns"]] == [50, 100, 150]
    assert [c["sixes"] for c in data["columns"]] == [30, 60, 90]
    table = cli("score", "boatzee", "6,6,6,6,6", "--columns", "2")
    assert "column 2 (x2)" in table.out and "100" in table.out


def test_score_takes_options_as_for_play_or_by_their_shortcuts(cli: CliRunner) -> None:
    """``-o columns=3`` (as ``play`` and ``sim`` take it) and ``--columns 3`` are the same."""
    by_flag = cli("score", "boatzee", "6,6,6,6,6", "--columns", "3", "--json")
    by_option = cli("score", "boatzee", "6,6,6,6,6", "-o", "columns=3", "--json")
    both = cli("score", "boatzee", "6,6,6,6,6", "--columns", "3", "-o", "columns=3", "--json")
    assert by_option.code == 0, by_option.err
    assert by_flag.out == by_option.out == both.out
    yahtzee = cli("score", "boatzee", "6,6,6,6,6", "-o", "ruleset=yahtzee", "--joker", "--json")
    assert yahtzee.code == 0, yahtzee.err
    clash = cli("score", "boatzee", "6,6,6,6,6", "--columns", "2", "-o", "columns=3")
    assert clash.code == 2
    assert clash.err == "error: --columns 2 and -o columns=3 disagree: give one of them\n"


def test_score_joker(cli: CliRunner) -> None:
    result = cli("score", "boatzee", "4,4,4,4,4", "--ruleset", "yahtzee", "--joker", "--json")
    assert result.code == 0, result.err
    boxes = json.loads(result.out)["boxes"]
    assert (boxes["full_house"], boxes["small_straight"], boxes["large_straight"]) == (25, 30, 40)
    assert boxes["fours"] == 20 and "boatzee" not in boxes
    plain = json.loads(cli("score", "boatzee", "4,4,4,4,4", "--ruleset", "yahtzee", "--json").out)
    assert plain["boxes"]["full_house"] == 0


def test_score_bad_input_is_a_one_line_error(cli: CliRunner) -> None:
    for args, message in [
        (("1,2,3",), "expected 5 dice"),
        (("1,2,3,4,9",), "'9' is not a die face"),
        (("1,2,3,4,5", "--columns", "4"), "'columns' must be 1, 2 or 3"),
        (("1,2,3,4,5", "--ruleset", "kniffel"), "'ruleset' must be one of"),
        (("4,4,4,4,4", "--joker"), "--joker needs --ruleset yahtzee"),
        (("4,4,4,4,3", "--joker", "--ruleset", "yahtzee"), "needs a five of a kind"),
    ]:
        result = cli("score", "boatzee", *args)
        assert result.code == 2, args
        assert message in result.err, (args, result.err)
        assert "Traceback" not in result.err and result.err.count("\n") == 1


def test_rules_and_games(cli: CliRunner) -> None:
    result = cli("rules", "boatzee")
    assert result.code == 0
    assert "Triple Boatzee" in result.out and "joker" in result.out
    listed = cli("games")
    assert "boatzee" in listed.out and "heuristic" in listed.out and "greedy" in listed.out


def test_sim(cli: CliRunner) -> None:
    result = cli("sim", "boatzee", "--bots", "heuristic,greedy", "--games", "4", "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["mean_turns"] == 26
    assert sum(s["win_share"] for s in data["seats"]) == 1
    triple = cli("sim", "boatzee", "--bots", "random", "-n", "2", "-o", "columns=3", "--json")
    assert json.loads(triple.out)["mean_turns"] == 39


def _expected_total(seed: int, actions: list[Reroll | Score]) -> int:
    table: Table[BoatzeeState, Reroll | Score] = Table(GAME, 1, GAME.options({}))
    source = Seeded(seed)
    for action in actions:
        while table.state.rolls == 0 or table.state.rerolling:
            table.resolve(source.roll(len(table.state.rerolling) or 5))
        table.act(0, action)
    return GAME.view(table.state, 0).totals[0]


def test_play_a_whole_game_from_a_script(cli: CliRunner) -> None:
    seed = 7
    first = Seeded(seed).roll(5)
    dice_line = "Dice:     " + "  ".join(map(str, first))
    script = [
        "x",  # not understood
        "9",  # no die 9
        "c",  # nothing chosen yet
        "1 2",  # select dice 1 and 2
        "fh",  # choose Full House: preview
        "o",  # start over: clears both, not the dice
        "c",  # the choice is gone
        "r",  # and so is the selection
        "12",  # select dice 1 and 2 again
        "r",  # re-roll them
        "chance",
        "c",
        "chance",  # already filled
        "r 1 1",  # a die named twice: refused, no re-roll used
        "",  # an empty answer: asked again
        "r 1 3",
        "r 5",
        "1",  # no re-rolls left
        "ones",
        "c",
    ]
    actions: list[Reroll | Score] = [
        Reroll((0, 1)),
        Score("chance"),
        Reroll((0, 2)),
        Reroll((4,)),
        Score("ones"),
    ]
    for box in BOXES:
        if box not in ("chance", "ones"):
            script += [box, "c"]
            actions.append(Score(box))
    result = cli("play", "boatzee", "--seats", "you", "--seed", str(seed), input="\n".join(script))
    out = result.out
    assert result.code == 0, out + result.err
    assert f"You roll: {' '.join(map(str, first))}" in out
    assert "Not understood" in out and "There is no die 9" in out
    assert out.count("Choose a box first") == 2
    assert "Full House would score" in out
    started_over = out.split("Move started over", 1)[1]
    assert started_over.split("\n")[2] == dice_line
    assert "Select the dice to re-roll first" in out
    assert "You re-roll dice 1, 2:" in out
    assert "Chance is already filled" in out
    assert "Die 1 is named twice: name each die once" in out
    assert "Type a move (? for help)." in out
    assert "You re-roll dice 1, 3:" in out and "You re-roll dice 5:" in out
    assert "No re-rolls left" in out
    assert "Upper toward 63" in out and "(n) = what these dice would score" in out
    assert out.count("Your scorecard") == 13 + 3  # once per roll the player saw
    assert f"Final score: {_expected_total(seed, actions)}" in out


def test_play_double_against_a_bot_then_leave(cli: CliRunner) -> None:
    result = cli(
        "play",
        "boatzee",
        "--seats",
        "you,bot:greedy",
        "--seed",
        "1",
        "--option",
        "columns=2",
        input="fh\nfh 3\nfh 2\nc\n",
    )
    assert result.code == 130
    out = result.out
    assert "Double Boatzee" in out and "x2" in out
    assert "Full House is open in columns 1, 2: which one?" in out
    assert "no column 3" in out
    assert "Full House (column 2) would score" in out
    assert "You score" in out and "in Full House (column 2)" in out
    assert "greedy bot rolls:" in out and "greedy bot scores" in out
    assert "Left the game." in out


def test_result_screen_names_the_winner_or_the_draw() -> None:
    ui = BoatzeeScreen()
    view = GAME.view(GAME.start(2, GAME.options({"columns": "2"})), None)
    for result, expected in [
        (Result((1,), (10, 20), 52), "Bob wins with 20."),
        (Result((0, 1), (20, 20), 52), "Draw between You and Bob with 20 each."),
        (Result((0,), (30, 20), 52), "You win with 30."),
    ]:
        console = Console(file=io.StringIO(), width=100)
        ui.show_result(console, view, result, ["You", "Bob"])
        text = console.file.getvalue()  # type: ignore[attr-defined]
        assert expected in text and "x2" in text


def test_hot_seat_prompts_each_player_by_name(cli: CliRunner) -> None:
    result = cli("play", "boatzee", "--seats", "alice,bob", "--seed", "2", input="ch\nc\n3k\nc\n")
    assert result.code == 130
    out = result.out
    assert "alice, your move" in out and "bob, your move" in out
    assert "alice's scorecard" in out and "bob's scorecard" in out
    assert "alice scores" in out and "in Chance" in out and "bob scores" in out
    assert "Totals: alice" in out
