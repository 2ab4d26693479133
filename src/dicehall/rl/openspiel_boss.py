"""One public state of a Boss Dice hand as an OpenSpiel game, for CFR against the exact LP.

A hand's only hidden thing is the Boss's concealed roll, so the hand is a sum of small
games, one per public state (docs/boss.md, "The game that is solved"). In the state's game:

1. chance makes the Boss of showdown class ``t`` with its chance ``p_t``;
2. the Boss (player 0) knows ``t`` and comes up (action 0) or picks 'em up (1);
3. after "come up" the opponent (player 1), who knows only the public state, keeps one of
   the legal keeps (action ``m``: the ``m``-th legal keep);
4. the Boss's value is ``win[t, m] + c * push[t, m]`` after a keep and ``c`` after a pick-up
   (``c`` = 0.5, a fresh hand); returns are ``2 * value - 1`` to him and the negative to the
   opponent.

:func:`compare_with_lp` runs OpenSpiel's CFR on such states and reports its values and
exploitability next to the LP equilibrium's, and the LP strategies' own exploitability as
OpenSpiel measures it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import cfr, expected_game_score, exploitability

from dicehall.games.boss.equilibrium import Equilibrium
from dicehall.games.boss.hand_game import KeptGroup
from dicehall.rl.openspiel import sequential_game_type

COME_UP, PICK_UP = 0, 1


@dataclass(frozen=True)
class StateGame:
    """One public state's numbers: class chances, legal keeps, payoffs, a fresh hand's worth."""

    state: int
    type_prob: np.ndarray
    classes: np.ndarray  # the showdown class of each type, as the profile indexes them
    keeps: int
    value: np.ndarray  # value[t, m] for the Boss of class t against the m-th legal keep
    fresh: float


def state_game(equilibrium: Equilibrium, state: int) -> StateGame:
    """The game of public state ``state`` (an index of the hand's public states)."""
    group, row = _locate(equilibrium, state)
    win, push = group.payoffs()
    keeps = int(group.valid[row].sum())
    fresh = equilibrium.fresh
    value = (win[row] + fresh * push[row])[:, :keeps]
    return StateGame(
        state, np.asarray(group.type_prob), np.asarray(group.types), keeps, value, fresh
    )


def _locate(equilibrium: Equilibrium, state: int) -> tuple[KeptGroup, int]:
    for group in equilibrium.game.groups:
        rows = np.flatnonzero(group.states == state)
        if rows.size:
            return group, int(rows[0])
    raise KeyError(f"no public state {state}")


def register(game: StateGame) -> str:
    """Register the state's game with OpenSpiel; return its short name."""
    name = f"dicehall_boss_call_{game.state}"
    if name in pyspiel.registered_names():
        return name
    types = [t for t in range(len(game.type_prob)) if game.type_prob[t] > 0]
    game_type = sequential_game_type(
        name, f"Boss Dice, the call in public state {game.state}", 2, tensors=False
    )
    game_info = pyspiel.GameInfo(
        num_distinct_actions=max(2, game.keeps),
        max_chance_outcomes=len(game.type_prob),
        num_players=2,
        min_utility=-1.0,
        max_utility=1.0,
        utility_sum=0.0,
        max_game_length=3,
    )

    class CallGame(pyspiel.Game):  # type: ignore[misc]
        def __init__(self, params: dict[str, Any] | None = None) -> None:
            super().__init__(game_type, game_info, params or {})

        def new_initial_state(self) -> CallState:
            return CallState(self, game, types)

        def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> CallObserver:
            return CallObserver()

    pyspiel.register_game(game_type, CallGame)
    return name


class CallState(pyspiel.State):  # type: ignore[misc]
    """Class dealt, the Boss's call, the opponent's keep: that is the whole history."""

    def __init__(self, game: Any, numbers: StateGame, types: list[int]) -> None:
        super().__init__(game)
        self.numbers = numbers
        self.types = types
        self.history_: list[int] = []

    def current_player(self) -> int:
        moves = len(self.history_)
        if moves == 0:
            return int(pyspiel.PlayerId.CHANCE)
        if self.is_terminal():
            return int(pyspiel.PlayerId.TERMINAL)
        return moves - 1  # the Boss, then the opponent

    def _legal_actions(self, player: int) -> list[int]:
        return [COME_UP, PICK_UP] if player == 0 else list(range(self.numbers.keeps))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(t, float(self.numbers.type_prob[t])) for t in self.types]

    def _apply_action(self, action: int) -> None:
        self.history_.append(action)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"class {action}"
        if player == 0:
            return "come up" if action == COME_UP else "pick up"
        return f"keep {action}"

    def is_terminal(self) -> bool:
        moves = self.history_
        return len(moves) == 3 or (len(moves) == 2 and moves[1] == PICK_UP)

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0, 0.0]
        t, call = self.history_[0], self.history_[1]
        worth = self.numbers.fresh if call == PICK_UP else self.numbers.value[t, self.history_[2]]
        return [2 * worth - 1, 1 - 2 * worth]

    def information_state_string(self, player: int | None = None) -> str:
        seat = self.current_player() if player is None else player
        if seat == 0:
            return f"boss class {self.history_[0]}" if self.history_ else "boss"
        return "opponent after come up" if len(self.history_) >= 2 else "opponent"

    def __str__(self) -> str:
        return " ".join(map(str, self.history_))


