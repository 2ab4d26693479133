"""The commands every game has: ``play``, ``sim``, ``rules`` and ``games``."""

from __future__ import annotations

import random
from typing import Annotated

import typer

from dicehall import games
from dicehall.cli.apps import Groups
from dicehall.cli.common import (
    GameOptions,
    JsonTable,
    console,
    err_console,
    parse_bot_list,
    parse_seats,
    print_json,
)
from dicehall.cli.datadir import usable_data_dir
from dicehall.engine import codec
from dicehall.engine.dice import DiceSource, Seeded, System
from dicehall.engine.options import parse_pairs
from dicehall.games import strengths

GameName = Annotated[str, typer.Argument(help="Which game: " + ", ".join(games.NAMES))]


def default_seats(entry: games.GameEntry) -> str:
    """You against the game's heuristic bot (or its first bot), filling the minimum seats."""
    bots = sorted(b for b in entry.bots if b != "random")
    bot = "heuristic" if "heuristic" in bots else (bots[0] if bots else "random")
    return ",".join(["you"] + [f"bot:{bot}"] * (entry.game.default_seats - 1))


def _check_tables(entry: games.GameEntry, bots: list[str]) -> None:
    """Bots that think long keep tables in the data directory: check it before playing, and
    let the game's solves show their progress (see :func:`dicehall.cli.commands.prepare`)."""
    if any(bot in entry.slow_bots for bot in bots):
        usable_data_dir()
        from dicehall.cli.commands import prepare  # the package imports this module

        prepare(entry.name)


def play(
    game: GameName,
    seats: Annotated[
        str | None,
        typer.Option(
            "--seats",
            help="Comma-separated: you, a name, or bot:NAME (default: you against the game's "
            "heuristic bot, as many as the game needs).",
        ),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option("--seed", help="Reproducible dice (for practice); default: secure dice."),
    ] = None,
    option: GameOptions = None,
) -> None:
    """Play a game in the terminal: humans in hot seat, bots by name."""
    from dicehall.cli.screens import play_in_terminal, screen_for  # not for --help
    from dicehall.cli.warmup import warm_up

    entry = games.get(game)
    specs = parse_seats(seats or default_seats(entry))
    entry.game.check_seats(len(specs))
    options = entry.game.options(parse_pairs(option or []))
    for spec in specs:
        if spec.bot is not None:
            entry.bot(spec.bot, random.Random(0))
    _check_tables(entry, [s.bot for s in specs if s.bot is not None])
    screen = screen_for(entry.name)
    source: DiceSource = System() if seed is None else Seeded(seed)
    rng = random.Random(seed)
    try:
        bots = [s.bot for s in specs if s.bot is not None]
        warm_up(entry, bots, len(specs), options, console)
        play_in_terminal(entry, specs, options, source, console, screen, rng)
    except (KeyboardInterrupt, EOFError):
        console.print("\n[yellow]Left the game.[/]")
        raise SystemExit(130) from None


def sim(
    game: GameName,
    bots: Annotated[str, typer.Option("--bots", help="One bot per seat, e.g. heuristic,random.")],
    n_games: Annotated[
        int, typer.Option("--games", "-n", min=1, help="How many games to play.")
    ] = 1000,
    seed: Annotated[int, typer.Option("--seed", help="The same seed gives the same numbers.")] = 0,
    option: GameOptions = None,
    as_json: JsonTable = False,
    plot: Annotated[
        str | None,
        typer.Option("--plot", help="Also draw the results as a PNG: win shares, scores, turns."),
    ] = None,
) -> None:
    """Simulate many bot-only games: win share with a 95% interval, mean score, mean turns."""
    from dicehall.cli.sim import check_plot_path, report_table, save_plot, simulate
    from dicehall.cli.warmup import warm_up

    entry = games.get(game)
    names = parse_bot_list(bots)
    options = entry.game.options(parse_pairs(option or []))
    _check_tables(entry, names)
    picture = None if plot is None else check_plot_path(plot)
    entry.game.check_seats(len(names))
    try:
        warm_up(entry, names, len(names), options, err_console)
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
        save_plot(report, picture, entry.title)
    if as_json:
        data = report.as_json()
        if picture is not None:
            data["plot"] = str(picture)
        print_json(data)
    else:
        console.print(report_table(report))
        if picture is not None:
            console.print(f"Picture saved to {picture}", markup=False, soft_wrap=True)


def rules(game: GameName) -> None:
    """The rules of a game, exactly as dicehall implements them."""
    from rich.markdown import Markdown

    console.print(Markdown(games.get(game).rules_for("terminal")))


def list_games(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")] = False,
) -> None:
    """The games dicehall knows, with their seats, bots and default options."""
    if as_json:
        print_json([_game_json(games.get(name)) for name in games.available()])
        return
    for name in games.available():
        entry = games.get(name)
        console.print(f"[bold]{name}[/]  {entry.title}  bots: {', '.join(sorted(entry.bots))}")
        for ladder in strengths.ladders_of(name):
            console.print(f"  [dim]{_ladder_title(ladder)}:[/]", highlight=False)
            for found in ladder.bots:
                console.print(f"    {found.bot:<13} {found.short()}", highlight=False)
    if strengths.ladders():
        console.print(
            "[dim]Strongest first by share of the wins in that many ladder games (95% "
            "interval), each rated as the site rates players (95% interval) from the same "
            "games between the bots: python bench/bot_ladder.py[/]",
            highlight=False,
        )


def _ladder_title(ladder: strengths.KindLadder) -> str:
    columns = ladder.options.get("columns")
    form = f" with {columns} column{'s' * (columns != 1)}" if columns else ""
    return f"bot ladder{form}, {ladder.seats} seats, strongest first ({ladder.measured})"


def _game_json(entry: games.GameEntry) -> dict[str, object]:
    game = entry.game
    return {
        "game": entry.name,
        "title": entry.title,
        "blurb": entry.blurb,
        "min_seats": game.min_seats,
        "max_seats": game.max_seats,
        "default_seats": game.default_seats,
        "bots": sorted(entry.bots),
        "slow_bots": sorted(entry.slow_bots),
        "options": codec.encode(game.options({})),
        "hints": entry.hint is not None,
        "bot_strengths": {
            ladder.kind: {found.bot: found.to_json() for found in ladder.bots}
            for ladder in strengths.ladders_of(entry.name)
        },
    }


def register(groups: Groups) -> None:
    """Add ``play``, ``sim``, ``rules`` and ``games`` to the root command."""
    groups.root.command()(play)
    groups.root.command()(sim)
    groups.root.command()(rules)
    groups.root.command(name="games")(list_games)
