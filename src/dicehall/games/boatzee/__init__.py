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

ENTRY = GameEntry(
    "boatzee",
    GAME,
    BOTS.with_random(),
    slow_bots=SLOW_BOTS,
    blurb="Five dice, three rolls, thirteen boxes; in one, two or three columns.",
    hint="dicehall.games.boatzee.seat_hint:seat_hint",
    narration="dicehall.games.boatzee.narration:narrate",
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
