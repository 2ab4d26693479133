"""``dicehall odds boss``, ``hint boss``, ``play boss``, ``sim boss`` and ``rules boss``."""

from __future__ import annotations

import io
import json
import re

import pytest
from rich.console import Console

from dicehall.cli.screens.boss import BossScreen
from dicehall.engine import Scripted
from dicehall.games.boss import GAME, BossOptions, BossState, ComeUp, Keep
from dicehall.games.boss.hands import faces_text
from dicehall.games.boss.odds import rank_keeps
from dicehall.games.boss.seat_hint import STATED_BASIS
from tests.conftest import CliResult, CliRunner


def flat(text: str) -> str:
    """Output with Rich's line wrapping undone."""
    return " ".join(text.split())


def bad(result: CliResult, message: str) -> None:
    assert result.code == 2, result.out + result.err
    assert message in flat(result.err)
    assert "Traceback" not in result.err + result.out
    assert len(result.err.strip().splitlines()) <= 3  # one error line, at most wrapped


# -- odds --------------------------------------------------------------------------------------


def test_odds_json_shape_and_the_seed_figure(cli: CliRunner) -> None:
    result = cli("odds", "boss", "--boss", "6,6,4,4,1", "--keep", "3,3", "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert set(data) == {"win", "push", "lose", "odds_against"}
    assert data["win"] == pytest.approx(4 / 9) and data["push"] == 0.0
    assert data["lose"] == pytest.approx(5 / 9) and data["odds_against"] == pytest.approx(1.25)


@pytest.mark.parametrize(
    ("boss", "keep", "figure"),
    [
        ("6,6,4,4,1", "3,3", "1.25 to 1"),
        ("6,6,4,4,1", "6", "3 to 1"),
        ("6,6,6,4,1", "3,3", "5 to 1"),
        ("6,6,6,4,1", "6", "16.05 to 1"),
        ("4,4,4,1,2", "5,5", "1.25 to 1"),
    ],
)
def test_odds_text_prints_x_to_1(cli: CliRunner, boss: str, keep: str, figure: str) -> None:
    result = cli("odds", "boss", "--boss", boss, "--keep", keep)
    assert result.code == 0, result.err
    assert f"Odds against the opponent: {figure}" in flat(result.out)


def test_odds_against_kept_dice_and_keeping_nothing(cli: CliRunner) -> None:
    result = cli("odds", "boss", "--boss-kept", "6,6", "--keep", "none", "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["win"] + data["push"] + data["lose"] == pytest.approx(1.0)
    result = cli("odds", "boss", "--boss", "6,6,6,6,6", "--keep", "1,1,1,1")
    assert "no chance" in result.out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--keep", "3,3"], "give the Boss's hand (--boss) or only his kept dice (--boss-kept)"),
        (["--keep", "3,3", "--boss", "6,6,4,4,1", "--boss-kept", "6,6"], "not both"),
        (["--keep", "3,3", "--boss", "6,6,4,4"], "expected 5 dice, got 4"),
        (["--keep", "3,3", "--boss", "6,6,4,4,9"], "'9' is not a die face"),
        (["--keep", "3,3,4,4", "--boss", "6,6,4,4,1"], "keeping two pairs"),
        (["--keep", "3,x", "--boss", "6,6,4,4,1"], "'x' is not a die face"),
        (["--keep", "1,1,1,1,1,1", "--boss", "6,6,4,4,1"], "at most 5 dice"),
        (["--keep", "3,3", "--boss-kept", "6,5"], "dice that made him Boss"),
    ],
)
def test_odds_bad_input(cli: CliRunner, args: list[str], message: str) -> None:
    bad(cli("odds", "boss", *args), message)


# -- hint --------------------------------------------------------------------------------------


def test_hint_ranks_every_legal_keep(cli: CliRunner) -> None:
    result = cli("hint", "boss", "--roll", "3,3,6,2,1", "--boss-kept", "6,6")
    assert result.code == 0, result.err
    assert "Roll 1 2 3 3 6 vs the Boss's kept 6 6, concealed dice unknown" in flat(result.out)
    rows = [line.split("│") for line in result.out.splitlines() if line.count("│") == 9]
    expected = rank_keeps((3, 3, 6, 2, 1), boss_kept=(6, 6))
    assert len(rows) == len(expected) == 24
    assert [row[2].strip() for row in rows] == [faces_text(r.keep) or "nothing" for r in expected]
    assert rows[0][2].strip() == "3 3" and rows[0][3].strip() == "3"
    equities = [float(row[7]) for row in rows]
    assert equities == sorted(equities, reverse=True)


