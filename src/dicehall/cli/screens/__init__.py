"""The terminal screens: a game's own, named by its entry (``GameEntry.screen``), or the
generic one.

A game without a screen of its own (one installed from another package, like Pig) is played
on the :class:`~dicehall.cli.screens.generic.GenericScreen`, which lists its view and its
legal actions.
"""

from __future__ import annotations

from dicehall import games
from dicehall.cli.screens.base import Screen, play_in_terminal
from dicehall.cli.screens.generic import GenericScreen
from dicehall.games.entry import load


def screen_for(game_name: str) -> Screen:
    """The terminal screen of a game: its own (imported now), or the generic one."""
    entry = games.find(game_name)
    reference = None if entry is None else entry.screen
    if reference is None:
        return GenericScreen()
    screen: Screen = load(reference)()
    return screen


__all__ = ["GenericScreen", "Screen", "play_in_terminal", "screen_for"]
