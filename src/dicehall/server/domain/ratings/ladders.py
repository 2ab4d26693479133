"""Ladders, one per two-handed rating kind: joining at the bottom, leaving, the positions with
each player's rating, and the record of every move.

The rules (see docs/site-ratings.md, "Ladders"): a player may challenge anyone up to
:data:`REACH` places above or below, with at most :data:`MOST_OPEN` challenges of their own
open per ladder; a challenge is accepted at once and its rated game starts at the ladder's
pace (:mod:`.ladder_challenges`); when the lower-placed player wins they take the loser's
place and everyone between moves down one (:mod:`.ladder_results`); idle players drop
(:mod:`.ladder_inactivity`). The position changes themselves live in :mod:`.ladder_moves`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Connection, and_, func, select

from dicehall.server.core.clock import aware
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.games.records import USERS
from dicehall.server.domain.ratings import kinds, ladder_inactivity, ladder_moves, model
from dicehall.server.domain.ratings.ladder_inactivity import not_on_ladder
from dicehall.server.domain.ratings.ladder_moves import CHALLENGES, MOVES, POSITIONS
from dicehall.server.domain.ratings.store import RATINGS, skill_at

#: How far up or down a challenge may reach, and how many of my own may be open at once.
REACH = 20
MOST_OPEN = 2
#: The pace of every ladder game: three days a move (a player's turn, not the whole game).
PACE = "days-3"
#: Positions per page by default, and at most; moves per history page, and at most.
PAGE = 100
PAGE_MAX = 200
HISTORY_PAGE = 50
HISTORY_PAGE_MAX = 100


def check_kind(kind: str) -> str:
    """``kind`` if it has a ladder, else 404 ``no_such_ladder``."""
    ladders = kinds.ladder_names()
    if kind not in ladders:
        known = ", ".join(ladders)
        raise Refused(
            "not_found", "no_such_ladder", f"there is no ladder {kind[:30]!r} (ladders: {known})"
        )
    return kind


# -- joining and leaving ------------------------------------------------------------------------


def join(conn: Connection, kind: str, user_pk: int, at: datetime) -> dict[str, Any]:
    """Put ``user_pk`` at the bottom of ladder ``kind`` (409 ``already_on_ladder``); their
    standing."""
    check_kind(kind)
    ladder_moves.lock(conn, kind)
    if ladder_moves.position_of(conn, kind, user_pk) is not None:
        raise Refused(
            "conflict", "already_on_ladder", f"you are on the {kinds.title(kind)} ladder already"
        )
    ladder_moves.add_at_bottom(conn, kind, user_pk, at)
    return standing(conn, kind, user_pk, at)


def leave(conn: Connection, kind: str, user_pk: int, at: datetime) -> dict[str, Any]:
    """Take ``user_pk`` off ladder ``kind``: everyone below moves up one (409
    ``not_on_ladder``). Games in progress go on; their results move nobody."""
    check_kind(kind)
    ladder_moves.lock(conn, kind)
    position = ladder_moves.position_of(conn, kind, user_pk)
    if position is None:
        raise not_on_ladder(kind)
    ladder_moves.remove(conn, kind, user_pk, position, at)
    return standing(conn, kind, user_pk, at)


def take_vacation(
    conn: Connection, kind: str, user_pk: int, days: int, at: datetime
) -> dict[str, Any]:
    """Ladder vacation (see :mod:`.ladder_inactivity`); the player's standing after it."""
    check_kind(kind)
    ladder_inactivity.take_vacation(conn, kind, user_pk, days, at)
    return standing(conn, kind, user_pk, at)


# -- reading ------------------------------------------------------------------------------------


def open_challenges(conn: Connection, kind: str, user_pk: int) -> int:
    """How many challenges ``user_pk`` made on ladder ``kind`` whose games are not over."""
    count = conn.execute(
        select(func.count())
        .select_from(CHALLENGES)
        .where(
            CHALLENGES.c.kind == kind,
            CHALLENGES.c.challenger_pk == user_pk,
            CHALLENGES.c.open.is_(True),
        )
    ).scalar_one()
    return int(count)


