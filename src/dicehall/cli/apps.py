"""The Typer applications: the root command and the per-game command groups.

:func:`build` makes them afresh; the command modules (:mod:`dicehall.cli.commands`) add their
commands to them, so ``dicehall score tenthousand ...`` lives in the Ten Thousand module
beside ``dicehall hint tenthousand ...``. Nothing is registered by being imported.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

import typer

from dicehall import __version__

_SETTINGS = {"help_option_names": ["-h", "--help"]}


def _group(help_text: str) -> typer.Typer:
    return typer.Typer(
        help=help_text,
        add_completion=False,
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        context_settings=_SETTINGS,
    )


def _show_version(wanted: bool) -> None:
    if wanted:
        typer.echo(f"dicehall {__version__}")
        raise typer.Exit(0)


def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_show_version,
            is_eager=True,
            help="Print dicehall's version and exit.",
        ),
    ] = False,
) -> None:
    """dicehall: five classic dice games with exact rules, fair dice and exact solvers."""


@dataclass(frozen=True)
class Groups:
    """The root command and the groups that gather one command per game."""

    root: typer.Typer
    score: typer.Typer
    odds: typer.Typer
    hint: typer.Typer
    solve: typer.Typer


def build() -> Groups:
    """A fresh root command with its empty ``score``, ``odds``, ``hint`` and ``solve`` groups."""
    groups = Groups(
        root=_group(
            "dicehall: five classic dice games with exact rules, fair dice and exact solvers."
        ),
        score=_group("Score dice: what each choice is worth under the rules."),
        odds=_group("Exact odds and probabilities."),
        hint=_group("The best move in a position, with every choice ranked."),
        solve=_group("Solve a game exactly and report the figures."),
    )
    groups.root.callback()(_root)
    groups.root.add_typer(groups.score, name="score")
    groups.root.add_typer(groups.odds, name="odds")
    groups.root.add_typer(groups.hint, name="hint")
    groups.root.add_typer(groups.solve, name="solve")
    return groups
