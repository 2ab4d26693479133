"""A reusable random-play property harness every game's tests call.

:func:`check_random_play` plays a whole game with random bots and seeded dice and checks the
contract at every step: the codec round-trips states, views and actions; acting out of turn
or illegally raises and changes nothing; the game ends; replaying the log rebuilds the final
state. Games pass ``on_step`` for their own invariants (conservation, hidden dice).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from dicehall.engine import codec
from dicehall.engine.bots import RandomBot
from dicehall.engine.dice import Seeded, resolve_request
from dicehall.engine.errors import IllegalMove
from dicehall.engine.events import Acted, Event, Resolved, decode_event, encode_event, replay
from dicehall.engine.game import Chance, Finished, Game, Result, ToAct

StepCheck = Callable[[Any, Event, Any], None]
"""Called after every event with (state before, event, state after)."""


@dataclass
class Playthrough:
    """What a checked random game left behind."""

    state: Any
    result: Result
    events: list[Event] = field(default_factory=list)
    steps: int = 0


def _roundtrip(value: Any, expected: Any) -> None:
    back = codec.loads(codec.dumps(value), expected)
    if back != value:
        raise AssertionError(f"codec round trip changed {value!r} into {back!r}")


def check_random_play(
    game: Game[Any, Any, Any, Any],
    seats: int,
    options: Any,
    seed: int,
    *,
    max_steps: int = 200_000,
    on_step: StepCheck | None = None,
    codec_every: int = 1,
    bot: Callable[[random.Random], Any] = RandomBot,
) -> Playthrough:
    """Play one game with ``bot`` in every seat and check the Game contract throughout."""
    rng = random.Random(seed)
    source = Seeded(rng.getrandbits(64))
    bots = [bot(random.Random(rng.getrandbits(64))) for _ in range(seats)]
    state = game.start(seats, options)
    _roundtrip(options, game.options_type)
    events: list[Event] = []
    event: Event
    for step in range(max_steps):
        turn = game.turn(state)
        if step % codec_every == 0:
            _roundtrip(state, game.state_type)
            for viewer in [None, *range(seats)]:
                _roundtrip(game.view(state, viewer), game.view_type)
        if isinstance(turn, Finished):
            _check_result(turn.result, seats)
            rebuilt = replay(game, seats, options, events)
            if rebuilt != state:
                raise AssertionError("replaying the event log did not rebuild the final state")
            for event in events[:: max(1, len(events) // 50)]:
                if decode_event(game, codec.loads(codec.dumps(encode_event(event)), Any)) != event:
                    raise AssertionError(f"event {event!r} did not survive the codec")
            return Playthrough(state, turn.result, events, step)
        if isinstance(turn, Chance):
            for seat in range(seats):
                if game.legal(state, seat):
                    raise AssertionError(f"seat {seat} has legal actions while dice are pending")
            _expect_illegal(game, state, 0, None)
            outcome = resolve_request(source, turn.request)
            event = Resolved(outcome)
            after = game.resolve(state, outcome)
        else:
            assert isinstance(turn, ToAct)
            legal = game.legal(state, turn.seat)
            if not legal:
                raise AssertionError(f"seat {turn.seat} must act but has no legal action")
            for other in range(seats):
                if other != turn.seat:
                    if game.legal(state, other):
                        raise AssertionError(f"seat {other} has legal actions out of turn")
                    _expect_illegal(game, state, other, legal[0])
            action = bots[turn.seat].choose(game.view(state, turn.seat), legal)
            if step % codec_every == 0:
                _roundtrip(action, game.action_type)
            event = Acted(turn.seat, action)
            after = game.act(state, turn.seat, action)
        if on_step is not None:
            on_step(state, event, after)
        events.append(event)
        state = after
    raise AssertionError(f"{game.name} did not end within {max_steps} steps")


def _expect_illegal(game: Game[Any, Any, Any, Any], state: Any, seat: int, action: Any) -> None:
    snapshot = codec.dumps(state)
    try:
        game.act(state, seat, action)
    except IllegalMove as exc:
        if not exc.reason:
            raise AssertionError("IllegalMove without a reason") from exc
    else:
        raise AssertionError(f"seat {seat} acted out of turn without IllegalMove")
    if codec.dumps(state) != snapshot:
        raise AssertionError("an illegal move changed the state")


def _check_result(result: Result, seats: int) -> None:
    if len(result.scores) != seats:
        raise AssertionError(f"result has {len(result.scores)} scores for {seats} seats")
    if not result.winners or any(not 0 <= w < seats for w in result.winners):
        raise AssertionError(f"bad winners {result.winners!r}")
    if len(set(result.winners)) != len(result.winners):
        raise AssertionError("a winner is listed twice")
