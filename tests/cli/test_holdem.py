"""``dicehall`` for Hold'em Dice: odds, score, rules, sim and the terminal game."""

from __future__ import annotations

import json

import pytest

from tests.conftest import CliRunner


def test_odds_with_pocket_and_board_as_json(cli: CliRunner) -> None:
    result = cli("odds", "holdem", "--pocket", "6r,6k", "--board", "6w,2y,3r", "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert list(data["categories"]) == [
        "yahtzee_flush",
        "straight_flush",
        "five_kind",
        "flush",
        "four_kind",
        "straight",
        "full_house",
        "three_kind",
        "two_pair",
        "one_pair",
        "nothing",
    ]
    assert sum(data["categories"].values()) == pytest.approx(1.0)
    assert data["exact"] is True
    assert data["win"] == pytest.approx(0.7720984, abs=1e-6)
    assert data["tie"] == pytest.approx(0.0469922, abs=1e-6)
    assert "stderr" not in data


def test_odds_with_nothing_given_is_the_exact_seven_dice_distribution(cli: CliRunner) -> None:
    data = json.loads(cli("odds", "holdem", "--json").out)
    assert data["exact"] is True and "win" not in data
    assert data["categories"]["one_pair"] == 0.0
    assert data["categories"]["two_pair"] == pytest.approx(0.31336497, abs=1e-8)


def test_odds_monte_carlo_states_its_error_and_is_reproducible(cli: CliRunner) -> None:
    args = ("odds", "holdem", "--pocket", "6r,6k", "--opponents", "3", "--samples", "20000")
    first = json.loads(cli(*args, "--seed", "4", "--json").out)
    again = json.loads(cli(*args, "--seed", "4", "--json").out)
    other = json.loads(cli(*args, "--seed", "5", "--json").out)
    assert first == again and first["win"] != other["win"]
    assert first["exact"] is False and first["samples"] == 20000
    assert 0 < first["stderr"]["win"] < 0.01
    text = cli(*args, "--seed", "4")
    assert "Monte Carlo, 20,000 deals, seed 4" in text.out
    assert "Win " in text.out and "four of a kind" in text.out


def test_odds_table_in_words(cli: CliRunner) -> None:
    result = cli("odds", "holdem", "--pocket", "6r,6k", "--board", "6w,2y,3r")
    assert result.code == 0
    assert "Win 77.21%" in result.out and "exact" in result.out
    assert "Yahtzee flush" in result.out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--pocket", "6x,6k"), "'6x' is not a die"),
        (("--pocket", "6r"), "--pocket: expected 2 dice, got 1"),
        (("--board", "1r,2r,3r,4r,5r,6r"), "--board: expected 0 to 5 dice, got 6"),
        (("--pocket", "6r,6r", "--board", "1r,2r,3r,4r"), "6 red dice"),
        (("--pocket", "6r,6k", "--opponents", "0"), "--opponents: expected 1 to 5, got 0"),
        (("--pocket", "6r,6k", "--samples", "0"), "--samples"),
    ],
)
def test_odds_bad_input_is_one_clear_line(
    cli: CliRunner, args: tuple[str, ...], message: str
) -> None:
    result = cli("odds", "holdem", *args)
    assert result.code == 2
    assert message in result.err
    assert "Traceback" not in result.err


def test_score_ranks_the_best_five(cli: CliRunner) -> None:
    result = cli("score", "holdem", "3r,2k,4r,4k,2w,1y,5k", "--json")
    assert result.code == 0
    data = json.loads(result.out)
    assert data["category"] == "straight" and data["faces"] == [5, 4, 3, 2, 1]
    # Of the ways to make 1-5, the one with three black dice wins the colour key.
    assert sorted(data["best"]) == sorted(["1y", "2k", "3r", "4k", "5k"])
    assert data["colour"] == 3
    words = cli("score", "holdem", "4r,4k,4w,3y,3r")
    assert "full house" in words.out
    bad = cli("score", "holdem", "4r,4k,4w")
    assert bad.code == 2 and "expected 5 to 7 dice, got 3" in bad.err


