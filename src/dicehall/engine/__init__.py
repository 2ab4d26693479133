"""The game-agnostic kernel: the Game contract, chance, dice sources, codec, log, table."""

from dicehall.engine.bots import Bot, BotFactory, RandomBot, SlowBot
from dicehall.engine.chance import ChanceRequest, Draw, Outcome, Roll, check_outcome
from dicehall.engine.dice import DiceSource, Scripted, Seeded, System, resolve_request
from dicehall.engine.errors import (
    CodecError,
    DicehallError,
    IllegalMove,
    InvalidInput,
    InvalidOptions,
    InvalidOutcome,
)
from dicehall.engine.events import Acted, Event, Record, Resolved, replay
from dicehall.engine.game import Chance, Finished, Game, Result, ToAct, Turn
from dicehall.engine.table import Table, play_out

__all__ = [
    "Acted",
    "Bot",
    "BotFactory",
    "Chance",
    "ChanceRequest",
    "CodecError",
    "DiceSource",
    "DicehallError",
    "Draw",
    "Event",
    "Finished",
    "Game",
    "IllegalMove",
    "InvalidInput",
    "InvalidOptions",
    "InvalidOutcome",
    "Outcome",
    "RandomBot",
    "Record",
    "Resolved",
    "Result",
    "Roll",
    "Scripted",
    "Seeded",
    "SlowBot",
    "System",
    "Table",
    "ToAct",
    "Turn",
    "check_outcome",
    "play_out",
    "replay",
    "resolve_request",
]
