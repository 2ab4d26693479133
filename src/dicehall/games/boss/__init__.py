"""Boss Dice: two seats, a Boss with a concealed roll, and an exact odds engine."""

from __future__ import annotations

from dicehall.engine.bots import SlowBot
from dicehall.games.boss.rules import (
    GAME,
    Boss,
    BossAction,
    BossOptions,
    BossState,
    BossView,
    ComeUp,
    HandRecord,
    Keep,
    NoBoss,
    PickedUp,
    PickUp,
    Showdown,
)
from dicehall.games.entry import GameEntry, LazyBots
from dicehall.games.rating import RatingKindSpec

BOTS = LazyBots(
    "dicehall.games.boss.bots",
    {"equilibrium": "EquilibriumBot", "heuristic": "HeuristicBot", "odds": "OddsBot"},
)

#: ``equilibrium`` solves the hand's linear program on first use (about 2 s).
SLOW_BOTS: dict[str, SlowBot] = {"equilibrium": SlowBot(fallback="odds", cold_seconds=3)}

ENTRY = GameEntry(
    "boss",
    GAME,
    BOTS.with_random(),
    slow_bots=SLOW_BOTS,
    blurb="Two players; the Boss rolls under the cup and calls come up or pick 'em up.",
    hint="dicehall.games.boss.seat_hint:seat_hint",
    narration="dicehall.games.boss.narration:narrate",
    score_unit="horse",
    title="Boss Dice",
    # beta and tau from ``bench/ratings_calibrate.py`` (the site's constants version 2,
    # figures in docs/site-ratings.md "Calibration").
    rating_kinds=(RatingKindSpec("boss", "Boss Dice", ladder=True, beta=15.0, tau=0.3),),
    luck="dicehall.games.boss.luck:MEASURE",
    encoder="dicehall.rl.encoders.boss:encoding",
    screen="dicehall.cli.screens.boss:BossScreen",
    commands="dicehall.cli.commands.boss",
    hidden_from="dicehall.games.boss.public_log:hidden_from",
    hidden_outcomes="dicehall.games.boss.public_log:hidden_outcomes",
    bot_notes={
        "heuristic": "A plain player: comes up with two pair, keeps its largest group.",
        "odds": "Plays by the exact odds of every keep and call.",
        "equilibrium": "The solved equilibrium of a hand: nothing beats it on average.",
    },
)

__all__ = [
    "BOTS",
    "ENTRY",
    "GAME",
    "SLOW_BOTS",
    "Boss",
    "BossAction",
    "BossOptions",
    "BossState",
    "BossView",
    "ComeUp",
    "HandRecord",
    "Keep",
    "NoBoss",
    "PickUp",
    "PickedUp",
    "Showdown",
]