def standing(conn: Connection, kind: str, user_pk: int, at: datetime) -> dict[str, Any]:
    """``user_pk``'s place on ladder ``kind``: position (None: not on it), the ladder's
    size, their open challenges, ladder vacation, and when inactivity drops them next."""
    row = conn.execute(
        select(POSITIONS).where(POSITIONS.c.kind == kind, POSITIONS.c.user_pk == user_pk)
    ).first()
    playing = ladder_moves.open_games_of(conn, kind, user_pk)
    out: dict[str, Any] = {
        "kind": kind,
        "title": kinds.title(kind),
        "position": None,
        "players": ladder_moves.size(conn, kind),
        "open_challenges": open_challenges(conn, kind, user_pk),
        "vacation_until": None,
        "vacation_days_left": ladder_inactivity.VACATION_DAYS_A_YEAR,
        "drop_due_at": None,
    }
    if row is not None:
        vacation = None if row.vacation_until is None else aware(row.vacation_until)
        due = ladder_inactivity.drop_due(row.active_at, row.dropped_at)
        out["position"] = int(row.position)
        out["vacation_until"] = None if vacation is None or vacation <= at else _iso(vacation)
        out["vacation_days_left"] = ladder_inactivity.vacation_left(row, at)
        out["drop_due_at"] = None if playing else _iso(due)
    return out


def overview(conn: Connection, viewer_pk: int | None) -> list[dict[str, Any]]:
    """Every ladder: its kind, title, how many players, and the viewer's position."""
    counted = select(POSITIONS.c.kind, func.count()).group_by(POSITIONS.c.kind)
    sizes = {str(row[0]): int(row[1]) for row in conn.execute(counted)}
    mine: dict[str, int] = {}
    if viewer_pk is not None:
        placed = select(POSITIONS.c.kind, POSITIONS.c.position).where(
            POSITIONS.c.user_pk == viewer_pk
        )
        mine = {str(row[0]): int(row[1]) for row in conn.execute(placed)}
    return [
        {
            "kind": kind,
            "title": kinds.title(kind),
            "players": int(sizes.get(kind, 0)),
            "my_position": mine.get(kind),
        }
        for kind in kinds.ladder_names()
    ]


def board(
    conn: Connection,
    kind: str,
    viewer_pk: int | None,
    at: datetime,
    start: int = 1,
    limit: int = PAGE,
) -> dict[str, Any]:
    """Ladder ``kind`` from position ``start``, ``limit`` places: each player's rating of
    the kind, challenge marks as the viewer sees them, when they last played and any
    vacation; the viewer's own standing and open ladder games."""
    check_kind(kind)
    if start < 1:
        raise Refused("invalid", "invalid_start", "start is a position: 1 or more")
    if not 1 <= limit <= PAGE_MAX:
        raise Refused("invalid", "invalid_limit", f"limit must be 1 to {PAGE_MAX}")
    rated = and_(RATINGS.c.user_pk == POSITIONS.c.user_pk, RATINGS.c.kind == POSITIONS.c.kind)
    rows = conn.execute(
        select(
            POSITIONS,
            USERS.c.user_id,
            USERS.c.display_name,
            RATINGS.c.mu,
            RATINGS.c.sigma,
            RATINGS.c.games,
            RATINGS.c.last_game_at,
        )
        .select_from(
            POSITIONS.join(USERS, USERS.c.id == POSITIONS.c.user_pk).outerjoin(RATINGS, rated)
        )
        .where(POSITIONS.c.kind == kind, POSITIONS.c.position >= start)
        .order_by(POSITIONS.c.position)
        .limit(limit + 1)
    ).all()
    more = len(rows) > limit
    rows = rows[:limit]
    challenges = _open_challenges(conn, kind)
    me = None if viewer_pk is None else standing(conn, kind, viewer_pk, at)
    mine = None if me is None else me["position"]
    may_challenge = mine is not None and me is not None and me["open_challenges"] < MOST_OPEN
    positions = []
    for row in rows:
        skill = model.Skill() if row.mu is None else skill_at(row, at)
        games = 0 if row.games is None else int(row.games)
        theirs = [c for c in challenges if row.user_pk in (c.challenger_pk, c.opponent_pk)]
        vacation = None if row.vacation_until is None else aware(row.vacation_until)
        positions.append(
            {
                "position": int(row.position),
                "user_id": row.user_id,
                "display_name": row.display_name,
                "rating": model.shown(skill),
                "provisional": model.provisional(skill, games, kind),
                "rated_games": games,
                "open_challenges": sum(1 for c in theirs if c.challenger_pk == row.user_pk),
                "in_game": bool(theirs),
                "challenged_by_me": any(
                    c.challenger_pk == viewer_pk and c.opponent_pk == row.user_pk for c in theirs
                ),
                "challenges_me": any(
                    c.opponent_pk == viewer_pk and c.challenger_pk == row.user_pk for c in theirs
                ),
                "can_challenge": may_challenge
                and mine is not None
                and row.user_pk != viewer_pk
                and abs(int(row.position) - mine) <= REACH,
                "active_at": _iso(aware(row.active_at)),
                "vacation_until": None if vacation is None or vacation <= at else _iso(vacation),
            }
        )
    return {
        "kind": kind,
        "title": kinds.title(kind),
        "players": ladder_moves.size(conn, kind),
        "pace": PACE,
        "reach": REACH,
        "most_open": MOST_OPEN,
        "start": start,
        "next_start": int(rows[-1].position) + 1 if more and rows else None,
        "positions": positions,
        "me": me,
        "my_games": [] if viewer_pk is None else _games_of(conn, kind, viewer_pk),
    }