class CallObserver:
    """Strings only: the Boss knows his class, the opponent nothing private."""

    def __init__(self) -> None:
        self.tensor = np.zeros(0, np.float32)
        self.dict: dict[str, np.ndarray] = {}

    def set_from(self, state: CallState, player: int) -> None:
        """No tensor."""

    def string_from(self, state: CallState, player: int) -> str:
        return str(state.information_state_string(player))


def lp_policy(game: pyspiel.Game, equilibrium: Equilibrium, numbers: StateGame) -> Any:
    """The LP equilibrium's strategies in the state's game, as an OpenSpiel tabular policy."""
    tabular = policy_lib.TabularPolicy(game)
    state = numbers.state
    come_up = equilibrium.profile.come_up[state][numbers.classes]
    keep = equilibrium.profile.keep[state]
    for key, row in tabular.state_lookup.items():
        probabilities = tabular.action_probability_array[row]
        if key.startswith("boss class"):
            chance = float(come_up[int(key.rsplit(" ", 1)[1])])
            probabilities[:] = 0
            probabilities[COME_UP], probabilities[PICK_UP] = chance, 1 - chance
        elif key.startswith("opponent"):
            mixture = np.asarray(keep[: len(probabilities)], dtype=float)
            probabilities[:] = mixture / mixture.sum()
    return tabular


def boss_value(game: pyspiel.Game, policy: Any) -> float:
    """The Boss's value (his chance of winning the horse from his call on) under ``policy``."""
    returns = expected_game_score.policy_value(game.new_initial_state(), [policy, policy])
    return (float(returns[0]) + 1) / 2


@dataclass(frozen=True)
class Agreement:
    """CFR against the LP in one public state (values are the Boss's, exploitability in
    returns, as OpenSpiel measures it)."""

    state: int
    lp_value: float
    cfr_value: float
    cfr_exploitability: float
    lp_exploitability: float


def compare_with_lp(equilibrium: Equilibrium, state: int, iterations: int) -> Agreement:
    """Run CFR ``iterations`` times on the state's game and set it beside the LP."""
    numbers = state_game(equilibrium, state)
    game = pyspiel.load_game(register(numbers))
    solver = cfr.CFRSolver(game)
    for _ in range(iterations):
        solver.evaluate_and_update_policy()
    average = solver.average_policy()
    exact = lp_policy(game, equilibrium, numbers)
    return Agreement(
        state,
        boss_value(game, exact),
        boss_value(game, average),
        float(exploitability.exploitability(game, average)),
        float(exploitability.exploitability(game, exact)),
    )
