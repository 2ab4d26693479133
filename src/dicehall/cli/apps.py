"""The Typer applications: the root command and the per-game command groups.

Each game's CLI module (``dicehall.cli.<game>``) adds its own subcommands to the groups here,
so ``dicehall score tenthousand ...`` and ``dicehall odds boss ...`` live beside their game.
"""

from __future__ import annotations

import typer

_SETTINGS = {"help_option_names": ["-h", "--help"]}


def _group(help_text: str, *, root: bool = False) -> typer.Typer:
    return typer.Typer(
        help=help_text,
        add_completion=root,
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        context_settings=_SETTINGS,
    )


app = _group(
    "dicehall: five classic dice games with exact rules, fair dice and exact solvers.", root=False
)
score_app = _group("Score dice: what each choice is worth under the rules.")
odds_app = _group("Exact odds and probabilities.")
hint_app = _group("The best move in a position, with every choice ranked.")
solve_app = _group("Solve a game exactly and report the figures.")

app.add_typer(score_app, name="score")
app.add_typer(odds_app, name="odds")
app.add_typer(hint_app, name="hint")
app.add_typer(solve_app, name="solve")
