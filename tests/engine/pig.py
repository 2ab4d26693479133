"""Pig, the smallest dice game: a worked example of the Game contract for the engine tests."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from dicehall.engine import Chance, Finished, Game, Result, Roll, ToAct, Turn
from dicehall.engine.chance import ChanceRequest, Outcome
from dicehall.engine.errors import InvalidOptions


@dataclass(frozen=True, slots=True)
class PigOptions:
    target: int = 20

    def __post_init__(self) -> None:
        if not 1 <= self.target <= 1000:
            raise InvalidOptions("target must be 1 to 1000")


@dataclass(frozen=True, slots=True)
class Hold:
    pass


@dataclass(frozen=True, slots=True)
class RollAgain:
    pass


PigAction = Hold | RollAgain


@dataclass(frozen=True, slots=True)
class PigState:
    target: int
    banked: tuple[int, ...]
    current: int
    turn_total: int
    rolling: bool
    turns: int = 0


@dataclass(frozen=True, slots=True)
class PigView:
    seat: int | None
    banked: tuple[int, ...]
    current: int
    turn_total: int


class Pig(Game[PigState, PigAction, PigOptions, PigView]):
    name = "pig"
    title = "Pig"
    min_seats = 1
    max_seats = 4
    options_type = PigOptions
    state_type = PigState
    view_type = PigView
    action_type = PigAction

    def start(self, seats: int, options: PigOptions) -> PigState:
        self.check_seats(seats)
        return PigState(options.target, (0,) * seats, 0, 0, True)

    def turn(self, state: PigState) -> Turn:
        if max(state.banked) >= state.target:
            top = max(state.banked)
            winners = tuple(i for i, b in enumerate(state.banked) if b == top)
            return Finished(Result(winners, state.banked, state.turns))
        if state.rolling:
            return Chance(Roll(1))
        return ToAct(state.current)

    def legal(self, state: PigState, seat: int) -> Sequence[PigAction]:
        turn = self.turn(state)
        if isinstance(turn, ToAct) and turn.seat == seat:
            return (Hold(), RollAgain())
        return ()

    def apply(self, state: PigState, seat: int, action: PigAction) -> PigState:
        if isinstance(action, RollAgain):
            return replace(state, rolling=True)
        banked = list(state.banked)
        banked[seat] += state.turn_total
        return self._next(replace(state, banked=tuple(banked)))

    def _next(self, state: PigState) -> PigState:
        return replace(
            state,
            current=(state.current + 1) % len(state.banked),
            turn_total=0,
            rolling=True,
            turns=state.turns + 1,
        )

    def apply_outcome(self, state: PigState, request: ChanceRequest, outcome: Outcome) -> PigState:
        face = int(outcome[0])
        if face == 1:
            return self._next(state)
        return replace(state, turn_total=state.turn_total + face, rolling=False)

    def view(self, state: PigState, seat: int | None) -> PigView:
        return PigView(seat, state.banked, state.current, state.turn_total)


PIG = Pig()
