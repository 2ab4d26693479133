"""The terminal screens named by each game's entry, the generic screen for an installed game,
and the shared words of :mod:`dicehall.cli.narration`."""

from __future__ import annotations

import pytest

from dicehall import games
from dicehall.cli import narration
from dicehall.cli.screens import GenericScreen, screen_for
from dicehall.cli.screens.generic import action_text
from tests.conftest import CliRunner
from tests.engine.pig import Hold, RollAgain


def test_each_of_the_five_games_has_its_own_screen() -> None:
    for name in games.NAMES:
        assert games.get(name).screen is not None, name
        screen = screen_for(name)
        assert not isinstance(screen, GenericScreen)
        assert type(screen).__module__ == f"dicehall.cli.screens.{name}"
    assert isinstance(screen_for("pig"), GenericScreen)


@pytest.mark.usefixtures("installed_pig")
def test_an_installed_game_plays_on_the_generic_screen(cli: CliRunner) -> None:
    answers = "maybe\nroll again\n" + "1\n" * 200  # a bad answer, a move by name, then hold
    result = cli("play", "pig", "--seats", "you,bot:random", "--seed", "4", input=answers)
    assert result.code == 0, result.out[-2000:] + result.err
    out = result.out
    assert "banked: [0, 0]" in out and "turn_total:" in out  # the view, field by field
    assert "1) hold" in out and "2) roll again" in out
    assert "Type a number (1-2) or a move as listed." in out
    assert "You choose roll again." in out and "You choose hold." in out
    assert "random bot chooses" in out and "Dice: " in out
    assert "turns." in out and "Scores: You " in out


def test_action_text() -> None:
    assert action_text(Hold()) == "hold"
    assert action_text(RollAgain()) == "roll again"
    from dicehall.games.holdem.model import Bet

    assert action_text(Bet(20)) == "bet (amount 20)"


@pytest.mark.parametrize(
    ("phrase", "for_you"),
    [
        ("rolls", "roll"),
        ("is the Boss and keeps", "are the Boss and keep"),
        ("calls 10 and raises 10 (to 20)", "call 10 and raise 10 (to 20)"),
        ("goes all-in for 50", "go all-in for 50"),
        ("re-rolls dice 1, 3", "re-roll dice 1, 3"),
        ("loses 450", "lose 450"),
        ("passes", "pass"),
        ("chooses hold.", "choose hold."),
    ],
)
def test_verbs_agree_with_you(phrase: str, for_you: str) -> None:
    assert narration.agree("You", phrase) == for_you
    assert narration.agree("alice", phrase) == phrase
    assert narration.does("You", phrase) == f"You {for_you}"


def test_counted_nouns_and_dice() -> None:
    assert [narration.counted(n, "die") for n in (0, 1, 2)] == ["0 dice", "1 die", "2 dice"]
    assert narration.counted(1, "chip") == "1 chip" and narration.counted(3, "chip") == "3 chips"
    assert narration.dice_to_roll(0) == "6 (hot dice)" and narration.dice_to_roll(1) == "1 die"
    assert narration.whose("You") == "Your" and narration.whose("bob") == "bob's"
    assert narration.together(["ann", "bob"]) == "ann and bob"
    assert narration.faces((1, 5)) == "1,5" and narration.faces((1, 5), " ") == "1 5"
    assert narration.boxed_dice((3, 6)) == "[bold]\\[3][/] [bold]\\[6][/]"
    assert narration.coloured_dice(()) == "[dim]none[/]"
    assert narration.coloured_dice(("6r",)) == "[bold red]6r[/]"
