"""Moving players on a ladder: the lock, and every change of positions (joining at the
bottom, leaving, a win from below, an inactivity drop), each recorded in ``ladder_moves``.

Positions stay a permutation 1..N under the unique (kind, position) constraint, which
PostgreSQL checks row by row: a block is never shifted in place (``position + 1`` would
collide half-way). Every rearrangement writes each moved row's new position negated first,
then flips the negatives back in one statement; no two rows ever hold the same value.

Every change of one ladder runs under that ladder's lock: on PostgreSQL a transaction
advisory lock per ladder (it also covers an empty ladder, where there are no rows to lock
FOR UPDATE, so two joins can never both take position 1); SQLite runs one writer at a time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import (
    Connection,
    Table,
    and_,
    bindparam,
    delete,
    func,
    insert,
    select,
    text,
    update,
)

from dicehall.server.core.models import LadderChallenge, LadderMove, LadderPosition
from dicehall.server.core.txn import publish_after_commit
from dicehall.server.domain.ratings import kinds

POSITIONS = cast(Table, LadderPosition.__table__)
CHALLENGES = cast(Table, LadderChallenge.__table__)
MOVES = cast(Table, LadderMove.__table__)

#: The first key of the ladders' advisory locks (the second is the ladder's index); the
#: inactivity job's own lock uses the index -1.
LOCK_SPACE = 0x1ADD
JOB_LOCK = -1

#: Why a position changed: entered at the bottom; left (position None); won from below
#: (took the loser's place); passed (moved down one by such a win); dropped for
#: inactivity; moved up one (someone above left or dropped past).
Reason = str
JOINED, LEFT, WON, PASSED, INACTIVE, MOVED_UP = (
    "joined",
    "left",
    "won",
    "passed",
    "inactive",
    "moved_up",
)


@dataclass(frozen=True)
class Move:
    """One player's position before and after a change (None: not on the ladder)."""

    user_pk: int
    old: int | None
    new: int | None
    reason: Reason


def lock(conn: Connection, kind: str) -> None:
    """Take ladder ``kind``'s lock until the transaction ends (PostgreSQL; SQLite's writers
    are serialised already)."""
    if conn.dialect.name == "postgresql":
        conn.execute(
            text("SELECT pg_advisory_xact_lock(:space, :key)"),
            {"space": LOCK_SPACE, "key": kinds.ladder_names().index(kind)},
        )


def try_job_lock(conn: Connection) -> bool:
    """Take the inactivity job's lock unless another process holds it (PostgreSQL); whether
    this transaction may run the job."""
    if conn.dialect.name != "postgresql":
        return True
    got = conn.execute(
        text("SELECT pg_try_advisory_xact_lock(:space, :key)"),
        {"space": LOCK_SPACE, "key": JOB_LOCK},
    ).scalar_one()
    return bool(got)


def position_of(conn: Connection, kind: str, user_pk: int) -> int | None:
    """``user_pk``'s position on ladder ``kind`` (None: not on it)."""
    found = conn.execute(
        select(POSITIONS.c.position).where(POSITIONS.c.kind == kind, POSITIONS.c.user_pk == user_pk)
    ).scalar_one_or_none()
    return None if found is None else int(found)


def size(conn: Connection, kind: str) -> int:
    """How many players ladder ``kind`` holds."""
    count = conn.execute(
        select(func.count()).select_from(POSITIONS).where(POSITIONS.c.kind == kind)
    ).scalar_one()
    return int(count)


def _between(conn: Connection, kind: str, low: int, high: int) -> list[tuple[int, int]]:
    """The (user_pk, position) of everyone at positions ``low``..``high``, top first."""
    rows = conn.execute(
        select(POSITIONS.c.user_pk, POSITIONS.c.position)
        .where(POSITIONS.c.kind == kind, POSITIONS.c.position.between(low, high))
        .order_by(POSITIONS.c.position)
    ).all()
    return [(int(r.user_pk), int(r.position)) for r in rows]


_PLACE = (
    update(POSITIONS)
    .where(POSITIONS.c.kind == bindparam("b_kind"), POSITIONS.c.user_pk == bindparam("b_user"))
    .values(position=bindparam("b_position"))
)


def rearrange(
    conn: Connection, kind: str, moves: Sequence[Move], at: datetime, game_id: int | None = None
) -> None:
    """Give each moved player (still on the ladder) its new position, in the two steps the
    unique constraint needs, and record every move. The caller holds the ladder's lock and
    makes sure the new positions, with the unmoved ones, are a permutation."""
    placed = [
        {"b_kind": kind, "b_user": m.user_pk, "b_position": -m.new}
        for m in moves
        if m.new is not None and m.new != m.old
    ]
    if placed:
        conn.execute(_PLACE, placed)
        conn.execute(
            update(POSITIONS)
            .where(POSITIONS.c.kind == kind, POSITIONS.c.position < 0)
            .values(position=-POSITIONS.c.position)
        )
    record(conn, kind, moves, at, game_id)


