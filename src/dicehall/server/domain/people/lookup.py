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


def user_named(conn: Connection, user_id: str) -> Person | None:
    """The user ``user_id`` (any case, spaces around it ignored); None for nobody."""
    handle = user_id.strip()
    if not _HANDLE.fullmatch(handle):
        return None
    row = conn.execute(
        select(USERS.c.id, USERS.c.user_id, USERS.c.display_name).where(
            USERS.c.key == handle.lower()
        )
    ).first()
    return None if row is None else Person(int(row.id), str(row.user_id), str(row.display_name))


def nobody(user_id: str) -> Refused:
    """404 ``unknown_user``: "there is no user 'bob'" (a long id cut short)."""
    handle = user_id.strip()
    shown = handle if len(handle) <= 20 else handle[:20] + "..."
    return Refused("not_found", "unknown_user", f"there is no user {shown!r}")


def other_person(conn: Connection, me_pk: int, user_id: str, yourself: str) -> Person:
    """The user ``user_id`` (any case): 404 ``unknown_user`` for nobody, 422 ``yourself``
    (saying ``yourself``) when it is me."""
    found = user_named(conn, user_id)
    if found is None:
        raise nobody(user_id)
    if found.pk == me_pk:
        raise Refused("invalid", "yourself", yourself)
    return found
