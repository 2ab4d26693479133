"""The users a new-game form names as opponents, checked before anything is made, so that
the form can report each of them with its other problems in one answer."""

from __future__ import annotations

from collections.abc import Mapping

from sqlalchemy import Connection

from dicehall.server.domain.errors import Refused
from dicehall.server.domain.people import lookup, relations


def opponent_problems(conn: Connection, me_pk: int, named: Mapping[str, str]) -> dict[str, str]:
    """What stops each user named as an opponent (``named``: a form field -> the user id
    typed there) from being invited, as a sentence: nobody has that id, or they take no
    challenge from ``me_pk``. Fields without a problem (``me_pk``'s own id too) are left
    out. Read only; creating the game checks all of it again in its own transaction."""
    problems: dict[str, str] = {}
    for where, typed in named.items():
        found = lookup.user_named(conn, typed)
        if found is None:
            problems[where] = lookup.nobody(typed).message
        elif found.pk != me_pk:
            try:
                relations.check_may_interact(conn, me_pk, found.pk, "challenge", found.user_id)
            except Refused as exc:
                problems[where] = exc.message
    return problems
