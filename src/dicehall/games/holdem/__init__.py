"""Hold'em Dice: poker with 20 coloured dice drawn from a bag."""

from __future__ import annotations

from dicehall.engine.bots import SlowBot
from dicehall.games.entry import GameEntry, LazyBots
from dicehall.games.holdem.rules import GAME, Holdem
from dicehall.games.rating import RatingKindSpec

BOTS = LazyBots("dicehall.games.holdem.bots", {"equity": "EquityBot", "cfr": "CfrBot"})

#: ``equity`` simulates up to a thousand deals a decision (up to about 2 s); ``cfr`` reads a
#: shipped table but works out its hand strength with the same kernels (and plays as
#: ``equity`` with more than two seats left).
SLOW_BOTS: dict[str, SlowBot] = {
    "equity": SlowBot(fallback="random", cold_seconds=5),
    "cfr": SlowBot(fallback="random", cold_seconds=5),
}

ENTRY = GameEntry(
    "holdem",
    GAME,
    BOTS.with_random(),
    slow_bots=SLOW_BOTS,
    blurb="Texas hold'em with dice: two pocket dice, five community dice, chips.",
    hint="dicehall.games.holdem.seat_hint:seat_hint",
    narration="dicehall.games.holdem.narration:narrate",
    highlights="dicehall.games.holdem.highlights:highlights",
    score_unit="chip",
    autopilot="equity",
    warm="dicehall.games.holdem.fastrank:warm",
    title="Hold'em Dice",
    # beta and tau from ``bench/ratings_calibrate.py`` (the site's constants version 2,
    # figures in docs/site-ratings.md "Calibration").
    rating_kinds=(RatingKindSpec("holdem", "Hold'em Dice", ladder=True, beta=6.1, tau=0.122),),
    # No luck measure: its dice are dealt to pockets and the board, not rolled by a player.
    encoder="dicehall.rl.encoders.holdem:encoding",
    alphabet=("k", "r", "w", "y"),
    screen="dicehall.cli.screens.holdem:HoldemScreen",
    commands="dicehall.cli.commands.holdem",
    hidden_from="dicehall.games.holdem.public_log:hidden_from",
    hidden_outcomes="dicehall.games.holdem.public_log:hidden_outcomes",
    bag=True,
    bot_notes={
        "equity": "Bets by its simulated share of the pot against the hands still in.",
        "cfr": "Heads-up, mixes its bets, calls and folds by a strategy trained by regret "
        "minimisation; with more players, plays as equity.",
    },
)

__all__ = ["BOTS", "ENTRY", "GAME", "SLOW_BOTS", "Holdem"]
