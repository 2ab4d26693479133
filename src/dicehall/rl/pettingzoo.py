"""PettingZoo AEC environments for dicehall's games: every seat an agent.

    from dicehall.rl.pettingzoo import env
    game = env("tenthousand", seats=2, target=2000)

Agents are ``seat_0``, ``seat_1``, ...; the agent to act is the seat the rules name (chance
is resolved between steps from dice seeded by ``reset(seed=...)``). An observation is
``{"observation": float32 vector, "action_mask": int8 vector}`` built from that seat's view
alone (see :mod:`dicehall.rl.encoding`); actions are numbers in the game's fixed action list.
Rewards come at the end (``reward="win"`` or ``"place"``) or as the seat's own score changes
(``"score"``; the default with one seat). An action the mask forbids raises ``ValueError``
and changes nothing. ``render_mode="ansi"`` renders the table as text.
"""

from __future__ import annotations

import secrets
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from dicehall import games
from dicehall.engine import codec
from dicehall.engine.errors import InvalidInput
from dicehall.rl.encoding import Encoding, Mask, Vector, encoding_for
from dicehall.rl.match import Match, check_reward_mode, default_seats

RENDER_MODES = ("ansi",)


def agent_name(seat: int) -> str:
    """The agent of a seat."""
    return f"seat_{seat}"


def observation_space(encoding: Encoding) -> spaces.Dict:
    """The observation space of an encoding: the vector and the action mask."""
    return spaces.Dict(
        {
            "observation": spaces.Box(-np.inf, np.inf, (encoding.size,), np.float32),
            "action_mask": spaces.Box(0, 1, (len(encoding.actions),), np.int8),
        }
    )


class DicehallAEC(AECEnv):  # type: ignore[misc]
    """One dicehall game as a PettingZoo AEC environment (see the module notes)."""

    metadata: dict[str, Any] = {  # noqa: RUF012 - PettingZoo's attribute, named per game
        "render_modes": list(RENDER_MODES),
        "name": "dicehall",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        game: str,
        seats: int | None = None,
        reward: str | None = None,
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        super().__init__()
        entry = games.get(game)
        parsed = entry.game.options(options)
        count = seats if seats is not None else default_seats(entry.game, parsed)
        entry.game.check_seats(count)
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise InvalidInput(f"render_mode must be one of {RENDER_MODES} or None")
        self.render_mode = render_mode
        mode = check_reward_mode(reward or ("score" if count == 1 else "win"))
        self.encoding = encoding_for(entry.name, count, parsed)
        self.match = Match(entry, count, parsed, mode)
        self.metadata = {**self.metadata, "name": f"dicehall_{entry.name}"}
        self.possible_agents = [agent_name(i) for i in range(count)]
        self._observation_space = observation_space(self.encoding)
        self._action_space = spaces.Discrete(len(self.encoding.actions))
        self._seat_of = {agent: i for i, agent in enumerate(self.possible_agents)}
        self.agents: list[str] = []

    def observation_space(self, agent: str) -> spaces.Dict:
        """Every agent's observation space (one object, the same for all)."""
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Discrete:
        """Every agent's action space: the game's action numbers."""
        return self._action_space

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game; the same ``seed`` gives the same dice."""
        self.match.reset(secrets.randbits(63) if seed is None else seed)
        self.agents = list(self.possible_agents)
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._pay(self.match.advance())
        self._select()

    def observe(self, agent: str) -> dict[str, Vector | Mask]:
        """What ``agent`` sees, as numbers, with its legal actions' mask."""
        seat = self._seat_of[agent]
        return {
            "observation": self.encoding.vector(self.match.view(seat), seat),
            "action_mask": self.encoding.mask(self.match.legal(seat)),
        }

    def step(self, action: int | None) -> None:
        """Play the selected agent's action (None for an agent whose game is over)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self._seat_of[agent]
        if action is None or not 0 <= int(action) < len(self.encoding.actions):
            raise ValueError(f"{agent}: {action!r} is not an action number")
        chosen = self.encoding.actions[int(action)]
        if chosen not in self.match.legal(seat):
            raise ValueError(f"{agent}: action {action} ({chosen!r}) is not legal now")
        self._cumulative_rewards[agent] = 0.0
        self._pay(self.match.act(seat, chosen))
        self._select()
        self._accumulate_rewards()

    def _pay(self, paid: list[float]) -> None:
        self.rewards = {agent_name(i): r for i, r in enumerate(paid)}
        if self.match.result is not None:
            self.terminations = {agent: True for agent in self.agents}

    def _select(self) -> None:
        seat = self.match.to_act
        if seat is not None:
            self.agent_selection = agent_name(seat)
        elif self.agents:
            # Over: every agent takes its last (None) step, in seat order.
            self.agent_selection = self.agents[0]

    def render(self) -> str | None:
        """The table as text (``render_mode="ansi"``), else nothing."""
        if self.render_mode != "ansi":
            return None
        state = self.match.table.state
        standing = self.match.game.standing(state)
        scores = list(standing.scores) if standing is not None else []
        lines = [f"{self.match.game.title}: scores {scores}"]
        seat = self.match.to_act
        if seat is None:
            assert self.match.result is not None
            lines.append(f"over: winners {list(self.match.result.winners)}")
        else:
            lines.append(f"{agent_name(seat)} to act; sees {codec.dumps(self.match.view(seat))}")
        return "\n".join(lines)

    def close(self) -> None:
        """Nothing to release."""


#: ``env(game, seats=None, reward=None, render_mode=None, **options)``: the AEC environment
#: of ``game``; ``seats`` defaults to the fewest, two or more, that the game plays under
#: ``options`` (house rules as ``dicehall play -o``).
env = DicehallAEC
