"""A user's rating history of one kind: what each rated game did to it, newest first, a page
at a time (keyset on the change's id, which grows in the order games were rated)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, func, select

from dicehall.server.core.clock import aware
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.ratings import kinds, model
from dicehall.server.domain.ratings.leaderboard import check_kind, check_limit
from dicehall.server.domain.ratings.model import Skill
from dicehall.server.domain.ratings.store import CHANGES

PAGE = 50
_TABLE = CHANGES.alias("table_of_game")


def _cursor(text: str) -> int:
    if not text.isdigit() or not 0 < int(text) < 2**31:
        raise Refused(
            "invalid",
            "invalid_cursor",
            "the cursor is not one this history gave (use `next` of the previous page)",
        )
    return int(text)


def history(
    conn: Connection, user_pk: int, kind: str, cursor: str | None = None, limit: int = PAGE
) -> dict[str, Any]:
    """``{"kind", "changes": [...], "next"}``: each rated game's change to the rating, newest
    first; follow ``next`` until it is null."""
    check_kind(kind)
    check_limit(limit)
    players = select(func.count()).where(_TABLE.c.game_id == CHANGES.c.game_id).scalar_subquery()
    query = select(CHANGES, players.label("players")).where(
        CHANGES.c.user_pk == user_pk, CHANGES.c.kind == kind
    )
    if cursor:
        query = query.where(CHANGES.c.id < _cursor(cursor))
    rows = conn.execute(query.order_by(CHANGES.c.id.desc()).limit(limit + 1)).all()
    more = len(rows) > limit
    rows = rows[:limit]
    changes = []
    for row in rows:
        before = model.shown(Skill(row.mu_before, row.sigma_before))
        after = model.shown(Skill(row.mu_after, row.sigma_after))
        changes.append(
            {
                "game": row.game_id,
                "at": aware(row.at).isoformat(),
                "place": row.place,
                "players": int(row.players),
                "rating_before": before,
                "rating_after": after,
                "change": after - before,
            }
        )
    return {
        "kind": kind,
        "title": kinds.title(kind),
        "changes": changes,
        "next": str(rows[-1].id) if more and rows else None,
    }
