"""What may be reported or hidden, found by kind and id: a user, a profile (its name and
about text), a message, a chat line or a testimonial; who wrote it, and what it says.

A hidden message or chat line stays stored (the audit log keeps what it said) and shows as
:data:`HIDDEN_TEXT` to everyone; a hidden testimonial leaves the public list; hiding a
profile clears its about text and gives the account its user id as display name again.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal, cast, get_args

from sqlalchemy import Connection, Table, select, update

from dicehall.server.core.ids import in_id_range
from dicehall.server.core.models import ChatLine, Message, MessageThread, Testimonial, User
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.people import search

USERS = cast(Table, User.__table__)
MESSAGES = cast(Table, Message.__table__)
THREADS = cast(Table, MessageThread.__table__)
CHAT = cast(Table, ChatLine.__table__)
TESTIMONIALS = cast(Table, Testimonial.__table__)

Kind = Literal["user", "profile", "message", "chat", "testimonial"]
KINDS: tuple[Kind, ...] = get_args(Kind)
#: The kinds a moderator may hide (a user is acted on, not hidden).
HIDEABLE: tuple[Kind, ...] = ("profile", "message", "chat", "testimonial")
#: What others read in place of a hidden message or chat line.
HIDDEN_TEXT = "(hidden by a moderator)"
#: How pages name each kind.
KIND_WORDS: dict[str, str] = {
    "user": "user",
    "profile": "profile",
    "message": "message",
    "chat": "chat line",
    "testimonial": "testimonial",
}


@dataclass(frozen=True)
class Content:
    """A thing that may be reported or hidden."""

    kind: Kind
    id: int
    #: Who wrote it (for a user or profile: that user).
    author_pk: int
    text: str
    hidden: bool
    #: A message's thread sides, a chat line's game (to check who may see it).
    sides: tuple[int, ...] = ()
    game_id: int | None = None
    channel: str | None = None


def _unknown(kind: str, target: int | str) -> Refused:
    return Refused("not_found", "unknown_target", f"there is no {KIND_WORDS[kind]} {target}")


def find(conn: Connection, kind: Kind, target_id: int) -> Content:
    """The ``kind`` with id ``target_id`` (a user's pk for a user or profile); 404
    ``unknown_target`` for none."""
    if not in_id_range(target_id):
        raise _unknown(kind, target_id)
    if kind in ("user", "profile"):
        row = conn.execute(
            select(
                USERS.c.id, USERS.c.user_id, USERS.c.display_name, USERS.c.about, USERS.c.closed_at
            ).where(USERS.c.id == target_id)
        ).first()
        if row is None:
            raise _unknown(kind, target_id)
        text = (
            f"{row.user_id}"
            if kind == "user"
            else f"Name: {row.display_name}\nAbout: {row.about or '(empty)'}"
        )
        return Content(kind, int(row.id), int(row.id), text, row.closed_at is not None)
    if kind == "message":
        found = conn.execute(
            select(
                MESSAGES.c.id,
                MESSAGES.c.sender_pk,
                MESSAGES.c.body,
                MESSAGES.c.hidden_at,
                THREADS.c.low_pk,
                THREADS.c.high_pk,
            )
            .join(THREADS, THREADS.c.id == MESSAGES.c.thread_id)
            .where(MESSAGES.c.id == target_id)
        ).first()
        if found is None:
            raise _unknown(kind, target_id)
        return Content(
            kind,
            int(found.id),
            int(found.sender_pk),
            found.body,
            found.hidden_at is not None,
            sides=(int(found.low_pk), int(found.high_pk)),
        )
    if kind == "chat":
        line = conn.execute(select(CHAT).where(CHAT.c.id == target_id)).first()
        if line is None:
            raise _unknown(kind, target_id)
        return Content(
            kind,
            int(line.id),
            int(line.user_pk),
            line.body,
            line.hidden_at is not None,
            game_id=int(line.game_id),
            channel=line.channel,
        )
    told = conn.execute(select(TESTIMONIALS).where(TESTIMONIALS.c.id == target_id)).first()
    if told is None:
        raise _unknown(kind, target_id)
    return Content(kind, int(told.id), int(told.user_pk), told.body, told.status == "hidden")


def set_hidden(conn: Connection, content: Content, hidden: bool, at: datetime) -> None:
    """Hide ``content`` (or show it again; a profile cannot be brought back: its owner
    writes it anew)."""
    moment = at if hidden else None
    if content.kind == "message":
        conn.execute(update(MESSAGES).where(MESSAGES.c.id == content.id).values(hidden_at=moment))
    elif content.kind == "chat":
        conn.execute(update(CHAT).where(CHAT.c.id == content.id).values(hidden_at=moment))
    elif content.kind == "testimonial":
        conn.execute(
            update(TESTIMONIALS)
            .where(TESTIMONIALS.c.id == content.id)
            .values(status="hidden" if hidden else "approved")
        )
    elif content.kind == "profile" and hidden:
        user_id = conn.execute(select(USERS.c.user_id).where(USERS.c.id == content.id)).scalar_one()
        conn.execute(
            update(USERS).where(USERS.c.id == content.id).values(about="", display_name=user_id)
        )
        search.put_terms(conn, content.id, user_id, user_id)
    else:
        raise Refused(
            "invalid",
            "not_hideable",
            f"a {KIND_WORDS[content.kind]} cannot be shown again once hidden"
            if content.kind == "profile"
            else f"a {KIND_WORDS[content.kind]} cannot be hidden (act on the user instead)",
        )
