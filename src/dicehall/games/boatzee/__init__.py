"""Boatzee, Double and Triple Boatzee, with the official Yahtzee rules as a ruleset option."""

from dicehall.games.boatzee.bots import BOTS
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

__all__ = [
    "BOTS",
    "BOXES",
    "GAME",
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
