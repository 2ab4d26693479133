"""Pig as an installable game: the entry a separate distribution would export."""

from __future__ import annotations

from dicehall.engine.bots import RandomBot
from dicehall.games.entry import GameEntry
from tests.engine.pig import PIG

ENTRY = GameEntry(
    "pig",
    PIG,
    {"random": RandomBot},
    rules_text="# Pig\n\nRoll a die: a 1 ends your turn with nothing; hold to bank the rest.\n",
    blurb="The smallest dice game: roll or hold, and never roll a one.",
)
