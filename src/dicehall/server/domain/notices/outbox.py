"""The outbox: a notice queued for each channel its user chose, in the transaction that made
the notice, so that it is sent exactly when that transaction commits and never after a
rollback. The ``deliveries`` job (:mod:`.delivery`) sends what is due.

Each queued notice names its event (``n24.3``: the third event of bell line 24), and a user's
channel holds an event once (a unique index): a notice written twice is queued once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from typing import Any, cast

from sqlalchemy import Connection, Table, exists, select
from sqlalchemy.dialects import postgresql, sqlite

from dicehall.server.core.clock import now
from dicehall.server.core.models import Delivery, PushSubscription, User, Webhook
from dicehall.server.domain import jobs
from dicehall.server.domain.notices.kinds import Channel, NoticeKind
from dicehall.server.domain.notices.zones import zone
from dicehall.server.domain.people import settings as user_settings

DELIVERIES = cast(Table, Delivery.__table__)
USERS = cast(Table, User.__table__)
PUSH = cast(Table, PushSubscription.__table__)
WEBHOOKS = cast(Table, Webhook.__table__)

#: The job that sends deliveries (woken when one is queued).
JOB = "deliveries"


@dataclass(frozen=True)
class Queued:
    """A notice for one user, before it is queued to their channels."""

    user_pk: int
    kind: NoticeKind
    game_id: int | None
    title: str
    text: str
    path: str
    event: str


def channels_of(conn: Connection, user_pks: set[int]) -> dict[int, dict[Channel, Any]]:
    """For each user, each channel they can be reached on and chose kinds for: the kinds it
    takes, and for e-mail its mode and digest hour and time zone."""
    if not user_pks:
        return {}
    has_push = exists().where(PUSH.c.user_pk == USERS.c.id)
    has_hook = exists().where(WEBHOOKS.c.user_pk == USERS.c.id)
    rows = conn.execute(
        select(
            USERS.c.id,
            USERS.c.settings,
            USERS.c.email_verified_at,
            has_push.label("push"),
            has_hook.label("hook"),
        ).where(USERS.c.id.in_(user_pks))
    ).all()
    found: dict[int, dict[Channel, Any]] = {}
    for row in rows:
        if row.email_verified_at is None and not row.push and not row.hook:
            continue  # most people: no channel, and no settings to read
        chosen = user_settings.parse(row.settings)
        reach: dict[Channel, Any] = {}
        if row.email_verified_at is not None and chosen.email_mode != "off":
            reach["email"] = chosen
        if row.push:
            reach["push"] = chosen
        if row.hook:
            reach["webhook"] = chosen
        found[row.id] = reach
    return found


def _takes(channel: Channel, chosen: user_settings.UserSettings, kind: NoticeKind) -> bool:
    kinds = {
        "email": chosen.email_kinds,
        "push": chosen.push_kinds,
        "webhook": chosen.webhook_kinds,
    }[channel]
    return kind in kinds


def next_digest(chosen: user_settings.UserSettings, at: datetime) -> datetime:
    """When the user's next daily digest goes out after ``at``: the next ``digest_hour``
    o'clock in their time zone."""
    local = at.astimezone(zone(chosen.time_zone))
    target = datetime.combine(local.date(), time(chosen.digest_hour), tzinfo=local.tzinfo)
    if target <= local:
        target = datetime.combine(
            local.date() + timedelta(days=1), time(chosen.digest_hour), tzinfo=local.tzinfo
        )
    return target.astimezone(at.tzinfo)


def queue(conn: Connection, notices: Sequence[Queued]) -> int:
    """Queue each notice to each channel its user takes it on; return how many deliveries
    were queued (a repeat of an event already queued is left out)."""
    if not notices:
        return 0
    reach = channels_of(conn, {n.user_pk for n in notices})
    moment = now()
    rows: list[dict[str, Any]] = []
    for notice in notices:
        for channel, chosen in reach.get(notice.user_pk, {}).items():
            if not _takes(channel, chosen, notice.kind):
                continue
            digest = channel == "email" and chosen.email_mode == "digest"
            rows.append(
                {
                    "user_pk": notice.user_pk,
                    "channel": channel,
                    "event": notice.event[:80],
                    "kind": notice.kind,
                    "game_id": notice.game_id,
                    "title": notice.title[:200],
                    "text": notice.text[:400],
                    "path": notice.path[:200],
                    "created_at": moment,
                    "status": "digest" if digest else "pending",
                    "due_at": next_digest(chosen, moment) if digest else moment,
                    "attempts": 0,
                }
            )
    if not rows:
        return 0
    dialect = sqlite if conn.dialect.name == "sqlite" else postgresql
    statement: Any = dialect.insert(DELIVERIES).on_conflict_do_nothing(
        index_elements=[DELIVERIES.c.user_pk, DELIVERIES.c.channel, DELIVERIES.c.event]
    )
    queued = int(conn.execute(statement, rows).rowcount or 0)
    if any(row["status"] == "pending" for row in rows):
        jobs.wake(conn, JOB)
    return queued
