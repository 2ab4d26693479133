"""Buddies and ignores, and the one check every meeting point calls.

A relation is one-way: what I say about you (buddy or ignore, and a private note) is mine.
:func:`may_interact_many` is the only place that decides whether people may meet; every
meeting point (messages, chat, naming an opponent, joining an open seat, watch and game
invites, later ladders, auto-match and tournaments) goes through it or its wrappers. An
ignore works in both directions and is never told: whatever the reason someone is out of
reach (an ignore either way, a closed account, a setting that lets nobody or only buddies
in), the refusal is
:func:`not_accepted`, the same status and the same words for every reason, with the other's
user id as they spell it (and never at the head of the sentence, which pages capitalise).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, cast

from sqlalchemy import Connection, Table, and_, delete, func, insert, or_, select, update

from dicehall.server.core.clock import aware, now
from dicehall.server.core.models import Relation, User
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.people import settings
from dicehall.server.domain.people.lookup import other_person

RELATIONS = cast(Table, Relation.__table__)
USERS = cast(Table, User.__table__)

Kind = Literal["buddy", "ignore"]
KINDS: tuple[Kind, ...] = ("buddy", "ignore")

Meeting = Literal[
    "message",  # starting a message thread
    "reply",  # writing in a thread that exists
    "chat",  # a chat line shown to someone
    "challenge",  # naming someone as an opponent, a ladder challenge, a game invite
    "join",  # sitting down at a game with someone (open seats, seats named together)
    "watch",  # being invited to watch someone's private game
    "match",  # being paired by auto-match or a tournament
]

#: Meetings the other side's settings may refuse beyond an ignore (which refuses them all).
_AUDIENCE_OF: dict[Meeting, str] = {"message": "messages_from", "challenge": "challenges_from"}
#: Meetings that address one person, whom a closed account can no longer be. (A table's
#: meetings are not: a closed account's seat neither hides a game nor stops its chat.)
_ADDRESSED: frozenset[Meeting] = frozenset({"message", "reply", "challenge", "watch"})
#: The most relations of one kind one user may keep.
MOST = 1000
NOTE_MOST = 200


def _around(conn: Connection, user_pk: int, others: set[int] | None) -> tuple[set[int], set[int]]:
    """Of ``others`` (None: everyone), those across an ignore with ``user_pk`` (either
    way), and those who name ``user_pk`` a buddy."""
    mine = RELATIONS.c.owner_pk == user_pk
    theirs = RELATIONS.c.target_pk == user_pk
    if others is not None:
        mine = and_(mine, RELATIONS.c.target_pk.in_(others))
        theirs = and_(theirs, RELATIONS.c.owner_pk.in_(others))
    ignored: set[int] = set()
    buddy_of: set[int] = set()
    for row in conn.execute(select(RELATIONS).where(or_(mine, theirs))):
        other = row.target_pk if row.owner_pk == user_pk else row.owner_pk
        if row.kind == "ignore":
            ignored.add(other)
        elif row.owner_pk != user_pk:
            buddy_of.add(other)
    return ignored, buddy_of


def may_interact_many(
    conn: Connection, actor_pk: int, others: Iterable[int], meeting: Meeting
) -> set[int]:
    """Those of ``others`` that ``actor_pk`` may meet this way: nobody across an ignore (in
    either direction), for the meetings that address one person no closed account, and for
    messages and challenges only those whose setting lets ``actor_pk`` in (everyone, or
    buddies who named ``actor_pk`` a buddy)."""
    asked = set(others)
    wanted = asked - {actor_pk}
    allowed = asked & {actor_pk}
    if not wanted:
        return allowed
    ignored, buddy_of = _around(conn, actor_pk, wanted)
    candidates = wanted - ignored
    if candidates and meeting in _ADDRESSED:
        candidates -= set(
            conn.execute(
                select(USERS.c.id).where(USERS.c.id.in_(candidates), USERS.c.closed_at.is_not(None))
            ).scalars()
        )
    audience = _AUDIENCE_OF.get(meeting)
    if audience is not None and candidates:
        for pk, chosen in settings.of_many(conn, candidates).items():
            setting = getattr(chosen, audience)
            if setting == "nobody" or (setting == "buddies" and pk not in buddy_of):
                candidates.discard(pk)
    return allowed | candidates


def may_interact(conn: Connection, actor_pk: int, other_pk: int, meeting: Meeting) -> bool:
    """Whether ``actor_pk`` may meet ``other_pk`` this way (see :func:`may_interact_many`)."""
    return other_pk in may_interact_many(conn, actor_pk, [other_pk], meeting)


#: What a refused meeting would have done, by meeting ("{}": the other's user id).
_WOULD: dict[Meeting, str] = {
    "message": "send messages to {}",
    "reply": "send messages to {}",
    "chat": "chat with {}",
    "challenge": "play with {}",
    "join": "play with {}",
    "watch": "invite {} to watch",
    "match": "play with {}",
}
#: The refusal naming nobody: people who may not sit together (none of them is the asker),
#: and a chat line that would not reach every player of its game.
TOGETHER = "some of these players cannot play together"
CHAT_TABLE = "you cannot chat with the players of this game"


def not_accepted(name: str | None, meeting: Meeting) -> Refused:
    """The one answer to a meeting refused, for any reason (an ignore either way, a
    setting): 403 ``not_accepted``, "you cannot send messages to ann", the user id as
    ``name`` spells it; ``name`` None names nobody (a game's table)."""
    if name is None:
        return Refused("forbidden", "not_accepted", CHAT_TABLE if meeting == "chat" else TOGETHER)
    return Refused("forbidden", "not_accepted", "you cannot " + _WOULD[meeting].format(name))


def check_may_interact(
    conn: Connection, actor_pk: int, other_pk: int, meeting: Meeting, name: str
) -> None:
    """Refused (:func:`not_accepted`) unless ``actor_pk`` may meet ``other_pk`` this way."""
    if not may_interact(conn, actor_pk, other_pk, meeting):
        raise not_accepted(name, meeting)


def check_all_may_meet(
    conn: Connection, people: dict[int, str], meeting: Meeting, actor_pk: int | None = None
) -> None:
    """Refused unless every two of ``people`` (pk to name) may meet: the seats of one game.

    ``actor_pk`` (who asks) is told about the first other person they may not meet; between
    two others, the refusal names neither."""
    pks = sorted(people)
    for index, first in enumerate(pks):
        allowed = may_interact_many(conn, first, pks[index + 1 :], meeting)
        for second in pks[index + 1 :]:
            if second in allowed:
                continue
            if actor_pk in (first, second):
                other = second if actor_pk == first else first
                raise not_accepted(people[other], meeting)
            raise not_accepted(None, meeting)


def apart_pairs(conn: Connection, user_pks: Iterable[int]) -> set[frozenset[int]]:
    """The pairs of ``user_pks`` across an ignore (either way), in one query: what
    :func:`may_interact_many` refuses for the meeting ``"match"`` (no setting narrows a
    match), for the matcher and the tournaments, which seat hundreds of people at once."""
    pks = set(user_pks)
    if len(pks) < 2:
        return set()
    rows = conn.execute(
        select(RELATIONS.c.owner_pk, RELATIONS.c.target_pk).where(
            RELATIONS.c.kind == "ignore",
            RELATIONS.c.owner_pk.in_(pks),
            RELATIONS.c.target_pk.in_(pks),
        )
    )
    return {frozenset((row.owner_pk, row.target_pk)) for row in rows}


def others_across_an_ignore(conn: Connection, user_pk: int) -> set[int]:
    """Everyone ``user_pk`` ignores or is ignored by: those :func:`may_interact_many` refuses
    for every meeting, to filter lists shown to ``user_pk`` (chat lines, open games)."""
    return _around(conn, user_pk, None)[0]


# -- keeping relations -------------------------------------------------------------------------


@dataclass(frozen=True)
class Related:
    """One of my relations as I see it."""

    user_id: str
    display_name: str
    kind: Kind
    note: str
    #: The other names me a buddy too (shown for buddies only: an ignore is never told).
    mutual: bool
    since: datetime

    def as_json(self) -> dict[str, Any]:
        return {
            "user_id": self.user_id,
            "display_name": self.display_name,
            "kind": self.kind,
            "note": self.note,
            "mutual": self.mutual,
            "since": self.since.isoformat(),
        }


def listing(
    conn: Connection, owner_pk: int, kind: Kind | None = None, target_pk: int | None = None
) -> list[Related]:
    """My relations (of one kind, or all; or only that with ``target_pk``), by user id."""
    back = RELATIONS.alias("back")
    query = (
        select(
            USERS.c.user_id,
            USERS.c.display_name,
            RELATIONS.c.kind,
            RELATIONS.c.note,
            RELATIONS.c.created_at,
            back.c.kind.label("back_kind"),
        )
        .join(USERS, USERS.c.id == RELATIONS.c.target_pk)
        .outerjoin(
            back,
            and_(back.c.owner_pk == RELATIONS.c.target_pk, back.c.target_pk == owner_pk),
        )
        .where(RELATIONS.c.owner_pk == owner_pk)
        .order_by(USERS.c.key)
    )
    if kind is not None:
        query = query.where(RELATIONS.c.kind == kind)
    if target_pk is not None:
        query = query.where(RELATIONS.c.target_pk == target_pk)
    return [
        Related(
            row.user_id,
            row.display_name,
            row.kind,
            row.note,
            row.kind == "buddy" and row.back_kind == "buddy",
            aware(row.created_at),
        )
        for row in conn.execute(query)
    ]


def relation_of(conn: Connection, owner_pk: int, target_pk: int) -> tuple[Kind, str] | None:
    """What ``owner_pk`` has said about ``target_pk`` (kind and note), if anything."""
    row = conn.execute(
        select(RELATIONS.c.kind, RELATIONS.c.note).where(
            RELATIONS.c.owner_pk == owner_pk, RELATIONS.c.target_pk == target_pk
        )
    ).first()
    return None if row is None else (row.kind, row.note)


def target_of(conn: Connection, owner_pk: int, user_id: str) -> tuple[int, str]:
    """The pk and user id of ``user_id`` (404 for nobody, 422 for myself)."""
    found = other_person(conn, owner_pk, user_id, "you cannot do that to yourself")
    return found.pk, found.user_id


def put(conn: Connection, owner_pk: int, target_pk: int, kind: Kind, note: str | None) -> None:
    """Say ``kind`` about ``target_pk`` (replacing what was said); ``note`` None keeps the
    note there was."""
    if kind not in KINDS:
        raise Refused("invalid", "invalid_relation", "kind must be 'buddy' or 'ignore'")
    if note is not None:
        note = note.strip()
        if len(note) > NOTE_MOST:
            raise Refused("invalid", "invalid_note", f"a note is at most {NOTE_MOST} characters")
    had = relation_of(conn, owner_pk, target_pk)
    if had is None:
        count = conn.execute(
            select(func.count())
            .select_from(RELATIONS)
            .where(RELATIONS.c.owner_pk == owner_pk, RELATIONS.c.kind == kind)
        ).scalar_one()
        if count >= MOST:
            raise Refused("too_many", "too_many_relations", f"you already keep {MOST} of them")
        conn.execute(
            insert(RELATIONS).values(
                owner_pk=owner_pk,
                target_pk=target_pk,
                kind=kind,
                note=note or "",
                created_at=now(),
            )
        )
        return
    values: dict[str, Any] = {"kind": kind}
    if note is not None:
        values["note"] = note
    if had[0] != kind:
        values["created_at"] = now()
    conn.execute(
        update(RELATIONS)
        .where(RELATIONS.c.owner_pk == owner_pk, RELATIONS.c.target_pk == target_pk)
        .values(**values)
    )


def remove(conn: Connection, owner_pk: int, target_pk: int) -> bool:
    """Forget what ``owner_pk`` said about ``target_pk``; whether there was anything."""
    gone = conn.execute(
        delete(RELATIONS).where(
            RELATIONS.c.owner_pk == owner_pk, RELATIONS.c.target_pk == target_pk
        )
    ).rowcount
    return bool(gone)


def befriend(conn: Connection, first_pk: int, second_pk: int) -> None:
    """Make each a buddy of the other, unless either has said something else already."""
    for owner, target in ((first_pk, second_pk), (second_pk, first_pk)):
        if relation_of(conn, owner, target) is None:
            put(conn, owner, target, "buddy", None)
