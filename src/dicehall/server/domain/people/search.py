"""Finding people by a prefix of their user id or display name, through an index.

Each user has search terms in ``user_search``: their user id and their display name, each
from every word on ("Ann Lee" gives "ann lee" and "lee"), in a searchable form (folded by
:func:`~dicehall.server.domain.names.fold`, accents dropped, words joined by one space), so
that case, accents and look-alike letters do not matter. Terms compare byte by byte on both
databases, so a prefix ``p`` is one index range, ``p <= term < p + U+10FFFF``: the same SQL
on SQLite and PostgreSQL, and never a scan of the table.

A page lists users in the order of their first matching term, each user once (at that
term, so a user never shows on two pages either), cut by keyset: the cursor names the last
(term, user) examined. When no name starts with the query, the terms that share its first
letter (at most :data:`FUZZY_CANDIDATES`) are ranked by ``rapidfuzz`` instead.
"""

from __future__ import annotations

import heapq
import unicodedata
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, cast

from rapidfuzz import fuzz
from sqlalchemy import Connection, Select, Table, and_, delete, exists, insert, or_, select

from dicehall.server.core.models import Relation, User, UserSearchTerm
from dicehall.server.domain import cursors
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.names import fold
from dicehall.server.domain.people import relations

TERMS = cast(Table, UserSearchTerm.__table__)
USERS = cast(Table, User.__table__)
RELATIONS = cast(Table, Relation.__table__)

#: The longest term kept (the column's size); longer names are cut.
TERM_MAX = 80
#: The longest query accepted, in characters as typed.
QUERY_MAX = 40
#: A page's size by default, and the most one page may hold.
PAGE = 20
PAGE_MAX = 50
#: The most term rows one page examines (an ``online`` filter may skip many); a page that
#: stops there still has a ``next``.
SCAN_MAX = 2000
#: The most terms the fuzzy fallback ranks, and the least score it shows (0 to 100).
FUZZY_CANDIDATES = 3000
FUZZY_CUTOFF = 60.0
#: Greater than every character: ``p + TOP`` bounds the terms that start with ``p``.
TOP = "\U0010ffff"

#: Which of some users are online now (presence); the search filters through it.
OnlineOf = Callable[[Collection[int]], set[int]]


# -- terms -------------------------------------------------------------------------------------


