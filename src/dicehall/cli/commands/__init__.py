"""The commands: one module per game (``dicehall.cli.commands.<game>``) and the shared ones.

Each module parses its arguments, asks the game package, and prints a typed report: a
:class:`~dicehall.cli.common.Report` as JSON for ``--json``, or Rich text. Every module has a
``register(groups)`` that adds its commands to the groups of :mod:`dicehall.cli.apps`.
"""

from __future__ import annotations

import importlib

from dicehall import games
from dicehall.cli.apps import Groups
from dicehall.cli.commands import fairness, general, ratings, site

#: The command module of each game that has commands of its own (``score``, ``odds``,
#: ``hint``, ``solve``); an installed game without one has ``play``, ``sim`` and ``rules``.
GAME_COMMANDS: dict[str, str] = {name: f"dicehall.cli.commands.{name}" for name in games.NAMES}


def prepare(name: str) -> None:
    """Ready the terminal for a game's strategy before play or a simulation: a game's
    command module may define ``prepare()`` (Ten Thousand's shows a bar for its solves)."""
    module = GAME_COMMANDS.get(name)
    if module is not None:
        hook = getattr(importlib.import_module(module), "prepare", None)
        if hook is not None:
            hook()


def register_all(groups: Groups) -> None:
    """Add every command: the shared ones, the site's, then each installed game's."""
    general.register(groups)
    site.register(groups)
    fairness.register(groups)
    ratings.register(groups)
    for name in games.available():
        module = GAME_COMMANDS.get(name)
        if module is not None:
            importlib.import_module(module).register(groups)
