"""``dicehall hint|odds|play|sim|rules bullseye`` in-process."""

from __future__ import annotations

import json

import pytest

from tests.conftest import CliRunner


def test_hint_json(cli: CliRunner) -> None:
    result = cli("hint", "bullseye", "--target", "27", "--total", "12", "--throws", "1", "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data == {
        "kind": "choice",
        "target": 27,
        "total": 12,
        "throws": 1,
        "stop": 0.0,
        "throw": pytest.approx(175 / 9),
        "best": "throw",
        "basis": "exact",
        "basis_text": "Exact: this round's expected points under best play, every throw to "
        "come counted.",
    }


def test_hint_before_the_first_throw_has_no_stop(cli: CliRunner) -> None:
    text = cli("hint", "bullseye", "--target", "27").out
    stop = next(line for line in text.splitlines() if "stop" in line)
    throw = next(line for line in text.splitlines() if "throw 3 dice" in line)
    assert "not allowed" in stop and "14.089" in throw and "best" in throw
    # Before the first throw the seat has nothing to decide: the site's hint waits too.
    data = json.loads(cli("hint", "bullseye", "--target", "27", "--json").out)
    assert data == {"kind": "wait", "note": "No decision for you right now."}


def test_hint_after_the_last_throw_has_no_throw(cli: CliRunner) -> None:
    result = cli("hint", "bullseye", "--target", "23", "--total", "23", "--throws", "3", "--json")
    data = json.loads(result.out)
    assert data["kind"] == "choice" and (data["total"], data["throws"]) == (23, 3)
    assert (data["stop"], data["throw"], data["best"]) == (50.0, None, "stop")


def test_hint_text(cli: CliRunner) -> None:
    result = cli("hint", "bullseye", "--target", "27", "--total", "12", "--throws", "1")
    assert result.code == 0
    assert "Bull's Eye 27: total 12, 1 throw taken" in result.out
    lines = result.out.splitlines()
    stop = next(line for line in lines if "stop" in line and "0.000" in line)
    throw = next(line for line in lines if "throw 2 dice" in line)
    assert "19.444" in throw and "best" in throw and "best" not in stop


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--target", "40"], "a Bull's Eye is 14 to 32, not 40"),
        (["--target", "20", "--total", "12"], "--total needs --throws"),
        (["--target", "20", "--total", "5", "--throws", "1"], "impossible after 1 throw"),
        (["--target", "20", "--throws", "4"], "throws taken must be 0 to 3"),
        (["--target", "20", "--total", "7", "--throws", "0"], "before the first throw"),
    ],
)
def test_hint_bad_input_is_a_one_line_error(cli: CliRunner, args: list[str], message: str) -> None:
    for as_json in ((), ("--json",)):
        result = cli("hint", "bullseye", *args, *as_json)
        assert result.code == 2
        assert message in result.err
        assert "Traceback" not in result.err + result.out
        assert result.out == ""


def test_odds_json(cli: CliRunner) -> None:
    result = cli("odds", "bullseye", "--json")
    assert result.code == 0
    data = json.loads(result.out)
    assert set(data) == {"target", "mean"}
    assert list(data["target"]) == [str(t) for t in range(14, 33)]
    assert sum(data["target"].values()) == pytest.approx(1.0)
    assert data["target"]["14"] == pytest.approx(1 / 8000)
    assert data["mean"] == 24.5


def test_odds_text(cli: CliRunner) -> None:
    result = cli("odds", "bullseye")
    assert result.code == 0
    assert "1/8000" in result.out and "Mean Bull's Eye 24.500" in result.out


def test_rules(cli: CliRunner) -> None:
    result = cli("rules", "bullseye")
    assert result.code == 0
    for words in ("matching rule", "bet_limit", "target_points", "allow_two_seats"):
        assert words in result.out


