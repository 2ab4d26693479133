"""Notifications: what a user should know about their games (a game became their turn,
their clock runs low, a seat ran out of time), kept in a list with a read mark and pushed
through the WebSocket once the change that made them commits.

The bell holds one line per game: a notice about a game that already has an unread line
rewrites that line (its text, its moment, one more event) rather than adding another, and a
player who has left a game (resigned, timed out) is told nothing more about it. Each notice
is also queued to the user's own channels (e-mail, push, webhook; see
:mod:`dicehall.server.domain.notices.outbox`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from sqlalchemy import Connection, Table, delete, func, insert, or_, select, update

from dicehall.server.core.clock import aware, now
from dicehall.server.core.models import Notification, SeatRow
from dicehall.server.core.txn import publish_after_commit
from dicehall.server.domain.notices.kinds import KIND_LABELS, NoticeKind
from dicehall.server.domain.notices.outbox import Queued, queue

NOTIFICATIONS = cast(Table, Notification.__table__)
SEATS = cast(Table, SeatRow.__table__)
#: Seats whose players left their game: nothing more is told them about it.
LEFT = ("resigned", "timed_out")

#: The channels' kind of each bell kind (bell kinds not named reach the bell only).
NOTICE_KINDS: dict[str, NoticeKind] = {
    "your_turn": "your_turn",
    "time_low": "time_low",
    "timed_out": "game_over",
    "game_over": "game_over",
    "invitation": "invitation",
    "invite_declined": "invitation",
    "invite_accepted": "invitation",
    "automatch": "invitation",
    "tournament": "tournament_round",
    "ladder": "ladder_challenge",
    "message": "message",
}
#: The most a list answer holds.
PAGE = 50


def add(
    conn: Connection,
    user_pk: int,
    kind: str,
    game_id: int | None,
    text: str,
    *,
    playing: bool = False,
) -> None:
    """Tell ``user_pk`` something (stored now, pushed after the commit); ``playing``: the
    caller knows they still play the game (it is their turn), so it is not asked."""
    add_many(conn, [(user_pk, game_id, text)], kind, playing=playing)


def add_many(
    conn: Connection,
    told: Sequence[tuple[int, int | None, str]],
    kind: str,
    *,
    playing: bool = False,
) -> None:
    """Tell each ``(user_pk, game_id, text)`` of ``told`` something of ``kind``, in one
    statement (stored now, each pushed after the commit)."""
    if not playing:
        told = _still_playing(conn, told)
    if not told:
        return
    moment = now()
    # A game's unread line is replaced by a new one (a new id: it moves to the top, and
    # pages by id stay in order) that counts one more event.
    told, extra = _one_per_game(told)
    lines = _take_unread_lines(conn, {(u, g) for u, g, _ in told if g is not None})
    replaced: list[int | None] = []
    counts: list[int] = []
    for (user_pk, game_id, _), more in zip(told, extra, strict=True):
        old = lines.get((user_pk, game_id)) if game_id is not None else None
        replaced.append(None if old is None else old[0])
        counts.append(1 + more + (0 if old is None else old[1]))
    made = list(
        conn.execute(
            insert(NOTIFICATIONS).returning(NOTIFICATIONS.c.id, sort_by_parameter_order=True),
            [
                {
                    "user_pk": user_pk,
                    "kind": kind,
                    "game_id": game_id,
                    "text": text[:200],
                    "created_at": moment,
                    "read": False,
                    "events": events,
                }
                for (user_pk, game_id, text), events in zip(told, counts, strict=True)
            ],
        ).scalars()
    )
    notices: list[Queued] = []
    notice_kind = NOTICE_KINDS.get(kind)
    for (user_pk, game_id, text), line_id, events, was in zip(
        told, made, counts, replaced, strict=True
    ):
        message = {
            "type": "notification",
            "id": int(line_id),
            "replaces": was,
            "kind": kind,
            "game": game_id,
            "text": text[:200],
            "events": events,
            "created_at": moment.isoformat(),
        }
        publish_after_commit(conn, user_pk, message)
        if notice_kind is not None:
            where = f" in game {game_id}" if game_id is not None else ""
            notices.append(
                Queued(
                    user_pk=user_pk,
                    kind=notice_kind,
                    game_id=game_id,
                    title=f"{KIND_LABELS[notice_kind]}{where}",
                    text=text,
                    path=f"/games/{game_id}" if game_id is not None else "/notifications",
                    event=f"n{line_id}.{events}",
                )
            )
    queue(conn, notices)


def forget_game(conn: Connection, user_pk: int, game_id: int) -> None:
    """Drop ``user_pk``'s unread line about game ``game_id`` (they left it); their pages
    are told the new unread count after the commit."""
    gone = conn.execute(
        delete(NOTIFICATIONS).where(
            NOTIFICATIONS.c.user_pk == user_pk,
            NOTIFICATIONS.c.game_id == game_id,
            NOTIFICATIONS.c.read.is_(False),
        )
    ).rowcount
    if gone:
        left = unread(conn, user_pk)
        publish_after_commit(conn, user_pk, {"type": "notifications_read", "unread": left})


def _one_per_game(
    told: Sequence[tuple[int, int | None, str]],
) -> tuple[list[tuple[int, int | None, str]], list[int]]:
    """``told`` with one notice per user and game (the last), and how many more each sums."""
    kept: dict[object, tuple[int, int | None, str]] = {}
    more: dict[object, int] = {}
    for index, (user_pk, game_id, text) in enumerate(told):
        key: object = (user_pk, game_id) if game_id is not None else index
        more[key] = more.get(key, -1) + 1
        kept.pop(key, None)
        kept[key] = (user_pk, game_id, text)
    return list(kept.values()), [more[key] for key in kept]


def _still_playing(
    conn: Connection, told: Sequence[tuple[int, int | None, str]]
) -> list[tuple[int, int | None, str]]:
    """``told`` without the notices about games their user has left."""
    games = {g for _, g, _ in told if g is not None}
    if not games:
        return list(told)
    left = {
        (row.user_pk, row.game_id)
        for row in conn.execute(
            select(SEATS.c.user_pk, SEATS.c.game_id).where(
                SEATS.c.game_id.in_(games),
                SEATS.c.user_pk.in_({u for u, _, _ in told}),
                SEATS.c.status.in_(LEFT),
            )
        ).all()
    }
    return [t for t in told if t[1] is None or (t[0], t[1]) not in left]


def _take_unread_lines(
    conn: Connection, pairs: set[tuple[int, int]]
) -> dict[tuple[int, int], tuple[int, int]]:
    """Delete the unread bell line of each ``(user, game)`` that has one; each one's id and
    events, by pair (one statement)."""
    if not pairs:
        return {}
    which = (
        (NOTIFICATIONS.c.user_pk == user_pk) & (NOTIFICATIONS.c.game_id == game_id)
        for user_pk, game_id in pairs
    )
    rows = conn.execute(
        delete(NOTIFICATIONS)
        .where(or_(*which), NOTIFICATIONS.c.read.is_(False))
        .returning(
            NOTIFICATIONS.c.id,
            NOTIFICATIONS.c.user_pk,
            NOTIFICATIONS.c.game_id,
            NOTIFICATIONS.c.events,
        )
    ).all()
    taken: dict[tuple[int, int], tuple[int, int]] = {}
    for row in sorted(rows, key=lambda r: r.id):
        key = (row.user_pk, row.game_id)
        # Lines written before lines were one per game may be several: their events add up.
        events = int(row.events) + (taken[key][1] if key in taken else 0)
        taken[key] = (int(row.id), events)
    return taken


def listing(
    conn: Connection, user_pk: int, before: int | None = None, limit: int = PAGE
) -> dict[str, Any]:
    """A page of ``user_pk``'s notifications, newest first, and how many are unread."""
    query = select(NOTIFICATIONS).where(NOTIFICATIONS.c.user_pk == user_pk)
    if before is not None:
        query = query.where(NOTIFICATIONS.c.id < before)
    # One more than a page, to tell whether an older page exists.
    found = conn.execute(query.order_by(NOTIFICATIONS.c.id.desc()).limit(limit + 1)).all()
    rows = found[:limit]
    return {
        "notifications": [
            {
                "id": r.id,
                "kind": r.kind,
                "game": r.game_id,
                "text": r.text,
                "created_at": aware(r.created_at).isoformat(),
                "read": bool(r.read),
                "events": int(r.events),
            }
            for r in rows
        ],
        "unread": unread(conn, user_pk),
        "next": rows[-1].id if len(found) > limit else None,
    }


def unread(conn: Connection, user_pk: int) -> int:
    """How many of ``user_pk``'s notifications are unread."""
    count = conn.execute(
        select(func.count())
        .select_from(NOTIFICATIONS)
        .where(NOTIFICATIONS.c.user_pk == user_pk, NOTIFICATIONS.c.read.is_(False))
    ).scalar_one()
    return int(count)


def mark_read(conn: Connection, user_pk: int, up_to: int | None) -> int:
    """Mark ``user_pk``'s notifications read (all, or those up to id ``up_to``); return how
    many were unread. Their pages are told how many are left unread (after the commit)."""
    query = update(NOTIFICATIONS).where(
        NOTIFICATIONS.c.user_pk == user_pk, NOTIFICATIONS.c.read.is_(False)
    )
    if up_to is not None:
        query = query.where(NOTIFICATIONS.c.id <= up_to)
    marked = int(conn.execute(query.values(read=True)).rowcount)
    if marked:
        # Every page of the user's updates its count (the bell in the header).
        left = unread(conn, user_pk)
        publish_after_commit(conn, user_pk, {"type": "notifications_read", "unread": left})
    return marked
