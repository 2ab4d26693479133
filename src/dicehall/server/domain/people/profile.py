"""What a profile shows beyond the account's own fields: the day the user was last here,
their current public games, my head-to-head record with them, and what I said about them.

Last seen is a day, never a time: ``users.last_seen_at`` is written at most once a day, and
a profile tells no more than the day. Current games are those anyone may watch (a private
game is listed to nobody here, as to a visitor). Head-to-head counts the finished games we
both sat in, by the site's ranking of each (:func:`~dicehall.server.domain.games.ending.
ranking`): I won when I placed above them, lost when below, drew when we placed equal (a
shared win, or equal scores).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date
from typing import Any

from sqlalchemy import Connection, and_, exists, select

from dicehall.server.core.clock import aware
from dicehall.server.domain.games.reading import summaries
from dicehall.server.domain.games.records import GAMES, SEATS, USERS
from dicehall.server.domain.people import relations

#: The most current games a profile lists (newest first).
CURRENT_MOST = 20

_MINE = SEATS.alias("mine")
_THEIRS = SEATS.alias("theirs")


def last_seen_day(conn: Connection, user_pk: int) -> date | None:
    """The day (UTC) ``user_pk`` was last here, if ever recorded."""
    seen = conn.execute(select(USERS.c.last_seen_at).where(USERS.c.id == user_pk)).scalar()
    return None if seen is None else aware(seen).date()


def current_games(conn: Connection, user_pk: int, viewer_pk: int | None) -> list[dict[str, Any]]:
    """``user_pk``'s games in progress that anyone may watch, newest first (summaries as
    ``viewer_pk`` sees them)."""
    # From the games in progress, each checked for a seat of the player's in one probe of
    # (user, game): never through the player's seats, which are their whole history.
    seated = exists(
        select(_MINE.c.id).where(_MINE.c.user_pk == user_pk, _MINE.c.game_id == GAMES.c.id)
    )
    rows = conn.execute(
        select(GAMES)
        .where(GAMES.c.status == "active", GAMES.c.private.is_(False), seated)
        .order_by(GAMES.c.id.desc())
        .limit(CURRENT_MOST)
    ).all()
    return summaries(conn, rows, -1 if viewer_pk is None else viewer_pk)


@dataclass(frozen=True)
class HeadToHead:
    """My record against someone over the finished games we both sat in."""

    win: int = 0
    loss: int = 0
    draw: int = 0

    @property
    def games(self) -> int:
        return self.win + self.loss + self.draw

    def as_json(self) -> dict[str, int]:
        return {"games": self.games, "win": self.win, "loss": self.loss, "draw": self.draw}


def _place(
    seat: int, status: str, left_version: int | None, winners: set[int], scores: list[Any]
) -> tuple[Any, ...]:
    """A seat's place in the site's ranking, without its tie-break by seat number: those
    that finished the game first (winners, then by score), then those that left it (the
    later leaver first)."""
    if status != "playing":
        return (1, -(left_version or 0))
    score = scores[seat] if seat < len(scores) else 0
    return (0, seat not in winners, -score)


def head_to_head(conn: Connection, me_pk: int, other_pk: int) -> HeadToHead:
    """My wins, losses and draws against ``other_pk``."""
    rows = conn.execute(
        select(
            GAMES.c.result,
            _MINE.c.seat.label("my_seat"),
            _MINE.c.status.label("my_status"),
            _MINE.c.left_version.label("my_left"),
            _THEIRS.c.seat.label("their_seat"),
            _THEIRS.c.status.label("their_status"),
            _THEIRS.c.left_version.label("their_left"),
        )
        .join(_MINE, and_(_MINE.c.game_id == GAMES.c.id, _MINE.c.user_pk == me_pk))
        .join(_THEIRS, and_(_THEIRS.c.game_id == GAMES.c.id, _THEIRS.c.user_pk == other_pk))
        .where(GAMES.c.status == "finished", GAMES.c.result.is_not(None))
    )
    counts = {"win": 0, "loss": 0, "draw": 0}
    for row in rows:
        result = json.loads(row.result)
        winners = set(result.get("winners", []))
        scores = result.get("scores") or []
        mine = _place(row.my_seat, row.my_status, row.my_left, winners, scores)
        theirs = _place(row.their_seat, row.their_status, row.their_left, winners, scores)
        counts["draw" if mine == theirs else "win" if mine < theirs else "loss"] += 1
    return HeadToHead(**counts)


def profile_extras(conn: Connection, user_pk: int, viewer_pk: int | None) -> dict[str, Any]:
    """What the profile of ``user_pk`` adds for ``viewer_pk`` (None: a visitor): the day
    last seen, current public games, and, for a signed-in viewer who is someone else, the
    head-to-head record and their own relation and note."""
    seen = last_seen_day(conn, user_pk)
    extras: dict[str, Any] = {
        "last_seen": None if seen is None else seen.isoformat(),
        "current_games": current_games(conn, user_pk, viewer_pk),
        "head_to_head": None,
        "relation": None,
    }
    if viewer_pk is not None and viewer_pk != user_pk:
        extras["head_to_head"] = head_to_head(conn, viewer_pk, user_pk).as_json()
        said = relations.relation_of(conn, viewer_pk, user_pk)
        if said is not None:
            extras["relation"] = {"kind": said[0], "note": said[1]}
    return extras


def seen_words(day: date | None, today: date) -> str:
    """The day last seen as a profile says it: "today", "yesterday", or the date."""
    if day is None:
        return "not yet"
    if day >= today:
        return "today"
    if (today - day).days == 1:
        return "yesterday"
    return f"{day.day} {day.strftime('%B %Y')}"
