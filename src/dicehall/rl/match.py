"""One game played step by step for an environment: chance resolved from seeded dice, bots
moving for the seats they hold, and each seat's reward.

Rewards, by ``reward`` mode:

- ``"win"``: at the end, +1 to a sole winner, 0 to each winner of a shared win, -1 to every
  other seat;
- ``"place"``: at the end, from +1 for first place to -1 for last, tied seats sharing the
  mean of their places (0 for a seat playing alone);
- ``"score"``: after every step, how much each seat's own score (points, horses, chips)
  changed; over a game they add up to its final score less its starting one.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, Literal

from dicehall.engine.bots import Bot
from dicehall.engine.dice import Seeded
from dicehall.engine.errors import InvalidInput, InvalidOptions
from dicehall.engine.game import Finished, Result, ToAct
from dicehall.engine.table import Table
from dicehall.games.entry import GameEntry

RewardMode = Literal["win", "place", "score"]
REWARD_MODES: tuple[RewardMode, ...] = ("win", "place", "score")


def check_reward_mode(mode: str) -> RewardMode:
    """``mode`` if it is a reward mode, else a clear error."""
    for known in REWARD_MODES:
        if mode == known:
            return known
    raise InvalidInput(f"reward must be one of {', '.join(REWARD_MODES)}, not {mode!r}")


def final_rewards(result: Result, seats: int, mode: RewardMode) -> list[float]:
    """Each seat's reward for the game's end (zeros in ``"score"`` mode, paid as it goes)."""
    if mode == "score":
        return [0.0] * seats
    if mode == "win":
        if len(result.winners) == 1:
            return [1.0 if i in result.winners else -1.0 for i in range(seats)]
        return [0.0 if i in result.winners else -1.0 for i in range(seats)]
    if seats == 1:
        return [0.0]
    ranked = sorted(range(seats), key=lambda i: -result.scores[i])
    places = [0.0] * seats
    start = 0
    while start < seats:
        end = start
        while end + 1 < seats and result.scores[ranked[end + 1]] == result.scores[ranked[start]]:
            end += 1
        mean_place = (start + end) / 2
        for k in range(start, end + 1):
            places[ranked[k]] = mean_place
        start = end + 1
    return [1.0 - 2.0 * place / (seats - 1) for place in places]


def default_seats(game: Any, options: Any) -> int:
    """The fewest seats, two or more, that the game plays under ``options``."""
    for seats in range(max(game.min_seats, 2), game.max_seats + 1):
        try:
            game.start(seats, options)
        except InvalidOptions:
            continue
        return int(seats)
    raise InvalidInput(f"{game.title} has no seat count it plays with these options")


class Match:
    """A game in progress: whose turn, the legal moves, and what each step paid each seat."""

    def __init__(
        self,
        entry: GameEntry,
        seats: int,
        options: Any,
        reward: RewardMode,
        bots: Mapping[int, str] | None = None,
    ) -> None:
        self.entry = entry
        self.game = entry.game
        self.seats = seats
        self.options = options
        self.reward = reward
        self.bot_names = dict(bots or {})
        for name in self.bot_names.values():
            entry.bot(name, random.Random(0))  # an unknown name fails now, with the list
        self.table: Table[Any, Any] = Table(self.game, seats, options, record=False)
        self.result: Result | None = None
        self._dice = Seeded(0)
        self._bots: dict[int, Bot] = {}

    def reset(self, seed: int) -> None:
        """A new game whose dice and bots follow ``seed``."""
        rng = random.Random(seed)
        self._dice = Seeded(rng.getrandbits(64))
        self._bots = {
            seat: self.entry.bot(name, random.Random(rng.getrandbits(64)))
            for seat, name in sorted(self.bot_names.items())
        }
        self.table = Table(self.game, self.seats, self.options, record=False)
        self.result = None
        self._scores = self._standing()

    @property
    def to_act(self) -> int | None:
        """The seat that must act now, or None once the game is over."""
        turn = self.table.turn()
        return turn.seat if isinstance(turn, ToAct) else None

    def legal(self, seat: int) -> tuple[Any, ...]:
        """The seat's legal moves now (none unless it is to act)."""
        return tuple(self.game.legal(self.table.state, seat))

    def view(self, seat: int) -> Any:
        """What ``seat`` sees now."""
        return self.game.view(self.table.state, seat)

    def advance(self) -> list[float]:
        """Resolve chance and let the bots move until a seat without a bot is to act or the
        game ends; the rewards that earned each seat."""
        turn = self.table.advance(self._dice, self._bots)
        return self._paid(turn)

    def act(self, seat: int, action: Any) -> list[float]:
        """Play ``seat``'s action, then :meth:`advance`; the rewards of both together."""
        self.table.act(seat, action)
        return self.advance()

    def _standing(self) -> tuple[int, ...]:
        standing = self.game.standing(self.table.state)
        return standing.scores if standing is not None else (0,) * self.seats

    def _paid(self, turn: Any) -> list[float]:
        scores = self._standing()
        paid = [0.0] * self.seats
        if self.reward == "score":
            paid = [float(now - before) for now, before in zip(scores, self._scores, strict=True)]
        self._scores = scores
        if isinstance(turn, Finished):
            self.result = turn.result
            end = final_rewards(turn.result, self.seats, self.reward)
            paid = [p + e for p, e in zip(paid, end, strict=True)]
        return paid
