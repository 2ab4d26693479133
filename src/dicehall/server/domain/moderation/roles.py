"""Granting and taking a role (``dicehall admin grant|revoke USER moderator``): the site's
administrator's own actions, recorded in the audit log without a moderator."""

from __future__ import annotations

from datetime import datetime
from typing import cast

from sqlalchemy import Connection, Table, select, update

from dicehall.server.core.models import User
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.moderation import audit
from dicehall.server.domain.moderation.standing import ROLES

USERS = cast(Table, User.__table__)


def set_role(
    conn: Connection, user_id: str, role: str, grant: bool, at: datetime
) -> tuple[str, bool]:
    """Give ``user_id`` the ``role`` (``grant``) or take it; the user id as stored, and
    whether anything changed (a role held already, or not held, changes nothing and logs
    nothing). Refused: 422
    ``unknown_role``; 404 ``unknown_user``; 409 ``account_closed`` (granting only)."""
    if role not in ROLES:
        raise Refused(
            "invalid", "unknown_role", f"there is no role {role!r} (roles: {', '.join(ROLES)})"
        )
    handle = user_id.strip()
    row = conn.execute(
        select(USERS.c.id, USERS.c.user_id, USERS.c.role, USERS.c.closed_at).where(
            USERS.c.key == handle.lower()
        )
    ).first()
    if row is None:
        shown = handle if len(handle) <= 20 else handle[:20] + "..."
        raise Refused("not_found", "unknown_user", f"there is no user {shown!r}")
    if grant and row.closed_at is not None:
        raise Refused("conflict", "account_closed", f"{row.user_id}'s account is closed")
    wanted = role if grant else ""
    if (row.role == role) == grant:
        return str(row.user_id), False
    conn.execute(update(USERS).where(USERS.c.id == row.id).values(role=wanted))
    audit.record(
        conn,
        audit.Entry(
            None,
            int(row.id),
            "grant" if grant else "revoke",
            f"{'granted' if grant else 'took'} the {role} role",
        ),
        at,
    )
    return str(row.user_id), True
