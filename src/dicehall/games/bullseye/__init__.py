"""Bull's Eye: the lead sets a target with three throws; the others try to match it."""

from dicehall.engine.bots import SlowBot
from dicehall.games.bullseye.model import (
    BullseyeAction,
    BullseyeOptions,
    BullseyeState,
    BullseyeView,
    LeadChoice,
    Round,
    RoundSummary,
    RoundView,
    Stop,
    ThrowOn,
)
from dicehall.games.bullseye.rules import GAME, BullsEye
from dicehall.games.entry import GameEntry, LazyBots
from dicehall.games.rating import RatingKindSpec

BOTS = LazyBots(
    "dicehall.games.bullseye.bots",
    {"optimal": "OptimalBot", "heuristic": "HeuristicBot", "potmax": "PotMaxBot"},
)

#: ``optimal`` and ``potmax`` work out exact score distributions, up to about 0.2 s a
#: decision.
SLOW_BOTS: dict[str, SlowBot] = {
    "optimal": SlowBot(fallback="heuristic", cold_seconds=1),
    "potmax": SlowBot(fallback="heuristic", cold_seconds=1),
}

ENTRY = GameEntry(
    "bullseye",
    GAME,
    BOTS.with_random(),
    slow_bots=SLOW_BOTS,
    blurb="Throw at the Bull's Eye value, stop when you dare, and bet on it.",
    hint="dicehall.games.bullseye.seat_hint:seat_hint",
    narration="dicehall.games.bullseye.narration:narrate",
    highlights="dicehall.games.bullseye.highlights:highlights",
    # Version 2 (23 Nov 2026): the lead does not bet, and a pot carried at the end goes to
    # the winners. Version 1 let the lead bet and left that pot.
    rules_version=2,
    old_rulings={1: {"lead_bets": True, "last_pot_shared": False}},
    title="Bull's Eye",
    # beta and tau from ``bench/ratings_calibrate.py`` (the site's constants version 2,
    # figures in docs/site-ratings.md "Calibration").
    rating_kinds=(RatingKindSpec("bullseye", "Bull's Eye", beta=7.7, tau=0.154),),
    luck="dicehall.games.bullseye.luck:MEASURE",
    encoder="dicehall.rl.encoders.bullseye:encoding",
    screen="dicehall.cli.screens.bullseye:BullseyeScreen",
    commands="dicehall.cli.commands.bullseye",
    bot_notes={
        "heuristic": "Throws on while more than 3 short; bets the most on an exact hit.",
        "potmax": "Exact throws for the largest share of the pot; bets only on a sure pot.",
        "optimal": "Exact throws for the most expected points; bets on its chances.",
    },
)

__all__ = [
    "BOTS",
    "ENTRY",
    "GAME",
    "SLOW_BOTS",
    "BullsEye",
    "BullseyeAction",
    "BullseyeOptions",
    "BullseyeState",
    "BullseyeView",
    "LeadChoice",
    "Round",
    "RoundSummary",
    "RoundView",
    "Stop",
    "ThrowOn",
]
