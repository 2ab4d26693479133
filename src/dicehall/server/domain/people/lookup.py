"""Finding the other person of a meeting by the user id someone typed or put in a path."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import cast

from sqlalchemy import Connection, Table, select

from dicehall.server.core.models import User
from dicehall.server.domain.errors import Refused

USERS = cast(Table, User.__table__)

#: What a user id may look like before it is looked up (anything else is nobody, so odd
#: bytes such as NUL never reach the database).
_HANDLE = re.compile(r"[A-Za-z0-9_-]{1,40}")


@dataclass(frozen=True)
class Person:
    """A user as the people's pages and answers name them."""

    pk: int
    user_id: str
    display_name: str


def person(conn: Connection, user_pk: int) -> Person:
    """The user ``user_pk``."""
    row = conn.execute(
        select(USERS.c.id, USERS.c.user_id, USERS.c.display_name).where(USERS.c.id == user_pk)
    ).one()
    return Person(int(row.id), str(row.user_id), str(row.display_name))


def other_person(conn: Connection, me_pk: int, user_id: str, yourself: str) -> Person:
    """The user ``user_id`` (any case): 404 ``unknown_user`` for nobody, 422 ``yourself``
    (saying ``yourself``) when it is me."""
    handle = user_id.strip()
    row = None
    if _HANDLE.fullmatch(handle):
        row = conn.execute(
            select(USERS.c.id, USERS.c.user_id, USERS.c.display_name).where(
                USERS.c.key == handle.lower()
            )
        ).first()
    if row is None:
        shown = handle if len(handle) <= 20 else handle[:20] + "..."
        raise Refused("not_found", "unknown_user", f"there is no user {shown!r}")
    if row.id == me_pk:
        raise Refused("invalid", "yourself", yourself)
    return Person(int(row.id), str(row.user_id), str(row.display_name))