def test_sim_json(cli: CliRunner) -> None:
    result = cli("sim", "bullseye", "--bots", "optimal,heuristic,random", "-n", "30", "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["mean_turns"] == 6
    assert [s["bot"] for s in data["seats"]] == ["optimal", "heuristic", "random"]
    assert sum(s["win_share"] for s in data["seats"]) == pytest.approx(1.0)


def test_sim_two_seats_need_the_house_rule(cli: CliRunner) -> None:
    result = cli("sim", "bullseye", "--bots", "optimal,random", "-n", "5")
    assert result.code == 2 and "allow_two_seats=true" in result.err
    ok = cli("sim", "bullseye", "--bots", "optimal,random", "-n", "5", "-o", "allow_two_seats=1")
    assert ok.code == 0, ok.err


def test_bad_option_is_a_one_line_error(cli: CliRunner) -> None:
    result = cli("sim", "bullseye", "--bots", "random,random,random", "-o", "bank=-1")
    assert result.code == 2 and "bank must be 0" in result.err
    assert "Traceback" not in result.err


# Seed 3 with these seats: the optimal bot leads; "You" throws last, first 6 4 1 (11 against
# a Bull's Eye of 22), then 5 2 (18).
PLAY = ("play", "bullseye", "--seats", "you,bot:optimal,bot:heuristic", "--seed", "3")


def test_play_a_round_in_the_terminal(cli: CliRunner) -> None:
    result = cli(*PLAY, "-o", "rounds=1", input="x\n0\nmaybe\nt\n2\ns\n")
    assert result.code == 0, result.err
    out = result.out
    assert "optimal bot leads the first round." in out
    assert "a pair of 5s: the matching rule re-rolls them" in out
    assert "Type a whole number of chips from 0 to 10." in out  # "x" re-prompted
    assert "Type s to stop or t to throw on." in out  # "maybe" re-prompted
    assert "You throw on with 2 dice" in out
    assert "You bet 2 chips (pot 2)" in out
    assert "You stop on 18" in out
    assert "You: 18 scores 20" in out
    assert "the pot of 2 chips goes to heuristic bot (2)" in out
    assert "heuristic bot wins with 30 points." in out


def test_play_end_of_input_leaves_cleanly(cli: CliRunner) -> None:
    result = cli(*PLAY, input="0\n")
    assert result.code == 130
    assert "Left the game." in result.out
    assert "Traceback" not in result.out + result.err


def test_play_needs_three_seats_by_default(cli: CliRunner) -> None:
    result = cli("play", "bullseye", "--seats", "you,bot:optimal", input="")
    assert result.code == 2 and "3 to 8 seats" in result.err


def test_play_unknown_bot(cli: CliRunner) -> None:
    result = cli("play", "bullseye", "--seats", "you,bot:genius,bot:optimal", input="")
    assert result.code == 2 and "no bot 'genius'" in result.err


def test_play_as_the_lead(cli: CliRunner) -> None:
    # Seed 1: "You" throws 12 for the lead against 8 and 10, so leads the only round. The
    # lead takes all three throws and never bets (it cannot take the round's pot): the
    # screen asks the lead nothing, so no input is needed.
    args = ("play", "bullseye", "--seats", "you,bot:optimal,bot:optimal", "--seed", "1")
    result = cli(*args, "-o", "rounds=1", input="")
    assert result.code == 0, result.err
    out = result.out
    assert "You lead the first round." in out
    assert out.count("You throw again: the lead takes all three throws") == 2
    # Which of the lead's dice counted: all of the first throw, then the highest two, one.
    assert "  counts: all three dice, +10; the Bull's Eye is 10 so far" in out
    assert "  counts: the two highest, 5 and 3 (not 1), +8; the Bull's Eye is 18 so far" in out
    assert "  counts: the highest, 6 (not 5 2), +6; the Bull's Eye is 24" in out
    assert "6 3 1 | 5 3 (1)" in out  # the table shows it too, the dice not counted in brackets
    assert "the lead's dice in brackets do not count" in out
    assert "Stop (s)" not in out  # the lead is never asked to stop
    assert "Bet " not in out and "You bet" not in out  # nor to bet
    assert "The Bull's Eye is 24." in out
    assert "three 2s: the matching rule re-rolls them" in out
    assert "the pot of 20 chips goes to optimal bot 2 (20)" in out
    standing = out[out.index("Final standing after 1 round") :]
    assert "│ You           │      0 │  100 │" in standing


def test_the_leads_throws_mark_the_dice_that_do_not_count() -> None:
    from dicehall.cli.screens.bullseye import lead_throws

    assert lead_throws([(1, 6, 3), (5, 1, 3), (5, 2, 6)]) == "6 3 1 | 5 3 (1) | 6 (5 2)"
    assert lead_throws([]) == "-"
