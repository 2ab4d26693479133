"""Notifications: what a user should know about their games (a game became their turn,
their clock runs low, a seat ran out of time), kept in a list with a read mark and pushed
through the WebSocket once the change that made them commits."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from sqlalchemy import Connection, Table, func, insert, select, update

from dicehall.server.core.clock import aware, now
from dicehall.server.core.models import Notification
from dicehall.server.core.txn import publish_after_commit

NOTIFICATIONS = cast(Table, Notification.__table__)
#: The most a list answer holds.
PAGE = 50


def add(conn: Connection, user_pk: int, kind: str, game_id: int | None, text: str) -> None:
    """Tell ``user_pk`` something (stored now, pushed after the commit)."""
    add_many(conn, [(user_pk, game_id, text)], kind)


def add_many(conn: Connection, told: Sequence[tuple[int, int | None, str]], kind: str) -> None:
    """Tell each ``(user_pk, game_id, text)`` of ``told`` something of ``kind``, in one
    statement (stored now, each pushed after the commit)."""
    if not told:
        return
    moment = now()
    made = conn.execute(
        insert(NOTIFICATIONS).returning(NOTIFICATIONS.c.id, sort_by_parameter_order=True),
        [
            {
                "user_pk": user_pk,
                "kind": kind,
                "game_id": game_id,
                "text": text[:200],
                "created_at": moment,
                "read": False,
            }
            for user_pk, game_id, text in told
        ],
    ).scalars()
    for (user_pk, game_id, text), new_id in zip(told, list(made), strict=True):
        message = {
            "type": "notification",
            "id": int(new_id),
            "kind": kind,
            "game": game_id,
            "text": text[:200],
            "created_at": moment.isoformat(),
        }
        publish_after_commit(conn, user_pk, message)


def listing(
    conn: Connection, user_pk: int, before: int | None = None, limit: int = PAGE
) -> dict[str, Any]:
    """A page of ``user_pk``'s notifications, newest first, and how many are unread."""
    query = select(NOTIFICATIONS).where(NOTIFICATIONS.c.user_pk == user_pk)
    if before is not None:
        query = query.where(NOTIFICATIONS.c.id < before)
    # One more than a page, to tell whether an older page exists.
    found = conn.execute(query.order_by(NOTIFICATIONS.c.id.desc()).limit(limit + 1)).all()
    rows = found[:limit]
    return {
        "notifications": [
            {
                "id": r.id,
                "kind": r.kind,
                "game": r.game_id,
                "text": r.text,
                "created_at": aware(r.created_at).isoformat(),
                "read": bool(r.read),
            }
            for r in rows
        ],
        "unread": unread(conn, user_pk),
        "next": rows[-1].id if len(found) > limit else None,
    }


def unread(conn: Connection, user_pk: int) -> int:
    """How many of ``user_pk``'s notifications are unread."""
    count = conn.execute(
        select(func.count())
        .select_from(NOTIFICATIONS)
        .where(NOTIFICATIONS.c.user_pk == user_pk, NOTIFICATIONS.c.read.is_(False))
    ).scalar_one()
    return int(count)


def mark_read(conn: Connection, user_pk: int, up_to: int | None) -> int:
    """Mark ``user_pk``'s notifications read (all, or those up to id ``up_to``); return how
    many were unread. Their pages are told how many are left unread (after the commit)."""
    query = update(NOTIFICATIONS).where(
        NOTIFICATIONS.c.user_pk == user_pk, NOTIFICATIONS.c.read.is_(False)
    )
    if up_to is not None:
        query = query.where(NOTIFICATIONS.c.id <= up_to)
    marked = int(conn.execute(query.values(read=True)).rowcount)
    if marked:
        # Every page of the user's updates its count (the bell in the header).
        left = unread(conn, user_pk)
        publish_after_commit(conn, user_pk, {"type": "notifications_read", "unread": left})
    return marked
