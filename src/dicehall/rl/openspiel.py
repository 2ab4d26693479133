"""dicehall's games as OpenSpiel games, registered with ``pyspiel.register_game``.

    import pyspiel
    from dicehall.rl.openspiel import register
    name = register("boss")                 # "dicehall_boss_2"
    game = pyspiel.load_game(name)

Player actions are the numbers of :mod:`dicehall.rl.encoding`. Chance deals one die (or one
bag draw) per node, with its exact probability: a roll of ``n`` dice is ``n`` chance nodes
of six outcomes each (numbers 0 to 5 are faces 1 to 6), and a draw from a bag is one node
per item drawn, each item weighted by how many of it remain (numbers from 6 on, in the
order of its entry's ``alphabet``). Returns come at the end: +1 to a sole winner, 0 to each
winner of a shared win, -1 to the rest.

Observations follow the seat's view only: the observation string is the view as JSON, the
tensor its encoding; the information-state string is every distinct view the seat has had,
in order (perfect recall), and its tensor the current encoding.
"""

from __future__ import annotations

import copy
from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyspiel

from dicehall import games
from dicehall.engine import codec
from dicehall.engine.chance import Draw, Roll
from dicehall.engine.game import Chance, Finished, ToAct
from dicehall.games.entry import GameEntry
from dicehall.rl.encoding import Encoding, encoding_for
from dicehall.rl.match import default_seats, final_rewards

FACES = 6
#: A bound on decisions and chance nodes in one game, for OpenSpiel's game information.
MAX_GAME_LENGTH = 100_000


@dataclass(frozen=True)
class Spec:
    """What a registered game plays: the game, seats, options and encoding."""

    entry: GameEntry
    seats: int
    options: Any
    encoding: Encoding
    alphabet: tuple[str, ...]


def register(game: str, seats: int | None = None, **options: Any) -> str:
    """Register ``game`` (with ``seats`` and house-rule ``options``) with OpenSpiel; return
    the short name to load it by. Registering the same twice is harmless."""
    entry = games.get(game)
    parsed = entry.game.options(options)
    count = seats if seats is not None else default_seats(entry.game, parsed)
    entry.game.check_seats(count)
    suffix = "_".join(f"{k}_{v}" for k, v in sorted(options.items()))
    name = f"dicehall_{entry.name}_{count}" + (f"_{suffix}" if suffix else "")
    if name in pyspiel.registered_names():
        return name
    encoding = encoding_for(entry.name, count, parsed)
    spec = Spec(entry, count, parsed, encoding, tuple(entry.alphabet))
    game_type = sequential_game_type(
        name, f"dicehall {entry.title} ({count} seats)", count, tensors=True
    )
    game_info = pyspiel.GameInfo(
        num_distinct_actions=len(encoding.actions),
        max_chance_outcomes=FACES + len(spec.alphabet),
        num_players=count,
        min_utility=-1.0,
        max_utility=1.0,
        utility_sum=0.0 if count == 2 else None,
        max_game_length=MAX_GAME_LENGTH,
    )

    class DicehallGame(pyspiel.Game):  # type: ignore[misc]
        """One dicehall game for OpenSpiel."""

        def __init__(self, params: dict[str, Any] | None = None) -> None:
            super().__init__(game_type, game_info, params or {})

        def new_initial_state(self) -> DicehallState:
            return DicehallState(self, spec)

        def make_py_observer(
            self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
        ) -> DicehallObserver:
            perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
            return DicehallObserver(spec, perfect_recall)

    pyspiel.register_game(game_type, DicehallGame)
    return name


def sequential_game_type(
    name: str, long_name: str, players: int, *, tensors: bool
) -> pyspiel.GameType:
    """OpenSpiel's description of a turn-based game with explicit chance, hidden
    information and returns at the end (zero-sum with two players)."""
    return pyspiel.GameType(
        short_name=name,
        long_name=long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=(
            pyspiel.GameType.Utility.ZERO_SUM
            if players == 2
            else pyspiel.GameType.Utility.GENERAL_SUM
        ),
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=players,
        min_num_players=players,
        provides_information_state_string=True,
        provides_information_state_tensor=tensors,
        provides_observation_string=True,
        provides_observation_tensor=tensors,
        parameter_specification={},
    )