def test_rules_and_games_list(cli: CliRunner) -> None:
    assert "max_flop_rerolls" in cli("rules", "holdem").out
    assert "equity" in cli("games").out


def test_sim_reports_per_seat(cli: CliRunner) -> None:
    result = cli("sim", "holdem", "--bots", "equity,random", "-n", "4", "-o", "stack=30", "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert [s["bot"] for s in data["seats"]] == ["equity", "random"]
    assert sum(s["win_share"] for s in data["seats"]) == pytest.approx(1.0)
    assert sum(s["mean_score"] for s in data["seats"]) == pytest.approx(60)
    assert data["mean_turns"] >= 1


def test_play_a_whole_game_in_the_terminal(cli: CliRunner) -> None:
    result = cli(
        "play",
        "holdem",
        "--seats",
        "you,bot:equity",
        "--seed",
        "5",
        "-o",
        "stack=30",
        input="c\n" * 200,
    )
    assert result.code == 0, result.err
    out = result.out
    assert "Your pocket dice: 6y 5r" in out
    assert "Your move (fold, check, bet 10)" in out
    assert "Everyone checked: the flop is re-rolled" in out
    assert "You call 10." in out
    assert "Showdown." in out and "equity bot shows 5y 5k: full house" in out
    assert "Game over after 1 hand. Winner: equity bot" in out


def test_play_reprompts_on_bad_moves(cli: CliRunner) -> None:
    result = cli(
        "play",
        "holdem",
        "--seats",
        "you,bot:random",
        "--seed",
        "2",
        "-o",
        "stack=30",
        input="bet 15\nhello\nraise 20\nfold 10\nraise -10\nraise +10\nraise\n",
    )
    assert result.code == 0, result.err
    out = result.out
    # A sign is refused, never dropped: "raise -10" is not a raise of 10.
    assert "'raise -10': an amount is a whole number, like bet 10" in out
    assert "'raise +10': an amount is a whole number" in out
    assert "you can't bet now; you may: fold, call, raise 10" in out
    assert "'hello' is not a move" in out
    assert "a raise here must be 10, not 20" in out
    assert "fold takes no amount" in out
    assert "You call 10 and raise 10 (to 20)." in out
    assert "Game over" in out


def test_end_of_input_leaves_the_game_cleanly(cli: CliRunner) -> None:
    result = cli("play", "holdem", "--seats", "you,bot:random", "--seed", "2", input="")
    assert result.code == 130
    assert "Left the game" in result.out
    assert "Traceback" not in result.out + result.err


def test_two_humans_see_only_their_own_pocket(cli: CliRunner) -> None:
    result = cli(
        "play",
        "holdem",
        "--seats",
        "you,alice",
        "--seed",
        "3",
        "-o",
        "stack=20",
        input="\nf\ny\n" * 40,
    )
    assert result.code == 0, result.err
    assert "Pass the keyboard to" in result.out
    assert "Your pocket dice" not in result.out  # narration is for the table, not a seat
    assert "Game over" in result.out


def test_a_fold_typed_as_one_letter_is_confirmed_in_hot_seat(cli: CliRunner) -> None:
    """``f`` sits beside ``c``: a slip must not throw a hand away. ``f`` asks "Fold? [y/N]"
    (anything but yes keeps the hand and asks for the move again); the word ``fold`` folds."""
    result = cli(
        "play",
        "holdem",
        "--seats",
        "you,alice",
        "--seed",
        "3",
        "-o",
        "stack=20",
        # alice: f, Enter (no), then c; you: f, n, then the word fold; later f and y.
        input="\nf\n\nc\n\nf\nn\nfold\n" + "\nf\ny\n" * 40,
    )
    assert result.code == 0, result.err
    out = result.out
    checks, folds = out.index("alice checks."), out.index("You fold.")
    assert out[:checks].count("Fold? [y/N] Not folded.") == 1
    assert out[checks:folds].count("Fold? [y/N] Not folded.") == 1
    # The word needs no confirmation.
    assert "Fold?" not in out[out.rindex("Not folded.", 0, folds) : folds]
    assert "Game over" in out


def test_bad_options_and_bots(cli: CliRunner) -> None:
    bad = cli("play", "holdem", "--seats", "you,bot:equity", "-o", "stack=15")
    assert bad.code == 2 and "stack must be a multiple of 10" in bad.err
    bad = cli("play", "holdem", "--seats", "you", "--seed", "1")
    assert bad.code == 2 and "2 to 6 seats" in bad.err
    bad = cli("sim", "holdem", "--bots", "equity,shark", "-n", "1")
    assert bad.code == 2 and "no bot 'shark'" in bad.err


def test_long_odds_are_dealt_in_chunks_and_pooled_exactly(monkeypatch: pytest.MonkeyPatch) -> None:
    from dicehall.cli.commands import holdem_odds
    from dicehall.games.holdem.equity import equity, odds

    pocket, board = ("6r", "6k"), ()
    # Up to one chunk the answer is the library's own.
    assert holdem_odds.odds_in_chunks(pocket, board, 3, 3000, 5) == odds(
        pocket, board, 3, samples=3000, seed=5
    )
    monkeypatch.setattr(holdem_odds, "CHUNK", 1000)
    told: list[tuple[int, int]] = []
    pooled = holdem_odds.odds_in_chunks(
        pocket, board, 3, 2500, 5, lambda done, total: told.append((done, total))
    )
    assert told == [(0, 2500), (1000, 2500), (2000, 2500), (2500, 2500)]
    parts = [
        (n, equity(pocket, board, 3, samples=n, seed=holdem_odds.chunk_seed(5, i)))
        for i, n in enumerate((1000, 1000, 500))
    ]
    assert holdem_odds.chunk_seed(5, 0) == 5
    assert pooled.win == pytest.approx(sum(n * p.win for n, p in parts) / 2500)
    assert pooled.tie == pytest.approx(sum(n * p.tie for n, p in parts) / 2500)
    assert pooled.share == pytest.approx(sum(n * p.share for n, p in parts) / 2500)
    assert pooled.samples == 2500 and not pooled.exact and pooled.stderr is not None
    # The pooled standard errors are those of one estimate of that many deals.
    single = equity(pocket, board, 3, samples=2500, seed=9)
    assert single.stderr is not None
    for key in ("win", "tie", "share"):
        assert pooled.stderr[key] == pytest.approx(single.stderr[key], rel=0.15)
    assert holdem_odds.odds_in_chunks(pocket, board, 3, 2500, 5) == pooled  # reproducible


def test_check_and_call_words_mean_what_the_docs_say() -> None:
    """docs/holdem.md: ``c``/``k`` check or call as allowed; ``check`` only with nothing owed,
    ``call`` only facing a bet; the other is refused, never turned into the allowed move."""
    from dicehall.cli.screens.holdem import parse_action
    from dicehall.engine import Seeded, Table, ToAct
    from dicehall.engine.errors import InvalidInput
    from dicehall.games.holdem import GAME
    from dicehall.games.holdem.model import Bet, Call, Check

    table = Table(GAME, 2, GAME.options({}))
    turn = table.advance(Seeded(5), {})
    assert isinstance(turn, ToAct)
    legal = GAME.legal(table.state, turn.seat)
    view = GAME.view(table.state, turn.seat)
    assert Check() in legal and Call() not in legal  # nothing owed
    assert parse_action("check", view, legal) == parse_action("c", view, legal) == Check()
    assert parse_action("k", view, legal) == Check()
    with pytest.raises(InvalidInput, match="can't do that now"):
        parse_action("call", view, legal)
    table.act(turn.seat, next(a for a in legal if isinstance(a, Bet)))
    turn = table.advance(Seeded(5), {})
    assert isinstance(turn, ToAct)
    legal = GAME.legal(table.state, turn.seat)
    view = GAME.view(table.state, turn.seat)
    assert Call() in legal and Check() not in legal  # facing the bet
    assert parse_action("call", view, legal) == parse_action("c", view, legal) == Call()
    assert parse_action("k", view, legal) == Call()
    with pytest.raises(InvalidInput, match="can't do that now"):
        parse_action("check", view, legal)
