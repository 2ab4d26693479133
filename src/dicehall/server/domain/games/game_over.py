"""The notice that a game is over, to each of its players who was still at the table."""

from __future__ import annotations

import json

from sqlalchemy import Connection

from dicehall.games.narration import listing
from dicehall.server.domain import notifications
from dicehall.server.domain.games.records import GameRecord, entry_of, seats_json, seats_of


def tell_game_over(conn: Connection, record: GameRecord) -> None:
    """Tell every player of the ended game ``record`` how it ended (those who left it are
    told nothing: see ``notifications``)."""
    seats = seats_of(conn, record.id)
    people = [s for s in seats if s.user_pk is not None]
    if not people:
        return
    title = entry_of(record.kind).title
    names = [str(s["name"]) for s in seats_json(seats)]
    winners: list[int] = json.loads(record.result)["winners"] if record.result else []
    told: list[tuple[int, int | None, str]] = []
    for seat in people:
        assert seat.user_pk is not None
        if not winners:
            text = f"{title} (game {record.id}) ended without a result ({record.status})."
        elif seat.seat in winners and len(winners) == 1:
            text = f"You won {title} (game {record.id})."
        else:
            won = listing([names[w] for w in winners])
            text = f"{title} (game {record.id}) is over: {won} won."
        told.append((seat.user_pk, record.id, text))
    notifications.add_many(conn, told, "game_over")
