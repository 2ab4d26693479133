"""``dicehall solve --all``: every slow bot's tables for its game's default options, built
(or found cached) ahead of time, so a site's first games against them need no warm-up."""

from __future__ import annotations

from time import perf_counter
from typing import Annotated

import typer

from dicehall import games
from dicehall.cli.apps import Groups
from dicehall.cli.common import console, print_json


def solve_all(
    ctx: typer.Context,
    every: Annotated[
        bool,
        typer.Option(
            "--all",
            help="Build every slow bot's tables for each game's default options (a site's "
            "bot workers then start warm); cached tables are only loaded.",
        ),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object at the end.")] = False,
) -> None:
    """Solve a game exactly and report the figures."""
    if ctx.invoked_subcommand is not None:
        return
    if not every:
        console.print(ctx.get_help(), markup=False)
        raise typer.Exit(0)
    from dicehall.cli.warmup import first_decision

    built: list[dict[str, object]] = []
    for name in games.available():
        entry = games.get(name)
        options = entry.game.options({})
        seats = max(entry.game.min_seats, entry.game.default_seats)
        for bot, slow in entry.slow_bots.items():
            if not as_json:
                console.print(
                    f"{name} {bot}: building (up to about {slow.cold_seconds:g} s the first time)",
                    markup=False,
                )
            started = perf_counter()
            first_decision(entry, bot, seats, options)
            seconds = round(perf_counter() - started, 2)
            built.append({"game": name, "bot": bot, "seconds": seconds})
            if not as_json:
                console.print(f"{name} {bot}: ready in {seconds:g} s", markup=False)
    if as_json:
        print_json({"tables": built})


def register(groups: Groups) -> None:
    """Give the ``solve`` group its ``--all``."""
    groups.solve.callback(invoke_without_command=True)(solve_all)
