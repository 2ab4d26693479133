"""Leaderboards: per rating kind, the active players, settled ones first, best first.

A player is listed with a rated game in the last :data:`ACTIVE_DAYS` days. Those with
:data:`LISTED_GAMES` rated games or more come first; those with fewer follow them, each
``provisional`` (a rating of a few games says little, so a lucky start never tops the
board). Within each part players are ranked by the conservative rating mu - 2 sigma (the
rating they are very likely above), computed in SQL from the *stored* mu and sigma: the
widening that inactivity adds is left out of the ranking, as it is at most 30 days' worth for
anyone listed (sigma grows by a few hundredths), and leaving it out lets a page be cut by
keyset on (part, mu - 2 sigma, user) with no time in the key. The ratings the list shows are
widened as everywhere else (:func:`~dicehall.server.domain.ratings.views.rating_of`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, Connection, and_, case, func, not_, or_, select

from dicehall.server.core.clock import aware, now
from dicehall.server.domain import cursors
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.games.records import USERS
from dicehall.server.domain.ratings import kinds, model
from dicehall.server.domain.ratings.model import Skill
from dicehall.server.domain.ratings.store import RATINGS
from dicehall.server.domain.ratings.views import rating_of

#: Ranked among the settled players from this many rated games on (fewer: after them).
LISTED_GAMES = model.PROVISIONAL_GAMES
#: Listed while their last rated game is at most this many days old.
ACTIVE_DAYS = 30
PAGE = 50
PAGE_MAX = 100


def conservative() -> ColumnElement[float]:
    """What a leaderboard ranks by: the conservative rating mu - 2 sigma, from the stored
    values."""
    return RATINGS.c.mu - 2 * RATINGS.c.sigma


def part() -> ColumnElement[int]:
    """Which part of a leaderboard a player is in: 0 settled, 1 provisional (fewer than
    :data:`LISTED_GAMES` rated games)."""
    return case((RATINGS.c.games >= LISTED_GAMES, 0), else_=1)


def check_kind(kind: str) -> str:
    """``kind`` if it is a rating kind; 404 ``no_such_rating`` otherwise."""
    if kind not in kinds.names():
        raise Refused(
            "not_found", "no_such_rating", f"there is no rating {kind[:40]!r} (see /api/v1/ratings)"
        )
    return kind


def check_limit(limit: int) -> int:
    """``limit`` if it is 1 to :data:`PAGE_MAX`; 422 ``invalid_limit`` otherwise."""
    if not 1 <= limit <= PAGE_MAX:
        raise Refused("invalid", "invalid_limit", f"limit must be 1 to {PAGE_MAX}")
    return limit


@dataclass(frozen=True)
class Cursor:
    """Where a page ends: the last player's conservative rating and user, and the part of
    the board (0 settled, 1 provisional) they are in."""

    conservative: float
    user_pk: int
    part: int = 0

    def encode(self) -> str:
        """Opaque text for the ``cursor`` parameter (the float exactly, as JSON has it)."""
        return cursors.encode([self.conservative, self.user_pk, self.part])

    @classmethod
    def decode(cls, text: str) -> Cursor:
        """The cursor a previous page gave (422 ``invalid_cursor`` otherwise); one from
        before the provisional part (two values) is in the settled part."""
        try:
            found = cursors.decode(text)
            value, user_pk, part_ = (*found, 0) if len(found) == 2 else found
            valid = (
                type(part_) is int
                and part_ in (0, 1)
                and isinstance(value, float | int)
                and not isinstance(value, bool)
                and math.isfinite(value)
                and isinstance(user_pk, int)
                and not isinstance(user_pk, bool)
                and 0 < user_pk < 2**31
            )
        except (ValueError, TypeError):
            valid = False
        if not valid:
            raise cursors.refused(
                "the cursor is not one this leaderboard gave (use `next` of the previous page)"
            )
        return cls(float(value), user_pk, part_)


def _listed(kind: str, at: datetime) -> ColumnElement[bool]:
    return and_(
        RATINGS.c.kind == kind,
        RATINGS.c.games >= 1,
        RATINGS.c.last_game_at >= at - timedelta(days=ACTIVE_DAYS),
    )


def _after(cursor: Cursor) -> ColumnElement[bool]:
    value = conservative()
    return or_(
        part() > cursor.part,
        and_(
            part() == cursor.part,
            or_(
                value < cursor.conservative,
                and_(value == cursor.conservative, RATINGS.c.user_pk > cursor.user_pk),
            ),
        ),
    )


def _ahead(cursor: Cursor) -> ColumnElement[bool]:
    return not_(_after(cursor))


def leaderboard(
    conn: Connection, kind: str, cursor: str | None = None, limit: int = PAGE
) -> dict[str, Any]:
    """One page of the leaderboard of ``kind``: ``{"kind", "title", "players": [...],
    "next"}``; follow ``next`` (a cursor) until it is null."""
    check_kind(kind)
    check_limit(limit)
    after = Cursor.decode(cursor) if cursor else None
    at = now()
    query = (
        select(
            RATINGS.c.user_pk,
            RATINGS.c.mu,
            RATINGS.c.sigma,
            RATINGS.c.games,
            RATINGS.c.last_game_at,
            conservative().label("conservative"),
            part().label("part"),
            USERS.c.user_id,
            USERS.c.display_name,
        )
        .join(USERS, USERS.c.id == RATINGS.c.user_pk)
        .where(_listed(kind, at))
    )
    first_rank = 1
    if after is not None:
        query = query.where(_after(after))
        first_rank += conn.execute(
            select(func.count()).select_from(RATINGS).where(_listed(kind, at), _ahead(after))
        ).scalar_one()
    rows = conn.execute(
        query.order_by(part(), conservative().desc(), RATINGS.c.user_pk).limit(limit + 1)
    ).all()
    more = len(rows) > limit
    rows = rows[:limit]
    players = [
        {
            "rank": first_rank + i,
            "user": row.user_id,
            "display_name": row.display_name,
            **rating_of(row, at, kind),
            "floor": model.shown(Skill(row.conservative, 0.0)),
            "last_game_at": aware(row.last_game_at).isoformat(),
        }
        for i, row in enumerate(rows)
    ]
    last = rows[-1] if rows else None
    return {
        "kind": kind,
        "title": kinds.title(kind),
        "players": players,
        "next": Cursor(float(last.conservative), last.user_pk, int(last.part)).encode()
        if more and last
        else None,
    }


def kinds_listing() -> list[dict[str, Any]]:
    """Every rating kind with its title, in the site's order."""
    return [
        {"kind": spec.name, "title": spec.title, "games": spec.games_words}
        for spec in kinds.specs()
    ]
