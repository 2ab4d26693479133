"""Reports: a member tells the moderators about a user, a profile, a message, a chat line or
a testimonial, and the moderators' queue of them.

A member reports only what they can see (a message of their own conversations, a chat line
of a game they may watch and a channel they read, an approved testimonial) and never their
own; one open report per member and thing (a second is refused until the first is handled).
What the content said is kept with the report, so a later edit hides nothing from the
moderators. A mute never stops a report.
"""

from __future__ import annotations

import unicodedata
from datetime import datetime
from typing import Any, Literal, cast, get_args

from sqlalchemy import Connection, Table, insert, select, update

from dicehall.server.core.clock import aware, now
from dicehall.server.core.ids import id_in
from dicehall.server.core.models import Report, User
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.games.privacy import watchable
from dicehall.server.domain.moderation.content import (
    KIND_WORDS,
    KINDS,
    TESTIMONIALS,
    Content,
    Kind,
    find,
)
from dicehall.server.domain.people.chat import channel_of, channels_seen
from dicehall.server.domain.people.lookup import other_person

REPORTS = cast(Table, Report.__table__)
USERS = cast(Table, User.__table__)

Reason = Literal["spam", "abuse", "cheating", "inappropriate", "other"]
REASONS: tuple[Reason, ...] = get_args(Reason)
#: How pages name each reason.
REASON_WORDS: dict[str, str] = {
    "spam": "Spam or advertising",
    "abuse": "Insults, threats or harassment",
    "cheating": "Cheating or abusing the site",
    "inappropriate": "Inappropriate name or content",
    "other": "Something else",
}
Status = Literal["open", "resolved", "dismissed"]
STATUSES: tuple[Status, ...] = get_args(Status)
#: The longest note a reporter may add, and the most of the content a report keeps.
TEXT_MOST = 500
CONTENT_MOST = 2000
#: Reports in one page of the queue.
PAGE = 50


def clean_text(text: str, most: int, what: str, code: str) -> str:
    """``text`` trimmed, at most ``most`` characters, no control characters but line breaks
    (422 ``code``, naming ``what``)."""
    cleaned = text.replace("\r\n", "\n").replace("\r", "\n").strip()
    if len(cleaned) > most:
        raise Refused(
            "invalid", code, f"{what} is at most {most} characters (this one has {len(cleaned)})"
        )
    for char in cleaned:
        if unicodedata.category(char) in ("Cc", "Cf") and char not in "\n\t":
            raise Refused(
                "invalid",
                code,
                f"{what} may not contain control or format characters (it has U+{ord(char):04X})",
            )
    return cleaned


def check_reason(reason: str) -> Reason:
    """``reason`` if it is one of :data:`REASONS` (422 ``invalid_reason``)."""
    if reason not in REASONS:
        raise Refused("invalid", "invalid_reason", f"a reason is one of: {', '.join(REASONS)}")
    return reason


def check_kind(kind: str) -> Kind:
    """``kind`` if it is one of the kinds a report names (422 ``invalid_kind``)."""
    if kind not in KINDS:
        raise Refused("invalid", "invalid_kind", f"what is reported is one of: {', '.join(KINDS)}")
    return kind


def _visible(conn: Connection, reporter_pk: int, kind: Kind, target: str | int) -> Content:
    """The thing ``reporter_pk`` reports, if it exists, they can see it and it is not theirs
    (404 ``unknown_target`` alike for what is not there and what they cannot see)."""
    if kind in ("user", "profile"):
        person = other_person(conn, reporter_pk, str(target), "you cannot report yourself")
        content = find(conn, kind, person.pk)
        if content.hidden:  # a closed account
            raise Refused("not_found", "unknown_user", f"there is no user {person.user_id!r}")
        return content
    text = str(target).strip()
    unknown = Refused("not_found", "unknown_target", f"there is no {KIND_WORDS[kind]} {text[:20]}")
    number = id_in(text)
    if number is None:
        raise unknown
    content = find(conn, kind, number)
    if content.hidden:
        raise unknown
    if kind == "message" and reporter_pk not in content.sides:
        raise unknown
    if kind == "chat":
        assert content.game_id is not None
        try:
            record, seats = watchable(conn, content.game_id, reporter_pk)
        except Refused:
            raise unknown from None
        if content.channel not in channels_seen(record, channel_of(seats, reporter_pk)):
            raise unknown
    if kind == "testimonial":
        status = conn.execute(
            select(TESTIMONIALS.c.status).where(TESTIMONIALS.c.id == content.id)
        ).scalar_one()
        if status != "approved" and content.author_pk != reporter_pk:
            raise unknown
    if content.author_pk == reporter_pk:
        raise Refused("invalid", "yourself", "you cannot report what you wrote yourself")
    return content


