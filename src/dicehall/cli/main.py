"""The ``dicehall`` command: play, score, odds, hint, solve, sim, rules."""

from __future__ import annotations

import importlib
import random
import sys
from typing import Optional

import typer
from rich.markdown import Markdown

from dicehall import games
from dicehall.cli.apps import app
from dicehall.cli.common import console, fail, parse_bot_list, parse_seats, print_json
from dicehall.cli.sim import check_plot_path, report_table, save_plot, simulate
from dicehall.cli.terminal import play_in_terminal, ui_for
from dicehall.engine.dice import DiceSource, Seeded, System
from dicehall.engine.errors import DicehallError
from dicehall.engine.options import parse_pairs

OptionList = Optional[list[str]]  # noqa: UP045 - Typer needs Optional here


def _load_game_clis() -> None:
    importlib.import_module("dicehall.cli.site")
    for name in games.available():
        try:
            importlib.import_module(f"dicehall.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"dicehall.cli.{name}":
                raise


def default_seats(entry: games.GameEntry) -> str:
    """You against the game's heuristic bot (or its first bot), filling the minimum seats."""
    bots = sorted(b for b in entry.bots if b != "random")
    bot = "heuristic" if "heuristic" in bots else (bots[0] if bots else "random")
    return ",".join(["you"] + [f"bot:{bot}"] * (entry.game.default_seats - 1))


@app.command()
def play(
    game: str = typer.Argument(..., help="Which game: " + ", ".join(games.NAMES)),
    seats: Optional[str] = typer.Option(  # noqa: UP045
        None,
        "--seats",
        help="Comma-separated: you, a name, or bot:NAME (default: you against the game's "
        "heuristic bot, as many as the game needs).",
    ),
    seed: Optional[int] = typer.Option(  # noqa: UP045
        None, "--seed", help="Reproducible dice (for practice); default: secure dice."
    ),
    option: OptionList = typer.Option(None, "--option", "-o", help="A game option, name=value."),
) -> None:
    """Play a game in the terminal: humans in hot seat, bots by name."""
    entry = games.get(game)
    specs = parse_seats(seats or default_seats(entry))
    entry.game.check_seats(len(specs))
    options = entry.game.options(parse_pairs(option or []))
    for spec in specs:
        if spec.bot is not None:
            entry.bot(spec.bot, random.Random(0))
    ui = ui_for(entry.name)
    if ui is None:
        fail(f"{entry.game.title} has no terminal screen yet")
    source: DiceSource = System() if seed is None else Seeded(seed)
    rng = random.Random(seed)
    try:
        play_in_terminal(entry, specs, options, source, console, ui, rng)
    except (KeyboardInterrupt, EOFError):
        console.print("\n[yellow]Left the game.[/]")
        raise SystemExit(130) from None


@app.command()
def sim(
    game: str = typer.Argument(..., help="Which game: " + ", ".join(games.NAMES)),
    bots: str = typer.Option(..., "--bots", help="One bot per seat, e.g. heuristic,random."),
    n_games: int = typer.Option(1000, "--games", "-n", min=1, help="How many games to play."),
    seed: int = typer.Option(0, "--seed", help="The same seed gives the same numbers."),
    option: OptionList = typer.Option(None, "--option", "-o", help="A game option, name=value."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
    plot: Optional[str] = typer.Option(  # noqa: UP045
        None, "--plot", help="Also draw the results as a PNG: win shares, scores, turns."
    ),
) -> None:
    """Simulate many bot-only games: win share with a 95% interval, mean score, mean turns."""
    entry = games.get(game)
    names = parse_bot_list(bots)
    options = entry.game.options(parse_pairs(option or []))
    picture = None if plot is None else check_plot_path(plot)
    try:
        report = simulate(
            entry,
            names,
            n_games,
            seed,
            options,
            progress=not as_json,
            keep_scores=picture is not None,
        )
    except KeyboardInterrupt:
        console.print("\n[yellow]Simulation stopped.[/]")
        raise SystemExit(130) from None
    if picture is not None:
        save_plot(report, picture, entry.game.title)
    if as_json:
        data = report.as_json()
        if picture is not None:
            data["plot"] = str(picture)
        print_json(data)
    else:
        console.print(report_table(report))
        if picture is not None:
            console.print(f"Picture saved to {picture}", markup=False, soft_wrap=True)


@app.command()
def rules(game: str = typer.Argument(..., help="Which game: " + ", ".join(games.NAMES))) -> None:
    """The rules of a game, exactly as dicehall implements them."""
    console.print(Markdown(games.get(game).rules))


@app.command(name="games")
def list_games() -> None:
    """The games dicehall knows, with their bots."""
    for name in games.available():
        entry = games.get(name)
        console.print(f"[bold]{name}[/]  {entry.game.title}  bots: {', '.join(sorted(entry.bots))}")


def run(argv: list[str]) -> int:
    """Run the command line on ``argv``; return the exit status (2 for bad input)."""
    _load_game_clis()
    try:
        app(args=argv, prog_name="dicehall")
    except SystemExit as exc:
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except DicehallError as exc:
        try:
            fail(str(exc))
        except SystemExit as failed:
            return int(failed.code or 2)
    return 0


def main() -> None:
    """Entry point of the ``dicehall`` console script."""
    sys.exit(run(sys.argv[1:]))
