"""Boatzee, Double and Triple Boatzee, with the official Yahtzee rules as a ruleset option."""

from dicehall.engine.bots import SlowBot
from dicehall.games.boatzee.card import Card, preview
from dicehall.games.boatzee.rules import (
    GAME,
    Boatzee,
    BoatzeeOptions,
    BoatzeeState,
    BoatzeeView,
    Reroll,
    Score,
)
from dicehall.games.boatzee.scoring import BOXES, Box, box_score
from dicehall.games.entry import GameEntry, LazyBots
from dicehall.games.rating import RatingKindSpec

BOTS = LazyBots(
    "dicehall.games.boatzee.bots",
    {
        "greedy": "greedy",
        "heuristic": "heuristic",
        "optimal": "optimal",
        "strong": "strong",
        "winmax": "winmax",
    },
)

#: The solved table takes about 12 s to build on first use; Double and Triple's relaxed
#: column tables (:mod:`flex_tables`) about 6 s a column on 2 cores; ``winmax``'s final-score
#: distributions (:mod:`final_scores`) about 10 s more.
SLOW_BOTS: dict[str, SlowBot] = {
    "optimal": SlowBot(fallback="heuristic", cold_seconds=20),
    "strong": SlowBot(fallback="heuristic", cold_seconds=20),
    "winmax": SlowBot(fallback="heuristic", cold_seconds=30),
}


def _games_of(columns: int) -> str:
    """Which games count for the kind of ``columns`` columns, in words."""
    plural = "s" if columns > 1 else ""
    return f"Boatzee with {columns} column{plural} (either ruleset, Boatzee or Yahtzee)"


ENTRY = GameEntry(
    "boatzee",
    GAME,
    BOTS.with_random(),
    slow_bots=SLOW_BOTS,
    blurb="Five dice, three rolls, thirteen boxes; in one, two or three columns.",
    hint="dicehall.games.boatzee.seat_hint:seat_hint",
    narration="dicehall.games.boatzee.narration:narrate",
    highlights="dicehall.games.boatzee.highlights:highlights",
    title="Boatzee",
    # Its columns decide the kind (the yahtzee ruleset rates as its column count); beta and
    # tau from ``bench/ratings_calibrate.py`` (the site's constants version 2, figures in
    # docs/site-ratings.md "Calibration").
    rating_kinds=(
        RatingKindSpec(
            "boatzee", "Boatzee", {"columns": 1}, _games_of(1), ladder=True, beta=2.2, tau=0.044
        ),
        RatingKindSpec(
            "boatzee-double",
            "Double Boatzee",
            {"columns": 2},
            _games_of(2),
            ladder=True,
            beta=2.4,
            tau=0.048,
        ),
        RatingKindSpec(
            "boatzee-triple",
            "Triple Boatzee",
            {"columns": 3},
            _games_of(3),
            ladder=True,
            beta=2.0,
            tau=0.04,
        ),
    ),
    luck="dicehall.games.boatzee.luck:MEASURE",
    encoder="dicehall.rl.encoders.boatzee:encoding",
    screen="dicehall.cli.screens.boatzee:BoatzeeScreen",
    commands="dicehall.cli.commands.boatzee",
    bot_notes={
        "greedy": "Takes the most points this turn, ignoring the rest of the card.",
        "heuristic": "This turn's points plus a rough worth of the boxes left open.",
        "optimal": "Exact solitaire play: the highest expected final score.",
        "strong": "As optimal; in Double and Triple, columns wait for the rolls that suit them.",
        "winmax": "Plays for the win: the best chance to finish ahead of the other cards.",
    },
)

__all__ = [
    "BOTS",
    "BOXES",
    "ENTRY",
    "GAME",
    "SLOW_BOTS",
    "Boatzee",
    "BoatzeeOptions",
    "BoatzeeState",
    "BoatzeeView",
    "Box",
    "Card",
    "Reroll",
    "Score",
    "box_score",
    "preview",
]
