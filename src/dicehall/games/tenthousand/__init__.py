"""Ten Thousand: six dice, set aside scoring dice, bank or roll on, first to 10,000."""

from __future__ import annotations

from dicehall.engine.bots import SlowBot
from dicehall.games.entry import GameEntry, LazyBots
from dicehall.games.rating import RatingKindSpec
from dicehall.games.tenthousand.rules import (
    Bank,
    RollOn,
    SetAside,
    TenThousand,
    TenThousandAction,
    TenThousandOptions,
    TenThousandState,
    TenThousandView,
    TurnEnd,
)

GAME = TenThousand()
BOTS = LazyBots(
    "dicehall.games.tenthousand.bots",
    {
        "heuristic": "HeuristicBot",
        "threshold": "ThresholdBot",
        "max_expected": "ThresholdBot",
        "optimal": "OptimalBot",
    },
)

#: ``optimal`` solves its tables on first use for a game's options: about 30 s on an idle
#: machine (its estimate then follows the solve's own progress: ``progress`` below).
SLOW_BOTS: dict[str, SlowBot] = {"optimal": SlowBot(fallback="max_expected", cold_seconds=30)}

ENTRY = GameEntry(
    "tenthousand",
    GAME,
    BOTS.with_random(),
    slow_bots=SLOW_BOTS,
    blurb="Push your luck with six dice: bank your points or roll on and risk them.",
    hint="dicehall.games.tenthousand.seat_hint:seat_hint",
    narration="dicehall.games.tenthousand.narration:narrate",
    highlights="dicehall.games.tenthousand.highlights:highlights",
    fast_play="dicehall.games.tenthousand.fastsim:fast_play",
    progress="dicehall.games.tenthousand.cache:report_progress",
    title="Ten Thousand",
    # beta and tau from ``bench/ratings_calibrate.py`` (the site's constants version 2,
    # figures in docs/site-ratings.md "Calibration").
    rating_kinds=(RatingKindSpec("tenthousand", "Ten Thousand", ladder=True, beta=5.8, tau=0.116),),
    luck="dicehall.games.tenthousand.luck:MEASURE",
    encoder="dicehall.rl.encoders.tenthousand:encoding",
    screen="dicehall.cli.screens.tenthousand:TenThousandScreen",
    commands="dicehall.cli.commands.tenthousand",
    bot_notes={
        "heuristic": "Rules of thumb: keeps the most points, banks at 300 with few dice left.",
        "max_expected": "Banks by exact turn tables to score the most points a turn.",
        "threshold": "Another name for max_expected.",
        "optimal": "Plays for the best chance to win, from the exact solution.",
    },
)

__all__ = [
    "BOTS",
    "ENTRY",
    "GAME",
    "SLOW_BOTS",
    "Bank",
    "RollOn",
    "SetAside",
    "TenThousand",
    "TenThousandAction",
    "TenThousandOptions",
    "TenThousandState",
    "TenThousandView",
    "TurnEnd",
]