class DicehallState(pyspiel.State):  # type: ignore[misc]
    """A position: the engine's state, the dice of a roll dealt so far, what each seat saw."""

    def __init__(self, game: Any, spec: Spec) -> None:
        super().__init__(game)
        self.spec = spec
        self.state = spec.entry.game.start(spec.seats, spec.options)
        self.dealt: list[Any] = []
        self.seen: list[list[str]] = [[] for _ in range(spec.seats)]
        self._note_views()

    def __deepcopy__(self, memo: dict[int, Any]) -> DicehallState:
        twin = copy.copy(self)  # the engine's states are immutable: share them
        twin.dealt = list(self.dealt)
        twin.seen = [list(s) for s in self.seen]
        return twin

    def _turn(self) -> Any:
        return self.spec.entry.game.turn(self.state)

    def current_player(self) -> int:
        turn = self._turn()
        if isinstance(turn, Finished):
            return int(pyspiel.PlayerId.TERMINAL)
        if isinstance(turn, Chance):
            return int(pyspiel.PlayerId.CHANCE)
        assert isinstance(turn, ToAct)
        return int(turn.seat)

    def _legal_actions(self, player: int) -> list[int]:
        legal = self.spec.entry.game.legal(self.state, player)
        return sorted(self.spec.encoding.number(action) for action in legal)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        request = self._turn().request
        if isinstance(request, Roll):
            return [(face, 1.0 / request.sides) for face in range(request.sides)]
        assert isinstance(request, Draw)
        left = Counter(request.population)
        left.subtract(self.dealt)
        total = sum(left.values())
        alphabet = self.spec.alphabet
        return sorted(
            (FACES + alphabet.index(item), count / total) for item, count in left.items() if count
        )

    def _apply_action(self, action: int) -> None:
        game = self.spec.entry.game
        turn = self._turn()
        if isinstance(turn, Chance):
            request = turn.request
            if isinstance(request, Roll):
                self.dealt.append(action + 1)
            else:
                self.dealt.append(self.spec.alphabet[action - FACES])
            if len(self.dealt) == request.count:
                self.state = game.resolve(self.state, tuple(self.dealt))
                self.dealt = []
                self._note_views()
            return
        self.state = game.act(self.state, turn.seat, self.spec.encoding.actions[action])
        self._note_views()

    def _note_views(self) -> None:
        game = self.spec.entry.game
        for seat in range(self.spec.seats):
            seen = codec.dumps(game.view(self.state, seat))
            if not self.seen[seat] or self.seen[seat][-1] != seen:
                self.seen[seat].append(seen)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if action < FACES:
                return f"die {action + 1}"
            return f"draw {self.spec.alphabet[action - FACES]}"
        return repr(self.spec.encoding.actions[action])

    def is_terminal(self) -> bool:
        return isinstance(self._turn(), Finished)

    def returns(self) -> list[float]:
        turn = self._turn()
        if not isinstance(turn, Finished):
            return [0.0] * self.spec.seats
        return final_rewards(turn.result, self.spec.seats, "win")

    def __str__(self) -> str:
        return codec.dumps(self.state) + (f" dealt {self.dealt}" if self.dealt else "")


class DicehallObserver:
    """OpenSpiel's observer: the encoding as the tensor, the view (or views) as the string."""

    def __init__(self, spec: Spec, perfect_recall: bool) -> None:
        self.spec = spec
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(spec.encoding.size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: DicehallState, player: int) -> None:
        view = self.spec.entry.game.view(state.state, player)
        self.tensor[:] = self.spec.encoding.vector(view, player)

    def string_from(self, state: DicehallState, player: int) -> str:
        if self.perfect_recall:
            return "\n".join(state.seen[player])
        return codec.dumps(self.spec.entry.game.view(state.state, player))
