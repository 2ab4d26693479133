"""Ten Thousand: six dice, set aside scoring dice, bank or roll on, first to 10,000."""

from __future__ import annotations

from dicehall.engine.bots import BotFactory
from dicehall.games.tenthousand.bots import HeuristicBot, OptimalBot, ThresholdBot
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
BOTS: dict[str, BotFactory] = {
    "heuristic": HeuristicBot,
    "threshold": ThresholdBot,
    "max_expected": ThresholdBot,
    "optimal": OptimalBot,
}

__all__ = [
    "BOTS",
    "GAME",
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
