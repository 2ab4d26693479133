"""Bull's Eye: the lead sets a target with three throws; the others try to match it."""

from dicehall.games.bullseye.bots import BOTS, HeuristicBot, OptimalBot
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

__all__ = [
    "BOTS",
    "GAME",
    "BullsEye",
    "BullseyeAction",
    "BullseyeOptions",
    "BullseyeState",
    "BullseyeView",
    "HeuristicBot",
    "LeadChoice",
    "OptimalBot",
    "Round",
    "RoundSummary",
    "RoundView",
    "Stop",
    "ThrowOn",
]
