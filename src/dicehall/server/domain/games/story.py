"""A game's story for one reader: every event so far as that seat may know it, told in
sentences (each game's narrator), with what happened since the reader's last move marked,
and, once the game is over, its end in one format for every game."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, select

from dicehall.engine.events import Acted, Event, decode_event, encode_event
from dicehall.games.feed import Told, tell
from dicehall.games.narration import YOU, Line, Unseen, final_lines, listing
from dicehall.server.core.models import User
from dicehall.server.domain.games.privacy import check_may_watch
from dicehall.server.domain.games.records import (
    EVENTS,
    GameRecord,
    entry_of,
    fetch_game,
    load_options,
    seats_json,
    seats_of,
)


def _events(conn: Connection, record: GameRecord) -> list[Event]:
    game = entry_of(record.kind).game
    rows = conn.execute(
        select(EVENTS.c.data).where(EVENTS.c.game_id == record.id).order_by(EVENTS.c.seq)
    ).all()
    return [decode_event(game, json.loads(row.data)) for row in rows]


def line_json(line: Line) -> dict[str, Any]:
    """A sentence as the API sends it."""
    return {"text": line.text, "seat": line.seat, "dice": list(line.dice)}


def told_json(told: Told) -> dict[str, Any]:
    """One event as the API sends it: a withheld outcome reads ``{"hidden": true, ...}``,
    as in the public log."""
    seen = told.seen
    if isinstance(seen, Unseen):
        data: dict[str, Any] = {
            "type": "resolved",
            "outcome": {"hidden": True, "count": seen.count},
        }
    else:
        encoded = encode_event(seen)
        assert isinstance(encoded, dict)
        data = encoded
    return {
        "index": told.index,
        "seat": told.seat,
        "event": data,
        "lines": [line_json(line) for line in told.lines],
    }


def outcome_of(
    record: GameRecord, names: Sequence[str], my_seat: int | None
) -> dict[str, Any] | None:
    """How a finished game ended for the reader: won, lost or a draw, and the final lines."""
    if record.status != "finished" or record.result is None:
        return None
    result = json.loads(record.result)
    winners: list[int] = list(result["winners"])
    unit = entry_of(record.kind).score_unit
    lines = final_lines(winners, result["scores"], names, unit)
    if my_seat is None:
        verdict = None
        headline = f"{listing([names[w] for w in winners])} won."
    elif my_seat in winners:
        verdict = "draw" if len(winners) > 1 else "won"
        others = listing([names[w] for w in winners if w != my_seat])
        headline = "You won!" if verdict == "won" else f"A draw: you share the win with {others}."
    else:
        verdict = "lost"
        headline = f"You lost: {listing([names[w] for w in winners])} won."
    return {"verdict": verdict, "headline": headline, "lines": [line_json(x) for x in lines]}


def event_story(
    conn: Connection, game_id: int, user: User | None, since: int = 0
) -> dict[str, Any]:
    """The events of game ``game_id`` from ``since`` on, as ``user``'s seat (or a
    spectator) may know them now, each told in sentences."""
    record = fetch_game(conn, game_id)
    seats = seats_of(conn, game_id)
    check_may_watch(conn, record, seats, None if user is None else user.id)
    my_seat = next((s.seat for s in seats if user is not None and s.user_pk == user.id), None)
    names = [YOU if s["seat"] == my_seat else str(s["name"]) for s in seats_json(seats)]
    entry = entry_of(record.kind)
    events = _events(conn, record) if record.snapshot is not None else []
    told = tell(entry, load_options(record), record.seats, events, my_seat, names, since)
    last_own: int | None = None
    for index, event in enumerate(events):
        if isinstance(event, Acted) and event.seat == my_seat:
            last_own = index
    return {
        "id": record.id,
        "game": record.kind,
        "version": record.version,
        "my_seat": my_seat,
        "since": since,
        "total": len(events),
        "last_own": last_own,
        "events": [told_json(t) for t in told],
        "outcome": outcome_of(record, names, my_seat),
    }
