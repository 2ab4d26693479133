"""Where an account stands with the moderators: muted (writes nothing others read),
suspended (cannot sign in) or closed (gone for good), and the one check every place a user
writes text others see calls: :func:`may_write`.

A mute or a suspension ends by itself when its moment passes (nothing sweeps it: the
moment is compared with the site's clock on every check). Reports are never refused for a
mute, and a message to a moderator is always allowed: that is how an appeal is made.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Connection, Table, select

from dicehall.server.core.clock import aware
from dicehall.server.core.models import User
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.notices.zones import local
from dicehall.server.domain.people import settings

USERS = cast(Table, User.__table__)

#: The role that may read reports and act on them.
MODERATOR = "moderator"
#: Every role an account may hold ("" is a member's).
ROLES = (MODERATOR,)


def until_words(moment: datetime, zone_name: str | None = "UTC") -> str:
    """A moment as a refusal says it, in the reader's time zone: "14:05 UTC on 9 December
    2026"."""
    shown = local(aware(moment), zone_name)
    zone = zone_name or "UTC"
    return f"{shown:%H:%M} {zone} on {shown.day} {shown:%B %Y}"


@dataclass(frozen=True)
class Standing:
    """An account's moderation fields as stored."""

    role: str
    muted_until: datetime | None
    suspended_until: datetime | None
    closed_at: datetime | None

    def muted(self, at: datetime) -> bool:
        """Whether a mute is in force at ``at``."""
        return self.muted_until is not None and aware(self.muted_until) > at

    def suspended(self, at: datetime) -> bool:
        """Whether a suspension is in force at ``at``."""
        return self.suspended_until is not None and aware(self.suspended_until) > at

    @property
    def closed(self) -> bool:
        return self.closed_at is not None

    @property
    def moderator(self) -> bool:
        return self.role == MODERATOR


def standing_of(row: Any) -> Standing:
    """The standing held by a ``users`` row (or a :class:`User`)."""
    return Standing(
        getattr(row, "role", "") or "",
        getattr(row, "muted_until", None),
        getattr(row, "suspended_until", None),
        getattr(row, "closed_at", None),
    )


def standing(conn: Connection, user_pk: int) -> Standing:
    """``user_pk``'s standing as stored now."""
    row = conn.execute(
        select(USERS.c.role, USERS.c.muted_until, USERS.c.suspended_until, USERS.c.closed_at).where(
            USERS.c.id == user_pk
        )
    ).first()
    if row is None:
        return Standing("", None, None, None)
    return standing_of(row)


def barred(row: Any, at: datetime, zone_name: str | None = "UTC") -> Refused | None:
    """Why the account of ``row`` may not sign in or use a credential at ``at`` (403
    ``account_closed`` or ``suspended``, saying until when), or None."""
    held = standing_of(row)
    if held.closed:
        return Refused("forbidden", "account_closed", "this account is closed")
    if held.suspended(at):
        assert held.suspended_until is not None
        until = aware(held.suspended_until)
        return Refused(
            "forbidden",
            "suspended",
            f"this account is suspended until {until_words(until, zone_name)}",
            until=until.isoformat(),
        )
    return None


def is_moderator(conn: Connection, user_pk: int) -> bool:
    """Whether ``user_pk`` holds the moderator role now."""
    return standing(conn, user_pk).moderator


def require_moderator(conn: Connection, user_pk: int) -> None:
    """403 ``not_moderator`` unless ``user_pk`` is a moderator now."""
    if not is_moderator(conn, user_pk):
        raise Refused("forbidden", "not_moderator", "only moderators may do this")


def may_write(conn: Connection, user_pk: int, at: datetime, to_pk: int | None = None) -> None:
    """Refuse (403 ``muted``, with ``until``) a muted user's writing others read; a message
    to a moderator (``to_pk``) is always let through: an appeal."""
    held = standing(conn, user_pk)
    if not held.muted(at):
        return
    if to_pk is not None and is_moderator(conn, to_pk):
        return
    assert held.muted_until is not None
    until = aware(held.muted_until)
    zone_name = settings.of(conn, user_pk).time_zone
    raise Refused(
        "forbidden",
        "muted",
        f"You are muted until {until_words(until, zone_name)}: you cannot write where others "
        "read it until then (you may still send a moderator a message to appeal)",
        until=until.isoformat(),
    )
