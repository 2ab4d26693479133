"""Hold'em Dice: poker with 20 coloured dice drawn from a bag."""

from __future__ import annotations

from dicehall.engine.bots import BotFactory
from dicehall.games.holdem.bots import EquityBot
from dicehall.games.holdem.rules import GAME, Holdem

BOTS: dict[str, BotFactory] = {"equity": EquityBot}

__all__ = ["BOTS", "GAME", "Holdem"]
