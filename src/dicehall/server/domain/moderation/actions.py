"""What a moderator does: warn, mute for a time, unmute, hide or show content, suspend for a
time, lift a suspension, close an account, or dismiss a report. Each is one transaction
that checks everything first, then changes the account or the content, tells the user (a
bell notice with the reason and how to appeal) and adds one entry to the audit log.

A mute or a suspension replaces any earlier one of its kind (it may shorten it). Another
moderator can be warned and their content hidden, but not muted, suspended or closed: the
site's administrator takes their role first (``dicehall admin revoke``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal, cast, get_args

from sqlalchemy import Connection, Table, delete, select, update

from dicehall.server.core.ids import in_id_range
from dicehall.server.core.models import (
    ApiToken,
    AuthSession,
    PushSubscription,
    Testimonial,
    User,
    UserSearchTerm,
    Webhook,
)
from dicehall.server.core.txn import after_commit
from dicehall.server.domain import notifications
from dicehall.server.domain.auth_cache import credentials_changed
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.moderation import audit, content, reports
from dicehall.server.domain.moderation.standing import (
    require_moderator,
    standing,
    until_words,
)
from dicehall.server.domain.people import settings
from dicehall.server.domain.people.lookup import Person, other_person, person
from dicehall.server.domain.services import Services
from dicehall.server.infra.push import token_credential

USERS = cast(Table, User.__table__)
SESSIONS = cast(Table, AuthSession.__table__)
TOKENS = cast(Table, ApiToken.__table__)

ActionName = Literal[
    "warn", "mute", "unmute", "hide", "unhide", "suspend", "lift", "close", "dismiss"
]
#: The actions a moderator takes (the log also holds approvals and role changes).
MODERATOR_ACTIONS: tuple[ActionName, ...] = get_args(ActionName)
#: Actions that need a time (minutes from now).
TIMED = frozenset({"mute", "suspend"})
#: Actions that act on content, not on a user.
ON_CONTENT = frozenset({"hide", "unhide"})
#: Actions a moderator may not take on another moderator.
NOT_ON_MODERATORS = frozenset({"mute", "suspend", "close"})
#: The longest mute or suspension, in minutes (a year); longer: close the account.
MOST_MINUTES = 366 * 24 * 60
#: The longest reason.
REASON_MOST = 500
#: The bell's kind for moderation notices.
NOTICE = "moderation"


@dataclass(frozen=True)
class Order:
    """What a moderator asks for. A user action names ``user_id``; hide and unhide name
    the content (``content_kind`` and ``content_id``, or ``user_id`` for a profile);
    ``report_id`` (optional, required to dismiss) is the report acted on, which then
    supplies whatever else is left out."""

    action: str
    reason: str
    user_id: str | None = None
    content_kind: str | None = None
    content_id: int | None = None
    minutes: int | None = None
    report_id: int | None = None


@dataclass(frozen=True)
class Acted:
    """What an action did: its audit entry, whom it concerned, until when, and the
    credentials it ended (their sockets are closed once it has committed)."""

    entry: int
    action: ActionName
    user_pk: int
    user_id: str
    until: datetime | None
    ended_sessions: bool = False
    ended_tokens: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.entry,
            "action": self.action,
            "user_id": self.user_id,
            "until": None if self.until is None else self.until.isoformat(),
        }


def _action(name: str) -> ActionName:
    if name not in MODERATOR_ACTIONS:
        raise Refused(
            "invalid",
            "invalid_action",
            f"an action is one of: {', '.join(MODERATOR_ACTIONS)}",
        )
    return name


def _reason(text: str) -> str:
    reason = reports.clean_text(text, REASON_MOST, "a reason", "invalid_reason")
    if not reason:
        raise Refused(
            "invalid", "invalid_reason", "give a reason: the user and the audit log read it"
        )
    return reason


def _until(order: Order, at: datetime) -> datetime:
    minutes = order.minutes
    if minutes is None or not 1 <= minutes <= MOST_MINUTES:
        raise Refused(
            "invalid",
            "invalid_minutes",
            f"say for how long, in minutes (1 to {MOST_MINUTES}: a year at most; "
            "longer, close the account)",
        )
    return at + timedelta(minutes=minutes)


def _user(conn: Connection, moderator_pk: int, user_id: str) -> Person:
    return other_person(conn, moderator_pk, user_id, "you cannot moderate yourself")


def _content_of(conn: Connection, moderator_pk: int, order: Order, report: Any) -> content.Content:
    kind = order.content_kind
    if kind is None and report is not None:
        kind = report.target_kind
        if kind == "user":
            raise Refused(
                "invalid",
                "not_hideable",
                "this report is about a user, not content: act on the user instead",
            )
        target = int(report.target_id)
    elif kind == "profile":
        if order.user_id is None:
            raise Refused("invalid", "invalid_target", "name the user whose profile to hide")
        target = _user(conn, moderator_pk, order.user_id).pk
    else:
        if order.content_id is None:
            raise Refused("invalid", "invalid_target", "name the content: its kind and number")
        target = order.content_id
    if kind not in content.HIDEABLE:
        raise Refused(
            "invalid",
            "invalid_target",
            f"content is one of: {', '.join(content.HIDEABLE)}",
        )
    return content.find(conn, kind, target)


def _report(conn: Connection, report_id: int | None) -> Any:
    if report_id is None:
        return None
    row = None
    if in_id_range(report_id):
        # Locked: two moderators acting on one report act one after the other, never both.
        row = conn.execute(
            select(reports.REPORTS).where(reports.REPORTS.c.id == report_id).with_for_update()
        ).first()
    if row is None:
        raise Refused("not_found", "unknown_report", f"there is no report {report_id}")
    return row


def _tell(conn: Connection, user_pk: int, text: str) -> None:
    notifications.add(conn, user_pk, NOTICE, None, text)


def _appeal(moderator: Person) -> str:
    return f"To appeal, send {moderator.user_id} a message."


def _set(conn: Connection, user_pk: int, **values: Any) -> None:
    conn.execute(update(USERS).where(USERS.c.id == user_pk).values(**values))


def _end_access(conn: Connection, user_pk: int, *, tokens: bool) -> list[str]:
    """End the user's browser sessions (and delete their tokens when ``tokens``); the
    hashes of their tokens, whose sockets are to be closed."""
    conn.execute(delete(SESSIONS).where(SESSIONS.c.user_pk == user_pk))
    hashes = list(
        conn.execute(select(TOKENS.c.token_hash).where(TOKENS.c.user_pk == user_pk)).scalars()
    )
    if tokens:
        conn.execute(delete(TOKENS).where(TOKENS.c.user_pk == user_pk))
    after_commit(conn, credentials_changed)
    return hashes


def _close(conn: Connection, user: Person) -> list[str]:
    """Close ``user``'s account: no way in, no profile, out of search and the public lists."""
    hashes = _end_access(conn, user.pk, tokens=True)
    conn.execute(delete(PushSubscription).where(PushSubscription.user_pk == user.pk))
    conn.execute(delete(Webhook).where(Webhook.user_pk == user.pk))
    conn.execute(delete(UserSearchTerm).where(UserSearchTerm.user_pk == user.pk))
    conn.execute(delete(Testimonial).where(Testimonial.user_pk == user.pk))
    return hashes