def record(
    conn: Connection, kind: str, moves: Sequence[Move], at: datetime, game_id: int | None = None
) -> None:
    """Record each move that changed something, and tell each player moved (a push).

    ``moves`` lists the cause first (the winner, the leaver, the player dropped); it is
    recorded last, so that the record read newest first starts with it."""
    changed = [m for m in moves if m.new != m.old]
    if not changed:
        return
    conn.execute(
        insert(MOVES),
        [
            {
                "kind": kind,
                "user_pk": m.user_pk,
                "old_position": m.old,
                "new_position": m.new,
                "reason": m.reason,
                "game_id": game_id,
                "at": at,
            }
            for m in reversed(changed)
        ],
    )
    for m in changed:
        message: dict[str, Any] = {"type": "ladder", "kind": kind, "position": m.new}
        publish_after_commit(conn, m.user_pk, message)


# -- the changes ------------------------------------------------------------------------------


def add_at_bottom(conn: Connection, kind: str, user_pk: int, at: datetime) -> int:
    """Put ``user_pk`` (not on the ladder) at the bottom; its new position."""
    position = size(conn, kind) + 1
    conn.execute(
        insert(POSITIONS).values(
            kind=kind,
            user_pk=user_pk,
            position=position,
            joined_at=at,
            active_at=at,
            dropped_at=None,
            vacation_until=None,
            vacation_days=0,
            vacation_year=0,
        )
    )
    record(conn, kind, [Move(user_pk, None, position, JOINED)], at)
    return position


def remove(conn: Connection, kind: str, user_pk: int, position: int, at: datetime) -> None:
    """Take ``user_pk`` (at ``position``) off the ladder; everyone below moves up one."""
    conn.execute(delete(POSITIONS).where(POSITIONS.c.kind == kind, POSITIONS.c.user_pk == user_pk))
    below = _between(conn, kind, position + 1, size(conn, kind) + 1)
    moves = [Move(user_pk, position, None, LEFT)]
    moves += [Move(pk, p, p - 1, MOVED_UP) for pk, p in below]
    rearrange(conn, kind, moves, at)


def win_from_below(
    conn: Connection, kind: str, winner: int, loser: int, at: datetime, game_id: int | None
) -> list[Move]:
    """The lower-placed ``winner`` takes ``loser``'s place and everyone from there down to
    the winner's old place moves down one; nothing moves when the winner is placed higher
    (or either is no longer on the ladder). The moves made."""
    high = position_of(conn, kind, loser)
    low = position_of(conn, kind, winner)
    if high is None or low is None or low < high:
        return []
    moves = [Move(winner, low, high, WON)]
    moves += [Move(pk, p, p + 1, PASSED) for pk, p in _between(conn, kind, high, low - 1)]
    rearrange(conn, kind, moves, at, game_id)
    return moves


def drop(conn: Connection, kind: str, user_pk: int, places: int, at: datetime) -> list[Move]:
    """Move ``user_pk`` down ``places`` (not past the bottom); those passed move up one."""
    position = position_of(conn, kind, user_pk)
    if position is None:
        return []
    target = min(position + places, size(conn, kind))
    if target == position:
        return []
    moves = [Move(user_pk, position, target, INACTIVE)]
    moves += [Move(pk, p, p - 1, MOVED_UP) for pk, p in _between(conn, kind, position + 1, target)]
    rearrange(conn, kind, moves, at)
    return moves


def open_games_of(conn: Connection, kind: str, user_pk: int) -> int:
    """How many ladder games of ``kind`` ``user_pk`` plays now (either side)."""
    count = conn.execute(
        select(func.count())
        .select_from(CHALLENGES)
        .where(
            CHALLENGES.c.kind == kind,
            CHALLENGES.c.open.is_(True),
            (CHALLENGES.c.challenger_pk == user_pk) | (CHALLENGES.c.opponent_pk == user_pk),
        )
    ).scalar_one()
    return int(count)


def in_open_game() -> Any:
    """A condition on ``ladder_positions`` rows: the player has a ladder game of that
    ladder in progress (as challenger or opponent)."""
    return (
        select(CHALLENGES.c.id)
        .where(
            and_(
                CHALLENGES.c.kind == POSITIONS.c.kind,
                CHALLENGES.c.open.is_(True),
                (CHALLENGES.c.challenger_pk == POSITIONS.c.user_pk)
                | (CHALLENGES.c.opponent_pk == POSITIONS.c.user_pk),
            )
        )
        .exists()
    )
