"""What a message must be, and how often one may be sent: the body's rules, the game it
may point to, one message every 2 seconds per sender, and at most 10 new threads a rolling
day for accounts younger than 7 days (30 for others). The limits count stored rows, so they
hold across server processes."""

from __future__ import annotations

import math
import unicodedata
from datetime import datetime, timedelta
from typing import cast

from sqlalchemy import Connection, Table, select

from dicehall.server.core.clock import aware
from dicehall.server.core.ids import in_id_range
from dicehall.server.core.models import Message, MessageThread, User
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.games.privacy import watchable

THREADS = cast(Table, MessageThread.__table__)
MESSAGES = cast(Table, Message.__table__)
USERS = cast(Table, User.__table__)

#: The longest body, in characters (after trimming).
BODY_MOST = 2000
#: One message per sender every this long.
GAP = timedelta(seconds=2)
#: New threads a sender may start in any rolling day: while the account is young, and after.
NEW_THREADS_YOUNG = 10
NEW_THREADS = 30
YOUNG_FOR = timedelta(days=7)
THREADS_WINDOW = timedelta(days=1)

#: Characters that reorder the text around them (embeddings, overrides, isolates).
_REORDERING = frozenset(
    [chr(c) for c in range(0x202A, 0x202F)] + [chr(c) for c in range(0x2066, 0x206A)]
)
_LINE_CONTROLS = frozenset("\n\t")


def clean_body(text: str) -> str:
    """The body as stored: line ends as ``\\n``, trimmed, 1 to 2000 characters, no control
    characters but line breaks and tabs, nothing that reorders text (422 ``invalid_body``)."""
    cleaned = text.replace("\r\n", "\n").replace("\r", "\n").strip()
    if not cleaned:
        raise Refused("invalid", "invalid_body", "a message must not be empty")
    if len(cleaned) > BODY_MOST:
        raise Refused(
            "invalid",
            "invalid_body",
            f"a message is at most {BODY_MOST} characters (this one has {len(cleaned)})",
        )
    try:
        cleaned.encode("utf-8")
    except UnicodeEncodeError:
        raise Refused("invalid", "invalid_body", "a message must be valid Unicode text") from None
    for char in cleaned:
        control = unicodedata.category(char) == "Cc" and char not in _LINE_CONTROLS
        if control or char in _REORDERING:
            raise Refused(
                "invalid",
                "invalid_body",
                "a message may not contain control or text-direction characters "
                f"(it has U+{ord(char):04X})",
            )
    return cleaned


def check_game(conn: Connection, game_id: int, sender_pk: int) -> None:
    """A message may point only to a game that exists and that its sender may see; a game
    they may not see is refused word for word like one that does not exist."""
    unknown = Refused("invalid", "unknown_game", f"there is no game {game_id}")
    if not in_id_range(game_id):
        raise unknown
    try:
        watchable(conn, game_id, sender_pk)
    except Refused:
        raise unknown from None


def _wait(seconds: float) -> int:
    return max(1, math.ceil(seconds))


def check_pace(conn: Connection, sender_pk: int, at: datetime) -> None:
    """One message every :data:`GAP` (429 ``rate_limited`` with ``retry_after``)."""
    last = conn.execute(
        select(MESSAGES.c.created_at)
        .where(MESSAGES.c.sender_pk == sender_pk)
        .order_by(MESSAGES.c.id.desc())
        .limit(1)
    ).scalar()
    if last is None:
        return
    left = (aware(last) + GAP - at).total_seconds()
    if left > 0:
        wait = _wait(left)
        raise Refused(
            "too_many",
            "rate_limited",
            f"one message every {GAP.seconds} seconds: wait {wait} s",
            retry_after=wait,
        )


def new_threads_allowed(conn: Connection, sender_pk: int, at: datetime) -> int:
    """How many new threads ``sender_pk`` may start in a rolling day (by account age)."""
    created = conn.execute(select(USERS.c.created_at).where(USERS.c.id == sender_pk)).scalar_one()
    return NEW_THREADS_YOUNG if aware(created) > at - YOUNG_FOR else NEW_THREADS


def check_new_threads(conn: Connection, sender_pk: int, at: datetime) -> None:
    """At most :func:`new_threads_allowed` new threads in the last day (429
    ``too_many_threads`` with ``retry_after``: when the oldest of them leaves the day)."""
    most = new_threads_allowed(conn, sender_pk, at)
    started = conn.execute(
        select(THREADS.c.created_at)
        .where(THREADS.c.created_by == sender_pk, THREADS.c.created_at > at - THREADS_WINDOW)
        .order_by(THREADS.c.created_at)
        .limit(most)
    ).all()
    if len(started) >= most:
        wait = _wait((aware(started[0].created_at) + THREADS_WINDOW - at).total_seconds())
        hours = math.ceil(wait / 3600)
        raise Refused(
            "too_many",
            "too_many_threads",
            f"you may start at most {most} new conversations a day; try again in about "
            f"{hours} hour{'s' if hours != 1 else ''} (replies are not limited this way)",
            retry_after=wait,
        )
