"""The event log: every action and every chance outcome, enough to rebuild any state."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from dicehall.engine import codec
from dicehall.engine.chance import Outcome
from dicehall.engine.errors import CodecError, InvalidOutcome
from dicehall.engine.game import Chance, Game


@dataclass(frozen=True, slots=True)
class Acted:
    """A seat took an action."""

    seat: int
    action: Any


@dataclass(frozen=True, slots=True)
class Resolved:
    """A chance request was answered."""

    outcome: Outcome


Event = Acted | Resolved


@dataclass(frozen=True, slots=True)
class Record:
    """A whole game: what it was started with and everything that happened since."""

    game: str
    seats: int
    options: Any
    events: tuple[Event, ...]


def apply_event(game: Game[Any, Any, Any, Any], state: Any, event: Event) -> Any:
    """Apply one event through the game's checks (an illegal event raises)."""
    if isinstance(event, Acted):
        return game.act(state, event.seat, event.action)
    if not isinstance(game.turn(state), Chance):
        raise InvalidOutcome("a chance outcome was recorded where no dice were pending")
    return game.resolve(state, event.outcome)


def replay(
    game: Game[Any, Any, Any, Any], seats: int, options: Any, events: Iterable[Event]
) -> Any:
    """Rebuild the state from the start and the events, checking each one."""
    state = game.start(seats, options)
    for event in events:
        state = apply_event(game, state, event)
    return state


def encode_event(event: Event) -> codec.JSON:
    """An event as JSON (actions carry their own ``type`` tag)."""
    return codec.encode(event)


def decode_event(game: Game[Any, Any, Any, Any], data: codec.JSON) -> Event:
    """An event from JSON, decoding the action with the game's action type."""
    if not isinstance(data, dict):
        raise CodecError("an event must be an object")
    kind = data.get("type")
    if kind == "acted":
        seat = codec.decode(data.get("seat"), int, "$.seat")
        action = codec.decode(data.get("action"), game.action_type, "$.action")
        return Acted(seat, action)
    if kind == "resolved":
        outcome = codec.decode(data.get("outcome"), Outcome, "$.outcome")
        return Resolved(outcome)
    raise CodecError(f"unknown event type {kind!r}")


def encode_record(record: Record) -> codec.JSON:
    """A whole game record as JSON."""
    return {
        "game": record.game,
        "seats": record.seats,
        "options": codec.encode(record.options),
        "events": [encode_event(e) for e in record.events],
    }


def decode_record(game: Game[Any, Any, Any, Any], data: codec.JSON) -> Record:
    """A game record from JSON for ``game``."""
    if not isinstance(data, dict):
        raise CodecError("a game record must be an object")
    if data.get("game") != game.name:
        raise CodecError(f"this record is for {data.get('game')!r}, not {game.name!r}")
    seats = codec.decode(data.get("seats"), int, "$.seats")
    options = codec.decode(data.get("options"), game.options_type, "$.options")
    raw_events = data.get("events")
    if not isinstance(raw_events, list):
        raise CodecError("$.events: expected a list")
    return Record(game.name, seats, options, tuple(decode_event(game, e) for e in raw_events))
