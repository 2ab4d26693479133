"""The tickets' table, and a ticket matched: its game noted, its player told (a
notification and a push ``{"type": "automatch", "ticket": id, "game": game_id}``)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import cast

from sqlalchemy import Table, bindparam, update
from sqlalchemy.engine import Connection

from dicehall.server.core.models import AutomatchTicket
from dicehall.server.core.txn import publish_after_commit
from dicehall.server.domain import notifications
from dicehall.server.domain.games.records import GameRecord, load_options, variant_title

TICKETS = cast(Table, AutomatchTicket.__table__)

_MATCH = (
    update(TICKETS)
    .where(TICKETS.c.id == bindparam("b_id"), TICKETS.c.status == "waiting")
    .values(status="matched", game_id=bindparam("b_game"), matched_at=bindparam("b_at"))
)


Matched = tuple[Sequence[tuple[int, int]], GameRecord]
"""A game and the tickets (ticket id, user pk) it seats."""


def mark_matched(
    conn: Connection, tickets: Sequence[tuple[int, int]], record: GameRecord, at: datetime
) -> None:
    """Note game ``record`` on each waiting ticket of ``tickets`` (ticket id, user pk) and
    tell each player (once the transaction commits)."""
    mark_all_matched(conn, [(tickets, record)], at)


def mark_all_matched(conn: Connection, matches: Sequence[Matched], at: datetime) -> None:
    """:func:`mark_matched` for many games in a few statements."""
    if not matches:
        return
    conn.execute(
        _MATCH,
        [{"b_id": t, "b_game": record.id, "b_at": at} for tickets, record in matches
         for t, _ in tickets],
    )  # fmt: skip
    told = [
        (ticket_id, user_pk, record.id, _text(record))
        for tickets, record in matches
        for ticket_id, user_pk in tickets
    ]
    notifications.add_many(conn, [(u, g, text) for _, u, g, text in told], "automatch")
    for ticket_id, user_pk, game_id, _ in told:
        publish_after_commit(
            conn, user_pk, {"type": "automatch", "ticket": ticket_id, "game": game_id}
        )


def _text(record: GameRecord) -> str:
    title = variant_title(record.kind, load_options(record))
    if record.status == "waiting":
        return (
            f"Auto-match: you have a seat in game {record.id} of {title}; "
            "it starts when its last seat is taken."
        )
    return f"Auto-match: game {record.id} of {title} has started."
