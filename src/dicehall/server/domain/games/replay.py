"""A game that is over, frame by frame, for the replay page: every event as a spectator was
entitled to see it by the end (dice never shown stay hidden), told in sentences, with the
spectator's view of the position after it and the scores so far."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, select

from dicehall.engine import codec
from dicehall.engine.events import Event, apply_event, decode_event
from dicehall.engine.game import Game
from dicehall.games.feed import tell
from dicehall.server.core.models import User
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.games.ending import ranking
from dicehall.server.domain.games.privacy import watchable
from dicehall.server.domain.games.records import (
    EVENTS,
    GameRecord,
    entry_of,
    load_options,
    seats_json,
)
from dicehall.server.domain.games.story import told_json

#: The statuses of a game that is over (a replay of anything else would show hidden dice).
OVER = ("finished", "aborted")


def replay(conn: Connection, game_id: int, user: User | None) -> dict[str, Any]:
    """Game ``game_id`` for its replay: one frame per event of its log (refused with a 409
    ``in_progress`` until it is over; a private game is a 404 to all but its players and
    watchers, see :mod:`~dicehall.server.domain.games.privacy`)."""
    record, seats = watchable(conn, game_id, None if user is None else user.id)
    if record.status not in OVER or record.snapshot is None:
        why = {
            "waiting": "this game has not started yet",
            "cancelled": "this game was called off before it started: there is nothing to replay",
        }.get(record.status, "this game is still being played: its replay comes once it is over")
        raise Refused("conflict", "in_progress", why)
    entry = entry_of(record.kind)
    game = entry.game
    rows = conn.execute(
        select(EVENTS.c.data).where(EVENTS.c.game_id == record.id).order_by(EVENTS.c.seq)
    ).all()
    events = [decode_event(game, json.loads(row.data)) for row in rows]
    shown = seats_json(seats)
    return {
        "id": record.id,
        "game": record.kind,
        "seats": shown,
        "frames": frames(record, events, [str(s["name"]) for s in shown]),
        "result": None if record.result is None else json.loads(record.result),
        "ranking": ranking(record, seats),
    }


def frames(record: GameRecord, events: Sequence[Event], names: Sequence[str]) -> list[Any]:
    """One frame per event: the event and its sentences as a spectator may know them once
    the game is over, the spectator's view after it, and the standing then."""
    entry = entry_of(record.kind)
    game = entry.game
    options = load_options(record)
    told = tell(entry, options, record.seats, events, None, names)
    state = game.start(record.seats, options)
    out = []
    for event, one in zip(events, told, strict=True):
        state = apply_event(game, state, event)
        out.append(
            {
                **told_json(one),
                "view": codec.encode(game.view(state, None)),
                "standing": standing_json(game, state),
            }
        )
    return out


def standing_json(game: Game[Any, Any, Any, Any], state: Any) -> dict[str, Any] | None:
    """Each seat's score so far and the turn being played (None for a game that does not
    say)."""
    standing = game.standing(state)
    if standing is None:
        return None
    return {"scores": list(standing.scores), "number": standing.number, "noun": game.turn_noun}