def act(conn: Connection, moderator_pk: int, order: Order, at: datetime) -> Acted:
    """Carry out ``order`` for ``moderator_pk`` at ``at`` (see :class:`Order`); what was done.

    Refused: 403 ``not_moderator``, ``target_moderator``; 422 ``invalid_action``,
    ``invalid_reason``, ``invalid_minutes``, ``invalid_target``, ``not_hideable``,
    ``yourself``; 404 ``unknown_user``, ``unknown_target``, ``unknown_report``; 409
    ``report_handled``, ``account_closed``, ``not_muted``, ``not_suspended``,
    ``already_hidden``, ``not_hidden``."""
    require_moderator(conn, moderator_pk)
    action = _action(order.action)
    reason = _reason(order.reason)
    until = _until(order, at) if action in TIMED else None
    report = _report(conn, order.report_id)
    if action == "dismiss" and report is None:
        raise Refused("invalid", "invalid_target", "name the report to dismiss")
    if report is not None and report.status != "open":
        raise Refused(
            "conflict", "report_handled", f"report {report.id} was {report.status} already"
        )
    moderator = person(conn, moderator_pk)
    found: content.Content | None = None
    if action in ON_CONTENT:
        found = _content_of(conn, moderator_pk, order, report)
        target = person(conn, found.author_pk)
    elif order.user_id is not None:
        target = _user(conn, moderator_pk, order.user_id)
    elif report is not None:
        target = person(conn, int(report.target_user_pk))
        if target.pk == moderator_pk and action != "dismiss":
            raise Refused("invalid", "yourself", "you cannot moderate yourself")
    else:
        raise Refused("invalid", "invalid_target", "name the user to act on")
    held = standing(conn, target.pk)
    if action in NOT_ON_MODERATORS and held.moderator:
        raise Refused(
            "forbidden",
            "target_moderator",
            f"{target.user_id} is a moderator: the site's administrator must take the role "
            "first (dicehall admin revoke)",
        )
    if held.closed and action not in ("dismiss", "hide", "unhide"):
        raise Refused("conflict", "account_closed", f"{target.user_id}'s account is closed")
    zone = settings.of(conn, target.pk).time_zone
    ended_sessions = False
    hashes: list[str] = []
    if action == "warn":
        _tell(conn, target.pk, f"A moderator warned you: {reason}. {_appeal(moderator)}")
    elif action == "mute":
        assert until is not None
        _set(conn, target.pk, muted_until=until)
        _tell(
            conn,
            target.pk,
            f"A moderator muted you until {until_words(until, zone)}: {reason}. Until then "
            f"you cannot write where others read it. {_appeal(moderator)}",
        )
    elif action == "unmute":
        if not held.muted(at):
            raise Refused("conflict", "not_muted", f"{target.user_id} is not muted")
        _set(conn, target.pk, muted_until=None)
        _tell(conn, target.pk, f"A moderator ended your mute: {reason}.")
    elif action == "suspend":
        assert until is not None
        _set(conn, target.pk, suspended_until=until)
        hashes = _end_access(conn, target.pk, tokens=False)
        ended_sessions = True
        _tell(
            conn,
            target.pk,
            f"A moderator suspended your account until {until_words(until, zone)}: {reason}. "
            f"{_appeal(moderator)}",
        )
    elif action == "lift":
        if not held.suspended(at):
            raise Refused("conflict", "not_suspended", f"{target.user_id} is not suspended")
        _set(conn, target.pk, suspended_until=None)
        _tell(conn, target.pk, f"A moderator lifted your suspension: {reason}.")
    elif action == "close":
        _set(conn, target.pk, closed_at=at, about="", display_name=target.user_id)
        hashes = _close(conn, target)
        ended_sessions = True
    elif action in ON_CONTENT:
        assert found is not None
        hiding = action == "hide"
        if found.hidden == hiding:
            code, state = ("already_hidden", "hidden") if hiding else ("not_hidden", "shown")
            raise Refused(
                "conflict", code, f"this {content.KIND_WORDS[found.kind]} is {state} already"
            )
        content.set_hidden(conn, found, hiding, at)
        if hiding:
            _tell(
                conn,
                target.pk,
                f"A moderator hid your {content.KIND_WORDS[found.kind]}: {reason}. "
                f"{_appeal(moderator)}",
            )
    if report is not None:
        status: reports.Status = "dismissed" if action == "dismiss" else "resolved"
        reports.handle(conn, int(report.id), moderator_pk, status, at)
    entry = audit.record(
        conn,
        audit.Entry(
            moderator_pk,
            target.pk,
            action,
            reason,
            until=until,
            content_kind=None if found is None else found.kind,
            content_id=None if found is None else found.id,
            content_text=None if found is None else found.text,
            report_id=None if report is None else int(report.id),
        ),
        at,
    )
    return Acted(entry, action, target.pk, target.user_id, until, ended_sessions, hashes)


def end_access(services: Services, acted: Acted) -> None:
    """Close the sockets of the sessions and tokens ``acted`` ended (after its commit)."""
    if not acted.ended_sessions:
        return
    why = "the account was suspended" if acted.action == "suspend" else "the account was closed"
    services.broker.end_sessions_except(acted.user_pk, None, why)
    if acted.ended_tokens:
        services.broker.end_credentials(
            acted.user_pk, [token_credential(h) for h in acted.ended_tokens], why
        )
