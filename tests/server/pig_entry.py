"""Pig registered as a site game, so the site's machinery is tested apart from the five."""

from __future__ import annotations

from dicehall import games
from dicehall.engine.bots import RandomBot
from tests.engine.pig import PIG

PIG_PLUGIN = "tests.server.pig_entry:register_pig"


def register_pig() -> None:
    """Make ``pig`` a game the site offers (idempotent)."""
    games.register(games.GameEntry("pig", PIG, {"random": RandomBot}, rules_text="# Pig\n"))