def _unaccented(text: str) -> str:
    decomposed = unicodedata.normalize("NFD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _words(text: str) -> list[str]:
    # Letters, marks, digits and symbols make words (CJK and emoji too); spaces,
    # punctuation (the underscore and hyphen of user ids) and control characters part them.
    parted = "".join(" " if unicodedata.category(c)[0] in "ZPC" else c for c in text)
    return parted.split()


def searchable(text: str) -> str:
    """``text`` as terms and queries are compared: folded, without accents, its words
    joined by one space ("  Émile_Zola " -> "emlle zola": look-alike letters are merged)."""
    folded = _unaccented(fold(_unaccented(text).casefold()))
    return " ".join(_words(folded))


def terms_of(user_id: str, display_name: str) -> set[str]:
    """The search terms of a user: their user id and display name, each from every word on."""
    terms: set[str] = set()
    for name in (user_id, display_name):
        words = searchable(name).split(" ")
        for start in range(len(words)):
            term = " ".join(words[start:])[:TERM_MAX].rstrip()
            if term:
                terms.add(term)
    return terms


def put_terms(conn: Connection, user_pk: int, user_id: str, display_name: str) -> None:
    """Make ``user_pk``'s terms those of this user id and display name (at sign-up and on
    every change of the display name)."""
    conn.execute(delete(TERMS).where(TERMS.c.user_pk == user_pk))
    wanted = sorted(terms_of(user_id, display_name))
    if wanted:
        conn.execute(insert(TERMS), [{"term": t, "user_pk": user_pk} for t in wanted])


def ensure_terms(conn: Connection, batch: int = 1000) -> int:
    """Give terms to every user who has none (accounts from before search, or made around
    :func:`put_terms`); how many were given. One indexed probe per user when none is
    missing."""
    given = 0
    after = 0
    while True:
        rows = conn.execute(
            select(USERS.c.id, USERS.c.user_id, USERS.c.display_name)
            .where(
                USERS.c.id > after,
                # A closed account stays out of search.
                USERS.c.closed_at.is_(None),
                ~exists(select(TERMS.c.user_pk).where(TERMS.c.user_pk == USERS.c.id)),
            )
            .order_by(USERS.c.id)
            .limit(batch)
        ).all()
        # They have no terms: nothing to delete, and one insert for the whole batch.
        wanted = [
            {"term": term, "user_pk": row.id}
            for row in rows
            for term in sorted(terms_of(row.user_id, row.display_name))
        ]
        if wanted:
            conn.execute(insert(TERMS), wanted)
        given += len(rows)
        if len(rows) < batch:
            return given
        after = rows[-1].id


# -- the query and its cursor ------------------------------------------------------------------


def prefixes_of(query: str) -> list[str]:
    """The searchable prefixes a query stands for: its searchable form, and where that ends
    in "r", the same ending in "m" (``fold`` merges "rn" into "m", so "Ber" must also find
    "Bernard", stored as "bemard")."""
    form = searchable(query)[:TERM_MAX]
    if not form:
        return []
    found = [form]
    if form.endswith("r"):
        found.append(form[:-1] + "m")
    return sorted(found)


def check_query(query: str) -> str:
    """The query without surrounding spaces; 422 ``invalid_query`` unless 1 to
    :data:`QUERY_MAX` characters."""
    cleaned = query.strip()
    if not 1 <= len(cleaned) <= QUERY_MAX:
        raise Refused(
            "invalid",
            "invalid_query",
            f"type 1 to {QUERY_MAX} characters of a user id or display name",
        )
    return cleaned


@dataclass(frozen=True, order=True)
class Cursor:
    """Where a page ends: the last (term, user) it examined."""

    term: str
    user_pk: int

    def encode(self) -> str:
        """Opaque text for the ``cursor`` parameter."""
        return cursors.encode([self.term, self.user_pk])

    @classmethod
    def decode(cls, text: str) -> Cursor:
        """The cursor a previous page gave (422 ``invalid_cursor`` otherwise)."""
        try:
            term, user_pk = cursors.decode(text)
            valid = (
                isinstance(term, str)
                and len(term) <= TERM_MAX
                and isinstance(user_pk, int)
                and not isinstance(user_pk, bool)
                and user_pk > 0
            )
        except (ValueError, TypeError):
            valid = False
        if not valid:
            raise cursors.refused(
                "the cursor is not one this search gave (use `next` of the previous page)"
            )
        return cls(term, user_pk)


def range_query(prefix: str, after: Cursor | None, limit: int) -> Select[Any]:
    """The terms that start with ``prefix`` after ``after``, in (term, user) order: one range
    of the primary key's index."""
    low = prefix if after is None else max(prefix, after.term)
    query = select(TERMS.c.term, TERMS.c.user_pk).where(
        TERMS.c.term >= low, TERMS.c.term < prefix + TOP
    )
    if after is not None:
        query = query.where(
            or_(
                TERMS.c.term > after.term,
                and_(TERMS.c.term == after.term, TERMS.c.user_pk > after.user_pk),
            )
        )
    return query.order_by(TERMS.c.term, TERMS.c.user_pk).limit(limit)


def _rows(conn: Connection, prefixes: list[str], after: Cursor | None, limit: int) -> list[Cursor]:
    """The first ``limit`` matching (term, user) pairs after ``after``, over every prefix."""
    runs = [
        [Cursor(r.term, r.user_pk) for r in conn.execute(range_query(p, after, limit))]
        for p in prefixes
    ]
    merged: Iterator[Cursor] = heapq.merge(*runs)
    return list(merged)[:limit]


def _first_terms(
    conn: Connection, user_pks: Collection[int], prefixes: list[str]
) -> dict[int, str]:
    """Each user's first term that matches one of ``prefixes`` (where a page shows them)."""
    first: dict[int, str] = {}
    if not user_pks:
        return first
    for row in conn.execute(
        select(TERMS.c.user_pk, TERMS.c.term).where(
            TERMS.c.user_pk.in_(user_pks),
            TERMS.c.term >= prefixes[0],
            TERMS.c.term < prefixes[-1] + TOP,
        )
    ):
        matches = any(row.term.startswith(p) for p in prefixes)
        if matches and (row.user_pk not in first or row.term < first[row.user_pk]):
            first[row.user_pk] = row.term
    return first


# -- searching ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Found:
    """A user a search found."""

    pk: int
    user_id: str
    display_name: str
    #: What the searcher said about them (buddy, ignore), if anything.
    relation: str | None
    #: Shown as here now (None: the search did not ask presence).
    online: bool | None

    def as_json(self) -> dict[str, Any]:
        return {
            "user_id": self.user_id,
            "display_name": self.display_name,
            "relation": self.relation,
            "online": self.online,
        }


@dataclass(frozen=True)
class Results:
    """A page of a search: the users, the next page's cursor, and whether they were found by
    the fuzzy fallback (no name starts with the query)."""

    users: list[Found]
    next: str | None
    fuzzy: bool

    def as_json(self) -> dict[str, Any]:
        return {
            "users": [u.as_json() for u in self.users],
            "next": self.next,
            "fuzzy": self.fuzzy,
        }


def _keep(pks: Iterable[int], online: bool | None, online_of: OnlineOf | None) -> set[int]:
    wanted = set(pks)
    if online is None or online_of is None or not wanted:
        return wanted
    here = online_of(wanted)
    return wanted & here if online else wanted - here


def _prefix_page(
    conn: Connection,
    prefixes: list[str],
    online: bool | None,
    online_of: OnlineOf | None,
    after: Cursor | None,
    limit: int,
) -> tuple[list[int], Cursor | None]:
    """The users of one page (in order) and the cursor of the next page, if any."""
    taken: list[int] = []
    scanned = 0
    batch = limit + 1
    while True:
        rows = _rows(conn, prefixes, after, batch)
        first = _first_terms(conn, {r.user_pk for r in rows}, prefixes)
        shown = _keep(
            (r.user_pk for r in rows if first.get(r.user_pk) == r.term), online, online_of
        )
        for row in rows:
            if row.user_pk in shown and first[row.user_pk] == row.term:
                if len(taken) == limit:
                    return taken, after  # one more to show: the next page starts at it
                taken.append(row.user_pk)
            after = row
            scanned += 1
        if len(rows) < batch:
            return taken, None
        if scanned >= SCAN_MAX:
            return taken, after
        batch = min(max(batch * 2, 100), SCAN_MAX)


def _fuzzy(
    conn: Connection,
    form: str,
    online: bool | None,
    online_of: OnlineOf | None,
    limit: int,
) -> list[int]:
    """The users whose terms best resemble ``form``, among those that share its first
    letter, best first."""
    rows = conn.execute(range_query(form[0], None, FUZZY_CANDIDATES)).all()
    # The query is a prefix, so a term is compared with as much of it as was typed, and a
    # letter more or (past 3 letters) less: a letter left out or doubled. "jonh" finds
    # "john smith"; "zz" does not find "zoe" by its first letter alone.
    size = len(form)
    cuts = (size, size + 1, size - 1) if size > 3 else (size, size + 1)
    best: dict[int, float] = {}
    for row in rows:
        score = max(fuzz.ratio(form, row.term[:cut]) for cut in cuts)
        if score >= FUZZY_CUTOFF and score > best.get(row.user_pk, -1.0):
            best[row.user_pk] = score
    kept = _keep(best, online, online_of)
    ranked = sorted(kept, key=lambda pk: (-best[pk], pk))
    return ranked[:limit]


def _found(
    conn: Connection,
    pks: list[int],
    viewer_pk: int | None,
    online: bool | None,
    online_of: OnlineOf | None,
) -> list[Found]:
    if not pks:
        return []
    users = {
        row.id: row
        for row in conn.execute(
            select(USERS.c.id, USERS.c.user_id, USERS.c.display_name).where(USERS.c.id.in_(pks))
        )
    }
    said: dict[int, str] = {}
    if viewer_pk is not None:
        said = dict(
            conn.execute(
                select(RELATIONS.c.target_pk, RELATIONS.c.kind).where(
                    RELATIONS.c.owner_pk == viewer_pk, RELATIONS.c.target_pk.in_(pks)
                )
            ).all()
        )
    here: set[int] | None = None
    if online_of is not None:
        here = set(pks) if online else set() if online is False else online_of(pks)
    return [
        Found(
            pk,
            users[pk].user_id,
            users[pk].display_name,
            said.get(pk),
            None if here is None else pk in here,
        )
        for pk in pks
        if pk in users
    ]


def _unseen_across_an_ignore(conn: Connection, viewer_pk: int, online_of: OnlineOf) -> OnlineOf:
    """``online_of`` as ``viewer_pk`` may know it: as on Who is here, nobody across an
    ignore is ever shown online to the other."""
    hidden = relations.others_across_an_ignore(conn, viewer_pk)
    if not hidden:
        return online_of
    return lambda pks: online_of(pks) - hidden


def search(
    conn: Connection,
    viewer_pk: int | None,
    query: str,
    *,
    online: bool | None = None,
    cursor: str | None = None,
    limit: int = PAGE,
    online_of: OnlineOf | None = None,
) -> Results:
    """A page of the users whose user id or display name (a word of it on) starts with
    ``query``, in any case and with or without accents; when none does (and no cursor was
    sent), the closest names instead (``fuzzy``). ``online`` True or False keeps only those
    shown as here now, or only the others (``online_of`` tells who is; as on Who is here,
    nobody across an ignore with the viewer is shown online)."""
    cleaned = check_query(query)
    if not 1 <= limit <= PAGE_MAX:
        raise Refused("invalid", "invalid_limit", f"limit must be 1 to {PAGE_MAX}")
    after = Cursor.decode(cursor) if cursor else None
    if online_of is not None and viewer_pk is not None:
        online_of = _unseen_across_an_ignore(conn, viewer_pk, online_of)
    prefixes = prefixes_of(cleaned)
    if not prefixes:
        return Results([], None, False)
    pks, last = _prefix_page(conn, prefixes, online, online_of, after, limit)
    fuzzy = False
    if not pks and after is None and not _rows(conn, prefixes, None, 1):
        pks, fuzzy, last = _fuzzy(conn, prefixes[0], online, online_of, limit), True, None
    found = _found(conn, pks, viewer_pk, online, online_of)
    return Results(found, None if last is None else last.encode(), fuzzy)
