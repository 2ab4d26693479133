"""The terminal screens: one module per game (``dicehall.cli.screens.<game>``), found by name.

A game without a screen of its own (one installed from another package, like Pig) is played
on the :class:`~dicehall.cli.screens.generic.GenericScreen`, which lists its view and its
legal actions.
"""

from __future__ import annotations

from dicehall.cli.screens.base import Screen, play_in_terminal
from dicehall.cli.screens.generic import GenericScreen
from dicehall.games.entry import load

#: The screen class of each game that has one, as ``"module:class"`` (imported when played).
SCREENS: dict[str, str] = {
    "tenthousand": "dicehall.cli.screens.tenthousand:TenThousandScreen",
    "boatzee": "dicehall.cli.screens.boatzee:BoatzeeScreen",
    "boss": "dicehall.cli.screens.boss:BossScreen",
    "holdem": "dicehall.cli.screens.holdem:HoldemScreen",
    "bullseye": "dicehall.cli.screens.bullseye:BullseyeScreen",
}


def screen_for(game_name: str) -> Screen:
    """The terminal screen of a game: its own, or the generic one."""
    reference = SCREENS.get(game_name)
    if reference is None:
        return GenericScreen()
    screen: Screen = load(reference)()
    return screen


__all__ = ["SCREENS", "GenericScreen", "Screen", "play_in_terminal", "screen_for"]
