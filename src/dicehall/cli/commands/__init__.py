"""The commands: each game's own module (named by its entry, ``GameEntry.commands``) and the
shared ones.

Each module parses its arguments, asks the game package, and prints a typed report: a
:class:`~dicehall.cli.common.Report` as JSON for ``--json``, or Rich text. Every module has a
``register(groups)`` that adds its commands to the groups of :mod:`dicehall.cli.apps`.
"""

from __future__ import annotations

import importlib
from collections.abc import Collection, Sequence

from dicehall import games
from dicehall.cli.apps import Groups
from dicehall.cli.commands import (
    admin,
    backup,
    fairness,
    general,
    mail,
    ratings,
    site,
    tables,
    vapid,
    witness,
)

#: The groups that gather one command per game.
GAME_GROUPS = frozenset({"score", "odds", "hint", "solve"})


def prepare(name: str) -> None:
    """Ready the terminal for a game's strategy before play or a simulation: a game's
    command module may define ``prepare()`` (Ten Thousand's shows a bar for its solves)."""
    module = games.get(name).commands
    if module is not None:
        hook = getattr(importlib.import_module(module), "prepare", None)
        if hook is not None:
            hook()


def register_all(groups: Groups, game_commands: Collection[str] | None = None) -> None:
    """Add every command: the shared ones, the site's, then each installed game's.

    ``game_commands`` limits the games whose own commands (``score``, ``odds``, ``hint``,
    ``solve``) are added, so that a command line that needs none of them imports no rules;
    None adds every installed game's.
    """
    general.register(groups)
    site.register(groups)
    admin.register(groups)
    backup.register(groups)
    mail.register(groups)
    fairness.register(groups)
    ratings.register(groups)
    tables.register(groups)
    vapid.register(groups)
    witness.register(groups)
    names = games.available() if game_commands is None else game_commands
    for name in names:
        entry = games.find(name)
        if entry is not None and entry.commands is not None:
            importlib.import_module(entry.commands).register(groups)


def game_commands_for(argv: Sequence[str]) -> Collection[str] | None:
    """The games whose own commands ``argv`` can reach: none unless it starts with a game
    group (``score``, ``odds``, ``hint``, ``solve``); then the game it names, or every game
    (None) for the group's help or an unknown name, which is listed with the known ones.
    Only the game named is loaded."""
    words = [word for word in argv if not word.startswith("-")]
    if not words or words[0] not in GAME_GROUPS:
        return ()
    if len(words) > 1:
        entry = games.find(words[1])
        if entry is not None and entry.name == words[1] and entry.commands is not None:
            return (entry.name,)
    return None
