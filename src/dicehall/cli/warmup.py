"""Bots that think from tables get them before the first roll, never in the middle of a turn.

A slow bot (``GameEntry.slow_bots``) may need tables that take a while to build the first
time for a game's options (Ten Thousand's optimal bot: about a minute and a half). Built at
its first decision, they would freeze the game mid-turn; so ``play`` and ``sim`` build them
first, saying so. A game's own progress display (see :func:`dicehall.cli.commands.prepare`)
shows how long is left.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from time import perf_counter
from typing import Any

from rich.console import Console

from dicehall.engine import step
from dicehall.engine.dice import Seeded
from dicehall.games import GameEntry


def first_decision(entry: GameEntry, bot: str, seats: int, options: Any) -> None:
    """Deal a seeded game of ``seats`` with ``options`` until ``bot`` has made one decision:
    whatever tables it needs for these options are then built (or loaded) and kept."""
    step.first_decision(entry.game, entry.bot(bot, random.Random(0)), seats, options, Seeded(0))


def warm_up(
    entry: GameEntry, bots: Sequence[str], seats: int, options: Any, console: Console
) -> None:
    """Get every slow bot among ``bots`` ready for a game of ``seats`` with ``options``."""
    for bot in dict.fromkeys(b for b in bots if b in entry.slow_bots):
        cold = entry.slow_bots[bot].cold_seconds
        console.print(
            f"Getting the {bot} bot's tables ready before the first roll "
            f"(at once when they are cached; the first time up to about {cold} s).",
            style="dim",
        )
        started = perf_counter()
        first_decision(entry, bot, seats, options)
        took = perf_counter() - started
        if took >= 1:
            console.print(
                f"The {bot} bot is ready after {took:.0f} s; its tables are kept for next time.",
                style="dim",
            )
