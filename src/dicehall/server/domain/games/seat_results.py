"""Each person's seat in a finished game and how it came out, written as the game ends.

The history reads these rows through their indexes (a player's games in the order they
ended, by game or by outcome), and the record and the games-finished count read
``seat_records``, each person's counts kept beside them; so a page costs the same for a
player with ten games as for one with ten thousand.
"""

from __future__ import annotations

import json
from typing import cast

from sqlalchemy import Connection, Table, delete, func, insert, select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from dicehall.server.core.models import SeatRecord, SeatResult
from dicehall.server.domain.games.records import SEATS, GameRecord

SEAT_RESULTS = cast(Table, SeatResult.__table__)
SEAT_RECORDS = cast(Table, SeatRecord.__table__)
OUTCOMES = ("win", "loss", "draw")
#: ``seat_records``' outcome for a game that kept no result.
NO_OUTCOME = "none"


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
    rows = [
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
    ]
    conn.execute(insert(SEAT_RESULTS), rows)
    for row in rows:
        _count(conn, row["user_pk"], record.kind, row["outcome"] or NO_OUTCOME, record.private)


def _count(conn: Connection, user_pk: int, kind: str, outcome: str, private: bool) -> None:
    """One more game in a person's count (the row made when it is the first)."""
    maker = postgresql_insert if conn.dialect.name == "postgresql" else sqlite_insert
    statement = maker(SEAT_RECORDS).values(
        user_pk=user_pk, kind=kind, outcome=outcome, private=private, games=1
    )
    conn.execute(
        statement.on_conflict_do_update(
            index_elements=["user_pk", "kind", "outcome", "private"],
            set_={"games": SEAT_RECORDS.c.games + 1},
        )
    )


def recount(conn: Connection, user_pks: list[int]) -> None:
    """Count these people's games again from ``seat_results`` (after a repair by hand)."""
    conn.execute(delete(SEAT_RECORDS).where(SEAT_RECORDS.c.user_pk.in_(user_pks)))
    outcome = func.coalesce(SEAT_RESULTS.c.outcome, NO_OUTCOME)
    counted = (
        select(
            SEAT_RESULTS.c.user_pk,
            SEAT_RESULTS.c.kind,
            outcome,
            SEAT_RESULTS.c.private,
            func.count(),
        )
        .where(SEAT_RESULTS.c.user_pk.in_(user_pks))
        .group_by(SEAT_RESULTS.c.user_pk, SEAT_RESULTS.c.kind, outcome, SEAT_RESULTS.c.private)
    )
    conn.execute(
        insert(SEAT_RECORDS).from_select(
            ["user_pk", "kind", "outcome", "private", "games"], counted
        )
    )
