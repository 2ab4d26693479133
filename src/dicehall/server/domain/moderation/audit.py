"""The moderation audit log: every action a moderator (or the site's administrator) took,
with who, to whom, why, until when and on which content. Rows are only ever added."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, cast, get_args

from sqlalchemy import Connection, Table, insert, select

from dicehall.server.core.clock import aware
from dicehall.server.core.models import ModerationAction, User

ACTIONS_TABLE = cast(Table, ModerationAction.__table__)
USERS = cast(Table, User.__table__)

Action = Literal[
    "warn",
    "mute",
    "unmute",
    "hide",
    "unhide",
    "suspend",
    "lift",
    "close",
    "dismiss",
    "approve",
    "grant",
    "revoke",
]
ACTIONS: tuple[Action, ...] = get_args(Action)
#: How the log names each action.
ACTION_WORDS: dict[str, str] = {
    "warn": "Warned",
    "mute": "Muted",
    "unmute": "Unmuted",
    "hide": "Hid",
    "unhide": "Showed again",
    "suspend": "Suspended",
    "lift": "Lifted the suspension of",
    "close": "Closed the account of",
    "dismiss": "Dismissed a report on",
    "approve": "Approved the testimonial of",
    "grant": "Made moderator",
    "revoke": "Took the moderator role from",
}
#: Entries in one page of the log.
PAGE = 50
#: Who the log names for an action taken from the command line.
ADMINISTRATOR = "the site's administrator"


@dataclass(frozen=True)
class Entry:
    """What one entry records (see :func:`record`)."""

    moderator_pk: int | None
    target_pk: int | None
    action: Action
    reason: str
    until: datetime | None = None
    content_kind: str | None = None
    content_id: int | None = None
    content_text: str | None = None
    report_id: int | None = None


def record(conn: Connection, entry: Entry, at: datetime) -> int:
    """Add ``entry`` to the log at ``at``; its id."""
    return int(
        conn.execute(
            insert(ACTIONS_TABLE)
            .values(
                moderator_pk=entry.moderator_pk,
                target_pk=entry.target_pk,
                action=entry.action,
                reason=entry.reason,
                until=entry.until,
                content_kind=entry.content_kind,
                content_id=entry.content_id,
                content_text=entry.content_text,
                report_id=entry.report_id,
                created_at=at,
            )
            .returning(ACTIONS_TABLE.c.id)
        ).scalar_one()
    )


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else aware(moment).isoformat()


def listing(
    conn: Connection,
    target_pk: int | None = None,
    before: int | None = None,
    limit: int = PAGE,
) -> dict[str, Any]:
    """A page of the log, newest first (about ``target_pk`` only, when given; ``before``:
    the ``next`` of the page before)."""
    moderator = USERS.alias("moderator")
    target = USERS.alias("target")
    query = (
        select(
            ACTIONS_TABLE,
            moderator.c.user_id.label("moderator_id"),
            target.c.user_id.label("target_id"),
        )
        .outerjoin(moderator, moderator.c.id == ACTIONS_TABLE.c.moderator_pk)
        .outerjoin(target, target.c.id == ACTIONS_TABLE.c.target_pk)
    )
    if target_pk is not None:
        query = query.where(ACTIONS_TABLE.c.target_pk == target_pk)
    if before is not None:
        query = query.where(ACTIONS_TABLE.c.id < before)
    found = conn.execute(query.order_by(ACTIONS_TABLE.c.id.desc()).limit(limit + 1)).all()
    rows = found[:limit]
    return {
        "entries": [
            {
                "id": int(row.id),
                "moderator": row.moderator_id,
                "user_id": row.target_id,
                "action": row.action,
                "reason": row.reason,
                "until": _iso(row.until),
                "content_kind": row.content_kind,
                "content_id": row.content_id,
                "content": row.content_text,
                "report": row.report_id,
                "created_at": aware(row.created_at).isoformat(),
            }
            for row in rows
        ],
        "next": int(rows[-1].id) if len(found) > limit else None,
    }


def acted_on_by(conn: Connection, target_pk: int, moderator_pk: int) -> bool:
    """Whether ``moderator_pk`` ever took an action on ``target_pk`` (their appeal may
    start a conversation the moderator's message settings would otherwise refuse)."""
    found = conn.execute(
        select(ACTIONS_TABLE.c.id)
        .where(
            ACTIONS_TABLE.c.target_pk == target_pk,
            ACTIONS_TABLE.c.moderator_pk == moderator_pk,
        )
        .limit(1)
    ).first()
    return found is not None
