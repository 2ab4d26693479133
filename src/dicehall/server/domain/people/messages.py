"""Messages between two users: one thread per pair, with a read mark and a hiding mark per side.

A thread joins ``low_pk`` and ``high_pk`` (``low_pk < high_pk``); each side's marks are
message ids: what is at or below the read mark is read, what is at or below the hiding mark
is gone for that side (hiding is mine alone; a newer message brings the thread back, showing
only what came after). Starting a thread is the ``"message"`` meeting of
:mod:`~dicehall.server.domain.people.relations` (the recipient's ``messages_from`` setting
and any ignore); writing in a thread that exists is the ``"reply"`` meeting, which only an
ignore refuses. Across an ignore the history stays readable to both; nothing new gets through.

Limits: a body is 1 to 2000 characters once trimmed; one message every 2 seconds per sender;
at most 10 new threads a rolling day for accounts younger than 7 days, 30 for others. A new
message is pushed (after the commit) to the recipient and to the sender's other pages, with
each one's total of unread messages.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast
from urllib.parse import quote

from sqlalchemy import Connection, Table, case, func, insert, or_, select, update

from dicehall.server.core.clock import aware
from dicehall.server.core.models import Message, MessageThread, User
from dicehall.server.core.txn import publish_after_commit
from dicehall.server.domain.moderation.audit import acted_on_by
from dicehall.server.domain.moderation.content import HIDDEN_TEXT
from dicehall.server.domain.moderation.standing import is_moderator, may_write
from dicehall.server.domain.notices import outbox
from dicehall.server.domain.people import relations
from dicehall.server.domain.people.lookup import Person, other_person, person
from dicehall.server.domain.people.message_checks import (
    BODY_MOST,
    NEW_THREADS,
    NEW_THREADS_YOUNG,
    check_game,
    check_new_threads,
    check_pace,
    clean_body,
)

#: How much of a thread's last message the list shows.
PREVIEW_MOST = 140
#: Messages in one page of a thread, and threads in one page of the list (by default).
PAGE = 50
THREADS_PAGE = 30

THREADS = cast(Table, MessageThread.__table__)
MESSAGES = cast(Table, Message.__table__)
USERS = cast(Table, User.__table__)


def other_side(conn: Connection, me_pk: int, user_id: str) -> Person:
    """The user ``user_id`` (any case) as the other side of my thread: 404 ``unknown_user``
    for nobody, 422 ``yourself`` for me."""
    return other_person(conn, me_pk, user_id, "you cannot send messages to yourself")


@dataclass(frozen=True)
class _Side:
    """A thread as one of its sides sees it."""

    id: int
    last_id: int
    read: int
    hidden: int


def _pair(first: int, second: int) -> tuple[int, int]:
    return (first, second) if first < second else (second, first)


def _side_of(conn: Connection, me_pk: int, other_pk: int) -> _Side | None:
    low, high = _pair(me_pk, other_pk)
    row = conn.execute(
        select(THREADS).where(THREADS.c.low_pk == low, THREADS.c.high_pk == high)
    ).first()
    if row is None:
        return None
    if me_pk == low:
        return _Side(row.id, row.last_id, row.low_read, row.low_hidden)
    return _Side(row.id, row.last_id, row.high_read, row.high_hidden)


def _marks(me_pk: int, other_pk: int) -> tuple[str, str]:
    """The names of my read and hiding columns in the thread of me and ``other_pk``."""
    return ("low_read", "low_hidden") if me_pk < other_pk else ("high_read", "high_hidden")


# -- sending -----------------------------------------------------------------------------------


def _lock_pair(conn: Connection, first: int, second: int) -> None:
    """Lock both users' rows, lowest first (PostgreSQL; SQLite writes one at a time): two
    messages of a pair, or two of a sender, are then never checked or stored side by side."""
    conn.execute(
        select(USERS.c.id)
        .where(USERS.c.id.in_(_pair(first, second)))
        .order_by(USERS.c.id)
        .with_for_update()
    ).all()


def send(
    conn: Connection,
    sender_pk: int,
    recipient_id: str,
    body: str,
    game_id: int | None,
    at: datetime,
) -> dict[str, Any]:
    """Send ``body`` (pointing to ``game_id``, if given) from ``sender_pk`` to the user
    ``recipient_id``; the message as stored. Pushed to both after the commit.

    Refused: 422 ``invalid_body``, 404 ``unknown_user``, 422 ``yourself``, 422
    ``unknown_game``, 403 ``not_accepted`` (an ignore either way; for a new thread also the
    recipient's setting, unless it is an appeal to a moderator who acted on the sender),
    403 ``muted`` (unless the recipient is a moderator), 429 ``rate_limited`` or
    ``too_many_threads``."""
    text = clean_body(body)
    other = other_side(conn, sender_pk, recipient_id)
    # A muted sender may still write to a moderator: that is how they appeal.
    may_write(conn, sender_pk, at, to_pk=other.pk)
    if game_id is not None:
        check_game(conn, game_id, sender_pk)
    _lock_pair(conn, sender_pk, other.pk)
    side = _side_of(conn, sender_pk, other.pk)
    # An appeal to the moderator who acted opens a thread whatever their message settings.
    appeal = (
        side is None and is_moderator(conn, other.pk) and acted_on_by(conn, sender_pk, other.pk)
    )
    meeting: relations.Meeting = "message" if side is None and not appeal else "reply"
    relations.check_may_interact(conn, sender_pk, other.pk, meeting, other.user_id)
    check_pace(conn, sender_pk, at)
    if side is None:
        check_new_threads(conn, sender_pk, at)
        low, high = _pair(sender_pk, other.pk)
        thread_id = conn.execute(
            insert(THREADS)
            .values(
                low_pk=low,
                high_pk=high,
                created_by=sender_pk,
                created_at=at,
                last_id=0,
                last_at=at,
                low_read=0,
                high_read=0,
                low_hidden=0,
                high_hidden=0,
            )
            .returning(THREADS.c.id)
        ).scalar_one()
    else:
        thread_id = side.id
    message_id = conn.execute(
        insert(MESSAGES)
        .values(thread_id=thread_id, sender_pk=sender_pk, body=text, game_id=game_id, created_at=at)
        .returning(MESSAGES.c.id)
    ).scalar_one()
    conn.execute(
        update(THREADS).where(THREADS.c.id == thread_id).values(last_id=message_id, last_at=at)
    )
    sender = person(conn, sender_pk)
    sent = {
        "id": int(message_id),
        "from": sender.user_id,
        "body": text,
        "game": game_id,
        "created_at": at.isoformat(),
    }
    # The recipient's channels hear of it (their bell does not: messages have their own count).
    outbox.queue(
        conn,
        [
            outbox.Queued(
                user_pk=other.pk,
                kind="message",
                game_id=None,
                title=f"A message from {sender.user_id}",
                text=text[:300],
                path=f"/messages/with/{quote(sender.user_id)}",
                event=f"m{message_id}",
            )
        ],
    )
    pushed = {"type": "message", **sent, "from_name": sender.display_name}
    for to, thread_with in ((other.pk, sender.user_id), (sender_pk, other.user_id)):
        message = {**pushed, "thread_with": thread_with, "unread": unread(conn, to)}
        publish_after_commit(conn, to, message)
    return sent


# -- reading -----------------------------------------------------------------------------------


def unread(conn: Connection, me_pk: int) -> int:
    """How many messages to ``me_pk`` are unread, over all their threads (hidden ones not
    counted)."""
    total = 0
    for mine, read_mark, hidden_mark in (
        (THREADS.c.low_pk, THREADS.c.low_read, THREADS.c.low_hidden),
        (THREADS.c.high_pk, THREADS.c.high_read, THREADS.c.high_hidden),
    ):
        total += conn.execute(
            select(func.count())
            .select_from(MESSAGES.join(THREADS, MESSAGES.c.thread_id == THREADS.c.id))
            .where(
                mine == me_pk,
                THREADS.c.last_id > read_mark,
                MESSAGES.c.id > read_mark,
                MESSAGES.c.id > hidden_mark,
                MESSAGES.c.sender_pk != me_pk,
            )
        ).scalar_one()
    return total


def threads(
    conn: Connection, me_pk: int, before: int | None = None, limit: int = THREADS_PAGE
) -> dict[str, Any]:
    """A page of my threads, the one with the newest message first (``before``: the
    ``next`` of the page before), each with its last message and its unread count; threads
    I hid are left out until a newer message comes."""
    i_am_low = THREADS.c.low_pk == me_pk
    read_mark = case((i_am_low, THREADS.c.low_read), else_=THREADS.c.high_read)
    hidden_mark = case((i_am_low, THREADS.c.low_hidden), else_=THREADS.c.high_hidden)
    other_pk = case((i_am_low, THREADS.c.high_pk), else_=THREADS.c.low_pk)
    counted = MESSAGES.alias("counted")
    unread_here = (
        select(func.count())
        .where(
            counted.c.thread_id == THREADS.c.id,
            counted.c.id > read_mark,
            counted.c.id > hidden_mark,
            counted.c.sender_pk != me_pk,
        )
        .scalar_subquery()
    )
    last = MESSAGES.alias("last")
    sender = USERS.alias("sender")
    query = (
        select(
            THREADS.c.last_id,
            USERS.c.user_id,
            USERS.c.display_name,
            last.c.body,
            last.c.hidden_at,
            last.c.created_at,
            sender.c.user_id.label("last_from"),
            unread_here.label("unread"),
        )
        .select_from(
            THREADS.join(USERS, USERS.c.id == other_pk)
            .join(last, last.c.id == THREADS.c.last_id)
            .join(sender, sender.c.id == last.c.sender_pk)
        )
        .where(or_(i_am_low, THREADS.c.high_pk == me_pk), THREADS.c.last_id > hidden_mark)
    )
    if before is not None:
        query = query.where(THREADS.c.last_id < before)
    # One more than a page, to tell whether an older page exists.
    found = conn.execute(query.order_by(THREADS.c.last_id.desc()).limit(limit + 1)).all()
    rows = found[:limit]
    return {
        "threads": [
            {
                "user_id": row.user_id,
                "display_name": row.display_name,
                "last": {
                    "id": int(row.last_id),
                    "from": row.last_from,
                    "preview": preview(HIDDEN_TEXT if row.hidden_at is not None else row.body),
                    "created_at": aware(row.created_at).isoformat(),
                },
                "unread": int(row.unread),
            }
            for row in rows
        ],
        "unread": unread(conn, me_pk),
        "next": int(rows[-1].last_id) if len(found) > limit else None,
    }


def preview(body: str) -> str:
    """The start of a message on one line, for lists."""
    line = " ".join(body.split())
    return line if len(line) <= PREVIEW_MOST else line[: PREVIEW_MOST - 1].rstrip() + "…"


def thread(
    conn: Connection, me_pk: int, other_id: str, before: int | None = None, limit: int = PAGE
) -> dict[str, Any]:
    """A page of my thread with ``other_id``, newest first (``before``: the ``next`` of the
    page before); what I hid is left out. A pair with no thread yet has no messages."""
    other = other_side(conn, me_pk, other_id)
    side = _side_of(conn, me_pk, other.pk)
    shown: list[dict[str, Any]] = []
    more = False
    if side is not None:
        query = select(MESSAGES).where(MESSAGES.c.thread_id == side.id, MESSAGES.c.id > side.hidden)
        if before is not None:
            query = query.where(MESSAGES.c.id < before)
        found = conn.execute(query.order_by(MESSAGES.c.id.desc()).limit(limit + 1)).all()
        more = len(found) > limit
        names = {me_pk: person(conn, me_pk).user_id, other.pk: other.user_id}
        shown = [
            {
                "id": int(row.id),
                "from": names[row.sender_pk],
                "body": HIDDEN_TEXT if row.hidden_at is not None else row.body,
                "game": row.game_id,
                "created_at": aware(row.created_at).isoformat(),
                "unread": row.sender_pk != me_pk and row.id > side.read,
                "hidden": row.hidden_at is not None,
            }
            for row in found[:limit]
        ]
    return {
        "with": {"user_id": other.user_id, "display_name": other.display_name},
        "messages": shown,
        "unread": unread(conn, me_pk),
        "next": shown[-1]["id"] if more else None,
    }


# -- marks -------------------------------------------------------------------------------------


def _unread_in(conn: Connection, side: _Side, me_pk: int, up_to: int) -> int:
    return int(
        conn.execute(
            select(func.count()).where(
                MESSAGES.c.thread_id == side.id,
                MESSAGES.c.id > side.read,
                MESSAGES.c.id > side.hidden,
                MESSAGES.c.id <= up_to,
                MESSAGES.c.sender_pk != me_pk,
            )
        ).scalar_one()
    )


def _move_marks(
    conn: Connection, me_pk: int, other: Person, side: _Side, marks: dict[str, int]
) -> int:
    """Raise my marks (never lower them); tell my pages the unread total if it changed."""
    read_up_to = marks.get("read", side.read)
    newly_read = _unread_in(conn, side, me_pk, read_up_to) if read_up_to > side.read else 0
    read_column, hidden_column = _marks(me_pk, other.pk)
    values: dict[str, Any] = {}
    if read_up_to > side.read:
        values[read_column] = read_up_to
    if marks.get("hidden", side.hidden) > side.hidden:
        values[hidden_column] = marks["hidden"]
    if values:
        conn.execute(update(THREADS).where(THREADS.c.id == side.id).values(**values))
    if newly_read:
        left = unread(conn, me_pk)
        message = {"type": "messages_read", "thread_with": other.user_id, "unread": left}
        publish_after_commit(conn, me_pk, message)
    return newly_read


def mark_read(conn: Connection, me_pk: int, other_id: str, up_to: int | None = None) -> int:
    """Mark my thread with ``other_id`` read (up to message ``up_to``, or all of it); how
    many messages were unread. My pages are told the new unread total."""
    other = other_side(conn, me_pk, other_id)
    side = _side_of(conn, me_pk, other.pk)
    if side is None:
        return 0
    # The last id as read now: a message that commits meanwhile stays unread.
    target = side.last_id if up_to is None else min(up_to, side.last_id)
    return _move_marks(conn, me_pk, other, side, {"read": target})


def hide(conn: Connection, me_pk: int, other_id: str) -> bool:
    """Hide my thread with ``other_id`` from me (it is read too); whether anything was
    shown. The other side keeps seeing it; a newer message brings it back for me."""
    other = other_side(conn, me_pk, other_id)
    side = _side_of(conn, me_pk, other.pk)
    if side is None or side.last_id <= side.hidden:
        return False
    _move_marks(conn, me_pk, other, side, {"read": side.last_id, "hidden": side.last_id})
    return True


__all__ = [
    "BODY_MOST",
    "NEW_THREADS",
    "NEW_THREADS_YOUNG",
    "Person",
    "clean_body",
    "hide",
    "mark_read",
    "other_side",
    "person",
    "send",
    "thread",
    "threads",
    "unread",
]