def test_hint_json_is_the_opponents_seat_hint(cli: CliRunner) -> None:
    result = cli("hint", "boss", "--roll", "3,3,6,2,1", "--boss-kept", "6,6", "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["kind"] == "keep" and data["best"] == [3, 3]
    keeps = data["keeps"]
    expected = rank_keeps((3, 3, 6, 2, 1), boss_kept=(6, 6))[:5]
    assert [k["keep"] for k in keeps] == [list(r.keep) for r in expected]
    assert keeps[0]["rolled"] == 3 and keeps[0]["equity"] == float(expected[0].odds.equity)
    assert set(keeps[0]) == {
        "keep",
        "rolled",
        "win",
        "push",
        "lose",
        "odds_against",
        "odds_against_text",
        "equity",
    }
    for keep in keeps:
        # A number for programs, a short phrase for people (never 2.4714285714285715).
        assert isinstance(keep["odds_against"], float | None)
        assert re.fullmatch(r"\d+(\.\d{1,2})? to 1|no chance", keep["odds_against_text"])
    # The Boss's hand is hidden from the opponent: stated with --json it is refused, never
    # ignored in silence (exit 2, the reason on stderr, nothing printed).
    stated = cli("hint", "boss", "--roll", "3,3,6,2,1", "--boss-kept", "6,6", "--boss", "6,6,5,5,1")
    assert stated.code == 0 and STATED_BASIS in flat(stated.out)
    with_hand = cli(
        "hint", "boss", "--roll", "3,3,6,2,1", "--boss-kept", "6,6", "--boss", "6,6,5,5,1", "--json"
    )
    bad(with_hand, "the Boss's hand (--boss) is hidden from him")
    assert with_hand.out == ""


def test_hint_against_a_stated_hand_by_win(cli: CliRunner) -> None:
    text = cli("hint", "boss", "--roll", "3,3,6,2,1", "--boss", "6,6,4,4,1", "--by", "win")
    assert text.code == 0
    assert "1.25 to 1" in text.out and "3 to 1" in text.out and "nothing" in text.out
    rows = [line.split("│") for line in text.out.splitlines() if line.count("│") == 9]
    assert rows[0][2].strip() == "3 3" and rows[0][8].strip() == "1.25 to 1"
    six = next(row for row in rows if row[2].strip() == "6")
    assert six[8].strip() == "3 to 1"
    wins = [float(row[4].strip().rstrip("%")) for row in rows]
    assert wins == sorted(wins, reverse=True)
    # The site's hint is the opponent's: it sees the kept dice, never the hand, by equity.
    bad(
        cli("hint", "boss", "--roll", "3,3,6,2,1", "--boss", "6,6,4,4,1", "--json"),
        "the Boss's kept dice (--boss-kept), not his hand",
    )
    bad(
        cli("hint", "boss", "--roll", "3,3,6,2,1", "--boss-kept", "6,6", "--by", "win", "--json"),
        "--json ranks keeps by equity",
    )


def test_hint_for_the_bosss_call(cli: CliRunner) -> None:
    args = ["--call", "--boss", "4,4,4,1,2", "--boss-kept", "4,4,4", "--roll", "5,5,1,2,3"]
    result = cli("hint", "boss", *args, "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["kind"] == "call" and data["best"] == "come_up"
    assert data["pick_up_equity"] == 0.5
    assert data["come_up"]["win"] == pytest.approx(5 / 9)
    assert data["come_up_equity"] == pytest.approx(5 / 9)
    assert data["reply"] == [5, 5]
    text = cli("hint", "boss", *args)
    assert "Call: come up" in flat(text.out) and "keep 5 5 and roll 3" in flat(text.out)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--roll", "3,3,6,2", "--boss-kept", "6,6"], "expected 5 dice, got 4"),
        (["--roll", "3,3,6,2,1"], "give the Boss's kept dice"),
        (["--roll", "3,3,6,2,1", "--boss-kept", "6,6,1"], "dice that made him Boss"),
        (["--roll", "6,6,6,2,1", "--boss-kept", "6,6"], "not below the Boss's"),
        (["--roll", "3,3,6,2,1", "--boss-kept", "6,6", "--by", "luck"], "--by must be"),
        (["--roll", "3,3,6,2,1", "--call", "--boss-kept", "6,6"], "--call needs"),
        (
            ["--roll", "3,3,6,2,1", "--call", "--boss-kept", "6,6", "--boss", "5,5,4,4,1"],
            "does not hold his kept dice",
        ),
    ],
)
def test_hint_bad_input(cli: CliRunner, args: list[str], message: str) -> None:
    bad(cli("hint", "boss", *args), message)
    bad(cli("hint", "boss", *args, "--json"), message)


