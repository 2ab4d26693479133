"""Pig registered as a site game, so the site's machinery is tested apart from the five.

Its entry declares what a plug-in game may: a title of its own (not the Game's, so that a
surface titling it by its name or by its Game shows up), a slow bot (warmed at start-up like
the five's), a measure of luck and a reinforcement-learning encoder; it declares no rating
kinds, so it is rated as one kind named ``pig`` with the default constants.
"""

from __future__ import annotations

import numpy as np

from dicehall import games
from dicehall.engine.bots import RandomBot, SlowBot
from dicehall.games.luck import SUM_OF_FACES, LuckMeasure, sum_of_faces
from dicehall.rl.encoding import Encoding, Vector, rotated
from tests.engine.pig import PIG, Hold, PigOptions, PigState, PigView, RollAgain

PIG_PLUGIN = "tests.server.pig_entry:register_pig"
#: Pig's title on its entry (its Game's is "Pig").
TITLE = "Pig Dice"
#: A bot declared slow: it plays at random, but the site runs it in its bot processes.
SLOW_BOT = "slowpoke"


def roller(state: PigState) -> int | None:
    """Every roll of Pig is the current player's."""
    return state.current if state.rolling else None


#: Pig's luck: the faces of a player's own rolls against 3.5 a die.
LUCK = LuckMeasure(SUM_OF_FACES, roller, sum_of_faces)


def encoding(seats: int, options: PigOptions) -> Encoding:
    """Pig's actions (hold, roll again) and a vector of the banked points (mine first), the
    turn's total, each as a share of the target, and whether it is my turn."""

    def observe(view: PigView, seat: int) -> Vector:
        shares = [points / options.target for points in rotated(view.banked, seat)]
        mine = float(view.current == seat)
        return np.array([*shares, view.turn_total / options.target, mine], dtype=np.float32)

    return Encoding("pig", (Hold(), RollAgain()), seats + 2, observe)


ENTRY = games.GameEntry(
    "pig",
    PIG,
    {"random": RandomBot, SLOW_BOT: RandomBot},
    rules_text="# Pig\n",
    slow_bots={SLOW_BOT: SlowBot(fallback="random", cold_seconds=1)},
    bot_notes={SLOW_BOT: "Plays at random, in the site's bot processes."},
    title=TITLE,
    luck="tests.server.pig_entry:LUCK",
    encoder="tests.server.pig_entry:encoding",
)


def register_pig() -> None:
    """Make ``pig`` a game the site offers (idempotent)."""
    games.register(ENTRY)
