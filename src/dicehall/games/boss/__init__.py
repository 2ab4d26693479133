"""Boss Dice: two seats, a Boss with a concealed roll, and an exact odds engine."""

from __future__ import annotations

from dicehall.engine.bots import BotFactory
from dicehall.games.boss.bots import EquilibriumBot, HeuristicBot, OddsBot
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

BOTS: dict[str, BotFactory] = {
    "equilibrium": EquilibriumBot,
    "heuristic": HeuristicBot,
    "odds": OddsBot,
}

__all__ = [
    "BOTS",
    "GAME",
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
