"""The command line's shared behaviour: help, unknown games, bad seats and options."""

from __future__ import annotations

import pytest

from dicehall.cli.common import SeatSpec, parse_bot_list, parse_seats
from dicehall.engine.errors import InvalidInput
from tests.conftest import CliRunner


def test_help_lists_commands(cli: CliRunner) -> None:
    result = cli("--help")
    assert result.code == 0
    for command in ("play", "sim", "rules", "score", "odds", "hint", "solve"):
        assert command in result.out


def test_unknown_game_is_a_one_line_error(cli: CliRunner) -> None:
    result = cli("rules", "chess")
    assert result.code == 2
    assert "unknown game 'chess'" in result.err
    assert "Traceback" not in result.err + result.out


def test_parse_seats() -> None:
    assert parse_seats("you,bot:heuristic,alice") == [
        SeatSpec("You"),
        SeatSpec("heuristic bot", "heuristic"),
        SeatSpec("alice"),
    ]
    assert [s.name for s in parse_seats("bot:random,bot:random")] == [
        "random bot",
        "random bot 2",
    ]
    for bad in ("you,,bot:x", "bot:", "<script>"):
        with pytest.raises(InvalidInput):
            parse_seats(bad)


def test_parse_bot_list() -> None:
    assert parse_bot_list("heuristic, bot:random") == ["heuristic", "random"]
    with pytest.raises(InvalidInput):
        parse_bot_list("heuristic,")


def test_default_seats_fill_each_game() -> None:
    from dicehall import games
    from dicehall.cli.main import default_seats

    assert default_seats(games.get("tenthousand")) == "you,bot:heuristic"
    assert default_seats(games.get("bullseye")) == "you,bot:heuristic,bot:heuristic"
