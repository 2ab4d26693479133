"""Each person's seat in a finished game and how it came out, written as the game ends.

The history and the record read these rows through their indexes (a player's games in the
order they ended, by game or by outcome), so a page costs the same for a player with ten
games as for one with ten thousand.
"""

from __future__ import annotations

import json
from typing import cast

from sqlalchemy import Connection, Table, insert, select

from dicehall.server.core.models import SeatResult
from dicehall.server.domain.games.records import SEATS, GameRecord

SEAT_RESULTS = cast(Table, SeatResult.__table__)
OUTCOMES = ("win", "loss", "draw")


def outcome_of(winners: list[int] | None, seat: int) -> str | None:
    """The seat's result: ``win`` (the only winner), ``draw`` (a shared win), ``loss``
    (otherwise), or None for a game without a result."""
    if winners is None:
        return None
    if seat in winners:
        return "win" if len(winners) == 1 else "draw"
    return "loss"


def outcomes(result: str | None, seats: int) -> list[tuple[str | None, int | None]]:
    """Each seat's outcome and score from a game's stored result (JSON), or none at all."""
    if result is None:
        return [(None, None)] * seats
    decoded = json.loads(result)
    winners = decoded.get("winners")
    scores = decoded.get("scores") or []
    return [
        (
            outcome_of(winners, seat),
            scores[seat] if seat < len(scores) and isinstance(scores[seat], int) else None,
        )
        for seat in range(seats)
    ]


def record_results(conn: Connection, record: GameRecord) -> None:
    """Write a finished game's rows: one per seat a person held."""
    assert record.ended_at is not None, "a finished game has ended"
    people = conn.execute(
        select(SEATS.c.seat, SEATS.c.user_pk).where(
            SEATS.c.game_id == record.id, SEATS.c.user_pk.is_not(None)
        )
    ).all()
    if not people:
        return
    per_seat = outcomes(record.result, record.seats)
    conn.execute(
        insert(SEAT_RESULTS),
        [
            {
                "game_id": record.id,
                "seat": row.seat,
                "user_pk": row.user_pk,
                "kind": record.kind,
                "outcome": per_seat[row.seat][0],
                "score": per_seat[row.seat][1],
                "ended_at": record.ended_at,
                "private": record.private,
                "ladder": record.ladder,
            }
            for row in people
        ],
    )
