"""The command line's shared behaviour: help, unknown games, bad seats and options."""

from __future__ import annotations

import json

import pytest

from dicehall import games
from dicehall.cli.common import SeatSpec, parse_bot_list, parse_seats
from dicehall.engine.errors import InvalidInput
from dicehall.games import strengths
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


@pytest.mark.parametrize("name", ["x[/oops]", "[bold]chess[/bold]", "[red"])
def test_errors_print_what_was_typed_verbatim(cli: CliRunner, name: str) -> None:
    """Brackets in an error's quoted input are text, never console markup (nor a crash)."""
    result = cli("rules", name)
    assert result.code == 2
    assert f"unknown game {name!r}" in result.err
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
    from dicehall.cli.commands.general import default_seats

    assert default_seats(games.get("tenthousand")) == "you,bot:heuristic"
    assert default_seats(games.get("bullseye")) == "you,bot:heuristic,bot:heuristic"


def test_a_command_whose_extra_is_missing_says_how_to_install_it(
    cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.util

    real = importlib.util.find_spec
    missing = {"fastapi", "sqlalchemy", "matplotlib"}

    def find_spec(name: str, *args: object) -> object:
        return None if name in missing else real(name, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    for args, extra in (
        (("serve",), "site"),
        (("check",), "site"),
        (("verify-dice", "batch.json"), "site"),
        (("sim", "boss", "--bots", "random,random", "-n", "2", "--plot", "x.png"), "plot"),
    ):
        result = cli(*args)
        assert result.code == 2, (args, result)
        assert f"pip install 'dicehall[{extra}]'" in result.err
        assert "Traceback" not in result.err + result.out


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (("odds", "holdem", "--samples", "abc"), "'--samples'"),
        (("--nope",), "No such option: --nope"),
        (("rules",), "Missing argument 'game'"),
        (("sim", "boss", "--bots", "random,random", "-n", "0"), "'--games'"),
    ],
)
def test_every_usage_error_is_one_line_with_exit_2(
    cli: CliRunner, args: tuple[str, ...], fragment: str
) -> None:
    result = cli(*args)
    assert result.code == 2, result
    assert result.err.startswith("error: ") and result.err.count("\n") == 1, result.err
    assert fragment in result.err and "-h)" in result.err
    assert "╭" not in result.err + result.out


def test_version_and_the_games_as_json(cli: CliRunner) -> None:
    from dicehall import __version__

    shown = cli("--version")
    assert (shown.code, shown.out.strip()) == (0, f"dicehall {__version__}")
    listed = cli("games", "--json")
    assert listed.code == 0
    data = json.loads(listed.out)
    assert [g["game"] for g in data][:5] == list(games.NAMES)
    boss = next(g for g in data if g["game"] == "boss")
    assert boss["min_seats"] == boss["max_seats"] == 2 and "equilibrium" in boss["slow_bots"]
    assert boss["options"]["horses"] == 2 and boss["hints"] is True
    ladder = strengths.ladders()["boss"]
    assert boss["bot_strengths"]["boss"] == {s.bot: s.to_json() for s in ladder.bots}
    boatzee = next(g for g in data if g["game"] == "boatzee")
    assert list(boatzee["bot_strengths"]) == ["boatzee", "boatzee-double", "boatzee-triple"]


def test_games_lists_each_bots_strength_strongest_first(cli: CliRunner) -> None:
    listed = cli("games")
    assert listed.code == 0
    lines = listed.out.splitlines()
    for ladder in strengths.ladders().values():
        shown = [line.split()[0] for line in lines if line.startswith("    ")]
        names = [s.bot for s in ladder.bots]
        # Each ladder's bots appear in their order, each with its rating and interval.
        assert any(shown[i : i + len(names)] == names for i in range(len(shown))), names
        first = ladder.bots[0]
        assert f"{first.rating} ({first.rating_low} .. {first.rating_high})" in listed.out
    assert "bot ladder with 2 columns, 2 seats, strongest first" in listed.out
    assert "python bench/bot_ladder.py" in listed.out


def test_help_and_light_commands_load_no_solver_stack() -> None:
    """``dicehall --help`` (and every group's help, rules, scores) starts without NumPy, SciPy,
    Numba or the site's stack: they load when a command needs them."""
    import subprocess
    import sys

    heavy: tuple[str, ...] = ("numpy", "scipy", "numba", "matplotlib", "fastapi", "sqlalchemy")
    heavy += ("uvicorn", "pettingzoo", "gymnasium", "pyspiel")
    runs = [
        ["--help"],
        ["play", "--help"],
        ["hint", "--help"],
        ["solve", "--help"],
        ["odds", "--help"],
        ["solve", "boss", "--help"],
        ["hint", "tenthousand", "--help"],
        ["rules", "boss"],
        ["games"],
        ["score", "tenthousand", "1,5"],
        ["score", "boatzee", "1,1,1,2,2"],
    ]
    code = (
        "import io, contextlib, json, sys\n"
        "from dicehall.cli.main import run\n"
        "loaded = {}\n"
        f"for args in {runs!r}:\n"
        "    with contextlib.redirect_stdout(io.StringIO()):\n"
        "        run(args)\n"
        f"    loaded[' '.join(args)] = [m for m in {heavy!r} if m in sys.modules]\n"
        "print(json.dumps(loaded))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert json.loads(out) == {" ".join(args): [] for args in runs}


@pytest.mark.parametrize("flag", ["--refresh", "--recompute"])
@pytest.mark.parametrize(
    ("game", "target", "keyword"),
    [
        ("tenthousand", "dicehall.games.tenthousand.cache.solution", "recompute"),
        ("boss", "dicehall.games.boss.equilibrium_store.load_or_solve", "refresh"),
    ],
)
def test_refresh_and_recompute_mean_the_same(
    cli: CliRunner, monkeypatch: pytest.MonkeyPatch, flag: str, game: str, target: str, keyword: str
) -> None:
    """Every ``solve`` that caches takes both names for "solve again"."""

    def solver(*args: object, **kwargs: object) -> None:
        raise InvalidInput(f"asked to solve again: {kwargs.get(keyword)}")

    monkeypatch.setattr(target, solver)
    result = cli("solve", game, flag)
    assert result.code == 2 and "asked to solve again: True" in result.err, result
    result = cli("solve", game)
    assert result.code == 2 and "asked to solve again: False" in result.err, result


def test_a_command_line_imports_only_the_game_commands_it_can_reach() -> None:
    """``dicehall --help`` imports no game's rules; ``hint boatzee`` only Boatzee's; a
    group's help still lists every game."""
    import subprocess
    import sys

    rules = [f"dicehall.games.{name}.rules" for name in games.NAMES]
    runs = [["--help"], ["play", "--help"], ["hint", "boatzee", "--help"], ["hint", "--help"]]
    code = (
        "import io, contextlib, json, sys\n"
        "from dicehall.cli.main import run\n"
        "loaded, shown = {}, {}\n"
        f"for args in {runs!r}:\n"
        "    out = io.StringIO()\n"
        "    with contextlib.redirect_stdout(out):\n"
        "        run(args)\n"
        f"    loaded[' '.join(args)] = [m for m in {rules!r} if m in sys.modules]\n"
        "    shown[' '.join(args)] = out.getvalue()\n"
        "print(json.dumps([loaded, shown]))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    loaded, shown = json.loads(out)
    assert loaded["--help"] == [] and loaded["play --help"] == []
    assert loaded["hint boatzee --help"] == ["dicehall.games.boatzee.rules"]
    assert all(name in shown["hint --help"] for name in games.NAMES)
    assert "hint" in shown["--help"] and "score" in shown["--help"]