# -- rules and sim -----------------------------------------------------------------------------


def test_rules(cli: CliRunner) -> None:
    result = cli("rules", "boss")
    assert result.code == 0
    assert "max_pickups" in result.out and "Pick 'em up" in result.out


def test_sim(cli: CliRunner) -> None:
    result = cli("sim", "boss", "--bots", "odds,heuristic", "-n", "30", "--seed", "4", "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["games"] == 30 and [s["bot"] for s in data["seats"]] == ["odds", "heuristic"]
    assert sum(s["win_share"] for s in data["seats"]) == pytest.approx(1.0)
    assert data["mean_turns"] >= 2
    bad(cli("sim", "boss", "--bots", "odds,random,random", "-n", "3"), "takes 2 seats, not 3")
    bad(cli("sim", "boss", "--bots", "odds,random", "-o", "horses=0"), "horses must be 1 to 25")


# -- the terminal game -------------------------------------------------------------------------


def test_play_scripted_hand_keeps_the_bosss_roll_hidden(
    cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    def losing_roll(keep: tuple[int, ...], others: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(f for f in others if f not in keep)[: 5 - len(keep)]

    reply = rank_keeps((1, 2, 3, 4, 6), boss_kept=(5, 5, 5))[0].keep
    dice = [
        (3, 3, 6, 2, 1),  # you
        (6, 6, 5, 2, 1),  # the odds bot: Boss with a pair of 6s
        (4, 4, 4),  # his concealed roll: a full house
        (1, 2, 5),  # your roll after keeping 3 3
        (5, 5, 5, 1, 2),  # you: Boss with three 5s
        (1, 2, 3, 4, 6),  # the bot: no pair
        (5, 3),  # your concealed roll: four 5s
        losing_roll(reply, (1, 2, 3, 4, 6)),  # the bot's roll: nothing
        (2, 2, 1, 3, 4),  # you: Boss with a pair of 2s
        (1, 3, 4, 5, 6),
        (6, 6, 1),
        (6, 6, 6, 6, 6),  # after your pick-up: five 6s, nothing to roll
        (1, 1, 2, 3, 4),
    ]
    bot_keep = rank_keeps((1, 1, 2, 3, 4), boss_kept=(6, 6, 6, 6, 6))[0].keep
    dice.append((1,) * (5 - len(bot_keep)))
    monkeypatch.setattr("dicehall.cli.commands.general.Seeded", lambda seed: Scripted(dice))
    answers = ["3,3,5", "3,3", "come", "u", "x", "p", "u"]
    result = cli(
        "play", "boss", "--seats", "you,bot:odds", "--seed", "1", input="\n".join(answers) + "\n"
    )
    assert result.code == 0, result.err
    out = flat(result.out)
    first_showdown = out.index("Showdown:")
    assert "[4]" not in out[:first_showdown]  # the Boss's concealed 4 4 4 stayed hidden
    assert "odds bot rolls 3 dice under the cup" in out
    assert "[4] [4] [4] [6] [6] (a full house, 4s over 6s)" in out[first_showdown:]
    assert "Your first roll 3 3 6 2 1 has no 5." in out
    assert "You keep [3] [3], rolling 3." in out
    assert "Type u to call 'come up' or p to pick 'em up." in out
    assert "Your hidden roll: [5] [3], your hand [5] [5] [5] [5] [3] (four 5s)" in out
    assert 'You say "Pick \'em up."' in out
    assert "Your hidden roll: none" in out
    assert "You win the match, horses You 2, odds bot 1, after 4 hands" in out


def test_play_seeded_game_to_the_end(cli: CliRunner) -> None:
    answers = "u\nnone\n" * 60
    result = cli("play", "boss", "--seats", "you,bot:odds", "--seed", "7", input=answers)
    assert result.code == 0, result.err
    assert "the match" in flat(result.out)


def test_play_hot_seat_passes_the_keyboard(cli: CliRunner) -> None:
    answers = "\nu\n\nnone\n" * 60
    result = cli("play", "boss", "--seats", "alice,bob", "--seed", "3", input=answers)
    assert result.code == 0, result.err
    out = flat(result.out)
    assert "Pass the keyboard to" in out and "under the cup" in out and "the match" in out


def test_play_default_opponent_and_leaving(cli: CliRunner) -> None:
    result = cli("play", "boss", "--seed", "2", input="")
    assert result.code == 130
    assert "Left the game" in result.out
    assert "Traceback" not in result.out + result.err
    bad(cli("play", "boss", "-o", "max_pickups=many"), "max_pickups")


# -- the screen, directly ----------------------------------------------------------------------


def _screen() -> Console:
    return Console(file=io.StringIO(), width=200, color_system=None)


def _text(console: Console) -> str:
    file = console.file
    assert isinstance(file, io.StringIO)
    return file.getvalue()


def _at_call(max_pickups: int | None = None) -> BossState:
    state = GAME.start(2, BossOptions(max_pickups=max_pickups))
    for dice in [(6, 6, 1, 2, 3), (3, 3, 6, 2, 1), (5, 4, 5)]:
        state = GAME.resolve(state, dice)
    return state


def test_screen_shows_the_concealed_roll_to_the_boss_only() -> None:
    state = _at_call()
    for seat, shown in [(0, True), (1, False), (None, False)]:
        console = _screen()
        BossScreen().render(console, GAME.view(state, seat), ["ann", "bob"])
        text = _text(console)
        assert "ann is the Boss and keeps [6] [6]." in text
        assert ("Your hidden roll: [5] [4] [5]" in text) is shown
        if not shown:
            assert "ann's other 3 dice are under the cup" in text
            assert "[4]" not in text and "hidden" not in text


def test_screen_refuses_a_pick_up_past_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    state = _at_call(max_pickups=0)
    monkeypatch.setattr("sys.stdin", io.StringIO("p\nu\n"))
    console = _screen()
    action = BossScreen().choose(console, GAME.view(state, 0), GAME.legal(state, 0), ["You", "bob"])
    assert action == ComeUp()
    assert "no more pick-ups this hand; you must come up" in _text(console)


def test_screen_keep_prompt(monkeypatch: pytest.MonkeyPatch) -> None:
    state = GAME.act(_at_call(), 0, ComeUp())
    view, legal = GAME.view(state, 1), GAME.legal(state, 1)
    monkeypatch.setattr("sys.stdin", io.StringIO("3,3,2,2\n9\nall\n"))
    console = _screen()
    assert BossScreen().choose(console, view, legal, ["ann", "You"]) == Keep((1, 2, 3, 3, 6))
    text = _text(console)
    assert "keeping two pairs (3 3 and 2 2) is not allowed" in text
    assert "'9' is not a die face" in text


def test_screen_keep_prompt_refuses_an_empty_answer_and_counts_the_dice_short(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An empty Enter keeps nothing only when "none" is typed; a keep the first roll cannot
    give says how many of that face the roll has."""
    state = GAME.act(_at_call(), 0, ComeUp())
    view, legal = GAME.view(state, 1), GAME.legal(state, 1)
    roll = view.first_rolls[1]
    face = max(set(roll), key=roll.count)
    have = roll.count(face)
    too_many = ",".join([str(face)] * (have + 1))
    monkeypatch.setattr("sys.stdin", io.StringIO(f"\n{too_many}\nnone\n"))
    console = _screen()
    assert BossScreen().choose(console, view, legal, ["ann", "You"]) == Keep(())
    text = _text(console)
    assert "Type the dice to keep (like 3,3), none, or all." in text
    words = {1: "one", 2: "two", 3: "three", 4: "four"}
    shown = f"{face}s" if have > 1 else str(face)
    assert f"has {words[have]} {shown} (not {words[have + 1]})" in text
