"""Gymnasium environments: one seat of a dicehall game against dicehall's bots.

    from dicehall.rl.gymnasium import make
    solitaire = make("boatzee")                              # one seat, reward = points
    duel = make("tenthousand", opponents=["bot:heuristic"])  # reward = win/loss at the end

The agent plays seat ``seat`` (default 0); ``opponents`` fill the other seats in order
(``"bot:NAME"`` or just ``"NAME"``, any of the game's bots). Observations are
``{"observation", "action_mask"}`` as in :mod:`dicehall.rl.pettingzoo`, from the agent's
view alone. An action the mask forbids changes nothing: the step returns the same
observation, ``illegal_reward`` (default 0) and ``info["illegal_action"]``. Solitaire
Boatzee with ``reward="score"`` (its default alone) returns the game's
final score, whose optimal expectation is known exactly: 245.870775 (boatzee ruleset) and
254.587729 (yahtzee ruleset, forced joker).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from dicehall import games
from dicehall.engine.errors import InvalidInput
from dicehall.rl.encoding import Mask, Vector, encoding_for
from dicehall.rl.match import Match, check_reward_mode
from dicehall.rl.pettingzoo import observation_space

#: The optimal expected final score of solitaire Boatzee, by ruleset (one column).
BOATZEE_OPTIMUM = {"boatzee": 245.870775, "yahtzee": 254.587729}


def bot_name(spec: str) -> str:
    """The bot an opponent spec names: ``"bot:heuristic"`` or ``"heuristic"``."""
    return spec.removeprefix("bot:")


class DicehallEnv(gymnasium.Env[dict[str, Any], np.int64]):
    """One seat of a dicehall game against bots (see the module notes)."""

    metadata: dict[str, Any] = {"render_modes": ["ansi"]}  # noqa: RUF012 - Gymnasium's

    def __init__(
        self,
        game: str,
        opponents: Sequence[str] = (),
        seat: int = 0,
        reward: str | None = None,
        render_mode: str | None = None,
        illegal_reward: float = 0.0,
        **options: Any,
    ) -> None:
        entry = games.get(game)
        seats = 1 + len(opponents)
        entry.game.check_seats(seats)
        if not 0 <= seat < seats:
            raise InvalidInput(f"seat must be 0 to {seats - 1}, not {seat}")
        if render_mode not in (None, "ansi"):
            raise InvalidInput("render_mode must be 'ansi' or None")
        others = [i for i in range(seats) if i != seat]
        bots = {i: bot_name(spec) for i, spec in zip(others, opponents, strict=True)}
        parsed = entry.game.options(options)
        mode = check_reward_mode(reward or ("score" if seats == 1 else "win"))
        self.seat = seat
        self.illegal_reward = illegal_reward
        self.render_mode = render_mode
        self.encoding = encoding_for(entry.name, seats, parsed)
        self.match = Match(entry, seats, parsed, mode, bots)
        self.observation_space = observation_space(self.encoding)
        self.action_space = spaces.Discrete(len(self.encoding.actions))

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Vector | Mask], dict[str, Any]]:
        """A new game (the same ``seed``, the same dice and bots); its first observation."""
        super().reset(seed=seed)
        self.match.reset(secrets.randbits(63) if seed is None else seed)
        self.match.advance()
        return self._observation(), {}

    def step(
        self, action: np.int64 | int
    ) -> tuple[dict[str, Vector | Mask], float, bool, bool, dict[str, Any]]:
        """Play the agent's action and the bots' replies until the agent acts again."""
        if self.match.result is not None:
            raise RuntimeError("the game is over: reset() first")
        if not 0 <= int(action) < len(self.encoding.actions):
            raise ValueError(f"{action!r} is not an action number")
        chosen = self.encoding.actions[int(action)]
        if chosen not in self.match.legal(self.seat):
            # Nothing changes: the same observation, the illegal-move reward, and a flag.
            refused = {"illegal_action": True}
            return self._observation(), self.illegal_reward, False, False, refused
        paid = self.match.act(self.seat, chosen)
        over = self.match.result is not None
        info: dict[str, Any] = {}
        if over:
            assert self.match.result is not None
            info["result"] = {
                "winners": list(self.match.result.winners),
                "scores": list(self.match.result.scores),
            }
        return self._observation(), paid[self.seat], over, False, info

    def _observation(self) -> dict[str, Vector | Mask]:
        return {
            "observation": self.encoding.vector(self.match.view(self.seat), self.seat),
            "action_mask": self.encoding.mask(self.match.legal(self.seat)),
        }

    def render(self) -> str | None:
        """The agent's view as text (``render_mode="ansi"``)."""
        if self.render_mode != "ansi":
            return None
        from dicehall.engine import codec

        return codec.dumps(self.match.view(self.seat))


#: ``make(game, opponents=(), seat=0, reward=None, render_mode=None, illegal_reward=0.0,
#: **options)``: the environment of ``game`` with the agent at ``seat`` against ``opponents``.
make = DicehallEnv