def file_report(
    conn: Connection,
    reporter_pk: int,
    kind: str,
    target: str | int,
    reason: str,
    text: str,
    at: datetime,
) -> dict[str, Any]:
    """``reporter_pk`` reports the ``kind`` ``target`` (a user id for a user or profile, else
    the thing's number) for ``reason``, with an optional note; the report as stored.

    Refused: 422 ``invalid_kind``, ``invalid_reason``, ``invalid_text``, ``yourself``; 404
    ``unknown_user`` or ``unknown_target``; 409 ``already_reported``."""
    checked_kind = check_kind(kind)
    checked_reason = check_reason(reason)
    note = clean_text(text, TEXT_MOST, "a report's note", "invalid_text")
    content = _visible(conn, reporter_pk, checked_kind, target)
    # The reporter's row first: two reports of one thing by one member are never both new.
    conn.execute(select(USERS.c.id).where(USERS.c.id == reporter_pk).with_for_update()).all()
    same = conn.execute(
        select(REPORTS.c.id).where(
            REPORTS.c.target_kind == checked_kind,
            REPORTS.c.target_id == content.id,
            REPORTS.c.reporter_pk == reporter_pk,
            REPORTS.c.status == "open",
        )
    ).first()
    if same is not None:
        raise Refused(
            "conflict",
            "already_reported",
            f"you have reported this {KIND_WORDS[checked_kind]} already; a moderator will "
            "look at it",
        )
    report_id = conn.execute(
        insert(REPORTS)
        .values(
            reporter_pk=reporter_pk,
            target_kind=checked_kind,
            target_id=content.id,
            target_user_pk=content.author_pk,
            reason=checked_reason,
            text=note,
            content=content.text[:CONTENT_MOST],
            status="open",
            created_at=at,
        )
        .returning(REPORTS.c.id)
    ).scalar_one()
    return {
        "id": int(report_id),
        "kind": checked_kind,
        "reason": checked_reason,
        "status": "open",
        "created_at": at.isoformat(),
    }


def handle(
    conn: Connection, report_id: int, moderator_pk: int, status: Status, at: datetime
) -> Any:
    """Close the open report ``report_id`` as ``status`` by ``moderator_pk``; its row (404
    ``unknown_report``; 409 ``report_handled`` when it is not open)."""
    row = conn.execute(select(REPORTS).where(REPORTS.c.id == report_id)).first()
    if row is None:
        raise Refused("not_found", "unknown_report", f"there is no report {report_id}")
    if row.status != "open":
        raise Refused("conflict", "report_handled", f"report {report_id} was {row.status} already")
    conn.execute(
        update(REPORTS)
        .where(REPORTS.c.id == report_id)
        .values(status=status, handled_by=moderator_pk, handled_at=at)
    )
    return row


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else aware(moment).isoformat()


def _in_force(until: datetime | None, at: datetime) -> str | None:
    """``until`` as ISO text while it is still ahead of ``at``, else None."""
    return None if until is None or aware(until) <= at else aware(until).isoformat()


def queue(
    conn: Connection,
    status: Status = "open",
    before: int | None = None,
    limit: int = PAGE,
    target_pk: int | None = None,
) -> dict[str, Any]:
    """A page of the reports in ``status`` (about ``target_pk`` only, when given), newest
    first, each with what was reported, by whom, about whom, and where that user stands
    now (a mute or suspension only while it lasts)."""
    reporter = USERS.alias("reporter")
    target = USERS.alias("target")
    handler = USERS.alias("handler")
    query = (
        select(
            REPORTS,
            reporter.c.user_id.label("reporter_id"),
            target.c.user_id.label("target_user_id"),
            target.c.display_name.label("target_name"),
            target.c.muted_until,
            target.c.suspended_until,
            target.c.closed_at,
            handler.c.user_id.label("handler_id"),
        )
        .join(reporter, reporter.c.id == REPORTS.c.reporter_pk)
        .join(target, target.c.id == REPORTS.c.target_user_pk)
        .outerjoin(handler, handler.c.id == REPORTS.c.handled_by)
        .where(REPORTS.c.status == status)
    )
    if before is not None:
        query = query.where(REPORTS.c.id < before)
    if target_pk is not None:
        query = query.where(REPORTS.c.target_user_pk == target_pk)
    found = conn.execute(query.order_by(REPORTS.c.id.desc()).limit(limit + 1)).all()
    rows = found[:limit]
    at = now()
    return {
        "reports": [
            {
                "id": int(r.id),
                "kind": r.target_kind,
                "target": int(r.target_id),
                "user_id": r.target_user_id,
                "display_name": r.target_name,
                "reporter": r.reporter_id,
                "reason": r.reason,
                "text": r.text,
                "content": r.content,
                "status": r.status,
                "created_at": aware(r.created_at).isoformat(),
                "handled_by": r.handler_id,
                "handled_at": _iso(r.handled_at),
                "muted_until": _in_force(r.muted_until, at),
                "suspended_until": _in_force(r.suspended_until, at),
                "closed": r.closed_at is not None,
            }
            for r in rows
        ],
        "next": int(rows[-1].id) if len(found) > limit else None,
    }