def _open_challenges(conn: Connection, kind: str) -> list[Any]:
    return list(
        conn.execute(
            select(CHALLENGES).where(CHALLENGES.c.kind == kind, CHALLENGES.c.open.is_(True))
        ).all()
    )


def _games_of(conn: Connection, kind: str, user_pk: int) -> list[dict[str, Any]]:
    # My ladder games in progress on this ladder, either side, newest first.
    challenger = USERS.alias("challenger")
    opponent = USERS.alias("opponent")
    rows = conn.execute(
        select(CHALLENGES, challenger.c.user_id.label("by"), opponent.c.user_id.label("to"))
        .join(challenger, challenger.c.id == CHALLENGES.c.challenger_pk)
        .join(opponent, opponent.c.id == CHALLENGES.c.opponent_pk)
        .where(
            CHALLENGES.c.kind == kind,
            CHALLENGES.c.open.is_(True),
            (CHALLENGES.c.challenger_pk == user_pk) | (CHALLENGES.c.opponent_pk == user_pk),
        )
        .order_by(CHALLENGES.c.id.desc())
    ).all()
    return [challenge_json(row, row.by, row.to) for row in rows]


def challenge_json(row: Any, challenger: str, opponent: str) -> dict[str, Any]:
    """A challenge as the API shows it."""
    return {
        "id": int(row.id),
        "kind": row.kind,
        "challenger": challenger,
        "opponent": opponent,
        "game_id": int(row.game_id),
        "open": bool(row.open),
        "created_at": _iso(aware(row.created_at)),
    }


def history(
    conn: Connection, kind: str, cursor: str | None = None, limit: int = HISTORY_PAGE
) -> dict[str, Any]:
    """Ladder ``kind``'s moves, newest first, a page at a time (``cursor``: ``next`` of the
    previous page)."""
    check_kind(kind)
    if not 1 <= limit <= HISTORY_PAGE_MAX:
        raise Refused("invalid", "invalid_limit", f"limit must be 1 to {HISTORY_PAGE_MAX}")
    query = (
        select(MOVES, USERS.c.user_id, USERS.c.display_name)
        .join(USERS, USERS.c.id == MOVES.c.user_pk)
        .where(MOVES.c.kind == kind)
    )
    if cursor:
        if not cursor.isdigit() or len(cursor) > 12:
            raise Refused(
                "invalid", "invalid_cursor", "the cursor is not one this list gave (use `next`)"
            )
        query = query.where(MOVES.c.id < int(cursor))
    rows = conn.execute(query.order_by(MOVES.c.id.desc()).limit(limit + 1)).all()
    page = rows[:limit]
    return {
        "kind": kind,
        "moves": [
            {
                "id": int(r.id),
                "user_id": r.user_id,
                "display_name": r.display_name,
                "old_position": r.old_position,
                "new_position": r.new_position,
                "reason": r.reason,
                "game_id": r.game_id,
                "at": _iso(aware(r.at)),
            }
            for r in page
        ],
        "next": str(page[-1].id) if len(rows) > limit else None,
    }


def _iso(moment: datetime) -> str:
    return moment.isoformat()
