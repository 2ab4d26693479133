"""Testimonials: what members say about the site, one each, shown once a moderator has
approved it.

A new or edited testimonial waits for a moderator (``pending``); an approved one is on the
public list until its writer edits it (back to the queue) or deletes it, or a moderator
hides it. Writing one is writing others read: a muted member cannot.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Connection, Table, delete, insert, select, update

from dicehall.server.core.clock import aware
from dicehall.server.core.ids import in_id_range
from dicehall.server.core.models import Testimonial, User
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.moderation import audit
from dicehall.server.domain.moderation.reports import clean_text
from dicehall.server.domain.moderation.standing import may_write, require_moderator

TESTIMONIALS = cast(Table, Testimonial.__table__)
USERS = cast(Table, User.__table__)

#: The longest testimonial, in characters once trimmed.
BODY_MOST = 1000
#: Testimonials in one page of the public list.
PAGE = 50


def _json(row: Any) -> dict[str, Any]:
    return {
        "id": int(row.id),
        "user_id": row.user_id,
        "display_name": row.display_name,
        "body": row.body,
        "status": row.status,
        "created_at": aware(row.created_at).isoformat(),
        "updated_at": aware(row.updated_at).isoformat(),
    }


def _joined() -> Any:
    return select(TESTIMONIALS, USERS.c.user_id, USERS.c.display_name).join(
        USERS, USERS.c.id == TESTIMONIALS.c.user_pk
    )


def mine(conn: Connection, user_pk: int) -> dict[str, Any] | None:
    """``user_pk``'s testimonial, in whatever status, or None."""
    row = conn.execute(_joined().where(TESTIMONIALS.c.user_pk == user_pk)).first()
    return None if row is None else _json(row)


def clean_body(body: str) -> str:
    """A testimonial as stored: trimmed, 1 to :data:`BODY_MOST` characters, no control
    characters but line breaks (422 ``invalid_body``)."""
    text = clean_text(body, BODY_MOST, "a testimonial", "invalid_body")
    if not text:
        raise Refused("invalid", "invalid_body", "a testimonial must not be empty")
    return text


def save(conn: Connection, user_pk: int, body: str, at: datetime) -> dict[str, Any]:
    """Write or rewrite ``user_pk``'s testimonial; it waits for a moderator again. Refused:
    422 ``invalid_body``, 403 ``muted``."""
    text = clean_body(body)
    may_write(conn, user_pk, at)
    # The writer's row first: two saves of one member never both find no testimonial.
    conn.execute(select(USERS.c.id).where(USERS.c.id == user_pk).with_for_update()).all()
    had = conn.execute(
        select(TESTIMONIALS.c.id).where(TESTIMONIALS.c.user_pk == user_pk).with_for_update()
    ).first()
    values = {
        "body": text,
        "status": "pending",
        "updated_at": at,
        "approved_by": None,
        "approved_at": None,
    }
    if had is None:
        conn.execute(insert(TESTIMONIALS).values(user_pk=user_pk, created_at=at, **values))
    else:
        conn.execute(update(TESTIMONIALS).where(TESTIMONIALS.c.id == had.id).values(**values))
    saved = mine(conn, user_pk)
    assert saved is not None
    return saved


def remove(conn: Connection, user_pk: int) -> bool:
    """Delete ``user_pk``'s testimonial; whether there was one."""
    gone = conn.execute(delete(TESTIMONIALS).where(TESTIMONIALS.c.user_pk == user_pk)).rowcount
    return bool(gone)


def listing(
    conn: Connection, status: str = "approved", before: int | None = None, limit: int = PAGE
) -> dict[str, Any]:
    """A page of the testimonials in ``status`` (the public list: approved), newest first."""
    query = _joined().where(TESTIMONIALS.c.status == status, USERS.c.closed_at.is_(None))
    if before is not None:
        query = query.where(TESTIMONIALS.c.id < before)
    found = conn.execute(query.order_by(TESTIMONIALS.c.id.desc()).limit(limit + 1)).all()
    rows = found[:limit]
    return {
        "testimonials": [_json(row) for row in rows],
        "next": int(rows[-1].id) if len(found) > limit else None,
    }


@dataclass(frozen=True)
class Approved:
    """An approved testimonial, and its entry in the audit log."""

    testimonial: dict[str, Any]
    entry: int


def approve(conn: Connection, moderator_pk: int, testimonial_id: int, at: datetime) -> Approved:
    """A moderator approves testimonial ``testimonial_id`` (pending, or hidden before): it
    is on the public list from now on, and the audit log says so. Refused: 403
    ``not_moderator`` or ``own_testimonial``, 404 ``unknown_testimonial``, 409
    ``already_approved``."""
    require_moderator(conn, moderator_pk)
    row = None
    if in_id_range(testimonial_id):
        row = conn.execute(
            select(TESTIMONIALS).where(TESTIMONIALS.c.id == testimonial_id).with_for_update()
        ).first()
    if row is None:
        raise Refused(
            "not_found", "unknown_testimonial", f"there is no testimonial {testimonial_id}"
        )
    if row.status == "approved":
        raise Refused(
            "conflict", "already_approved", f"testimonial {testimonial_id} is approved already"
        )
    if int(row.user_pk) == moderator_pk:
        raise Refused(
            "forbidden", "own_testimonial", "another moderator approves your own testimonial"
        )
    conn.execute(
        update(TESTIMONIALS)
        .where(TESTIMONIALS.c.id == testimonial_id)
        .values(status="approved", approved_by=moderator_pk, approved_at=at)
    )
    entry = audit.record(
        conn,
        audit.Entry(
            moderator_pk,
            int(row.user_pk),
            "approve",
            "approved for the public list",
            content_kind="testimonial",
            content_id=testimonial_id,
            content_text=row.body,
        ),
        at,
    )
    shown = conn.execute(_joined().where(TESTIMONIALS.c.id == testimonial_id)).one()
    return Approved(_json(shown), entry)
