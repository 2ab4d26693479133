"""The table: a running game and its log, and a loop that plays one out."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Generic, TypeVar

from dicehall.engine.bots import Bot
from dicehall.engine.chance import Outcome
from dicehall.engine.dice import DiceSource, resolve_request
from dicehall.engine.events import Acted, Event, Record, Resolved
from dicehall.engine.game import Finished, Game, Result, Turn
from dicehall.engine.step import advance

S = TypeVar("S")
A = TypeVar("A")

Listener = Callable[[Any, Event, Any], None]
"""Called after every event with (state before, event, state after)."""


class Table(Generic[S, A]):
    """A game in progress: its state and the log of every event so far."""

    def __init__(
        self,
        game: Game[S, A, Any, Any],
        seats: int,
        options: Any,
        *,
        record: bool = True,
        listener: Listener | None = None,
    ) -> None:
        game.check_seats(seats)
        self.game = game
        self.seats = seats
        self.options = options
        self.state: S = game.start(seats, options)
        self.events: list[Event] = []
        self._record = record
        self._listener = listener

    def turn(self) -> Turn:
        """Who or what must move next."""
        return self.game.turn(self.state)

    def act(self, seat: int, action: A) -> None:
        """Apply a seat's action (IllegalMove leaves everything unchanged)."""
        before = self.state
        self.state = self.game.act(before, seat, action)
        self._log(before, Acted(seat, action))

    def resolve(self, outcome: Outcome) -> None:
        """Answer the pending chance request."""
        before = self.state
        self.state = self.game.resolve(before, outcome)
        self._log(before, Resolved(outcome))

    def _log(self, before: S, event: Event) -> None:
        if self._record:
            self.events.append(event)
        if self._listener is not None:
            self._listener(before, event, self.state)

    def advance(
        self, source: DiceSource, bots: Mapping[int, Bot], *, max_steps: int = 10_000_000
    ) -> Turn:
        """Resolve chance and let bots act until a seat without a bot must act, or the end
        (the engine's one loop, :func:`dicehall.engine.step.advance`)."""
        self.state, turn = advance(
            self.game,
            self.state,
            lambda request: resolve_request(source, request),
            bots.get,
            on_event=self._log_step,
            max_steps=max_steps,
        )
        if turn is None:
            raise RuntimeError(
                f"{self.game.name} did not reach a human turn or its end in {max_steps} steps"
            )
        return turn

    def _log_step(self, before: S, event: Event, after: S) -> None:
        self.state = after
        self._log(before, event)

    def record_of(self, game_name: str | None = None) -> Record:
        """The game so far as a record."""
        return Record(game_name or self.game.name, self.seats, self.options, tuple(self.events))


def play_out(
    game: Game[S, A, Any, Any],
    seats: int,
    options: Any,
    bots: Sequence[Bot],
    source: DiceSource,
    *,
    record: bool = True,
    max_steps: int = 1_000_000,
) -> tuple[S, Result, list[Event]]:
    """Play a whole game with a bot in every seat; return the final state, result and log."""
    if len(bots) != seats:
        raise ValueError(f"{seats} seats need {seats} bots, got {len(bots)}")
    table: Table[S, A] = Table(game, seats, options, record=record)
    turn = table.advance(source, dict(enumerate(bots)), max_steps=max_steps)
    if not isinstance(turn, Finished):  # pragma: no cover - every seat has a bot
        raise RuntimeError(f"{game.name} stopped at {turn!r} with a bot in every seat")
    return table.state, turn.result, table.events
