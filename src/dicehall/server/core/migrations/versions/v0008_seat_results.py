"""seat results: the history's and the record's index

New table seat_results: one row per person's seat in a finished game (kind, outcome, score,
when it ended, the game's private and ladder flags), indexed by player and end time (and by
game or outcome first), filled here from every finished game already stored; and
seat_records, each person's count of them by game, outcome and privacy. game_seats' index by
user becomes (user, game). A finished game
from before the clocks without ``ended_at`` gets its ``updated_at``, as migration 0003 did.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-07 19:50:00
"""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

#: Finished games are copied this many at a time (a big site's history fits in no one list).
BATCH = 2000


def upgrade() -> None:
    op.create_table(
        "seat_results",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("user_pk", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("outcome", sa.String(length=4), nullable=True),
        sa.Column("score", sa.Integer(), nullable=True),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("private", sa.Boolean(), nullable=False),
        sa.Column("ladder", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_pk"], ["users.id"]),
        sa.PrimaryKeyConstraint("game_id", "seat"),
    )
    with op.batch_alter_table("seat_results", schema=None) as batch_op:
        batch_op.create_index(
            "ix_seat_results_user", ["user_pk", "ended_at", "game_id"], unique=False
        )
        batch_op.create_index(
            "ix_seat_results_user_kind", ["user_pk", "kind", "ended_at", "game_id"], unique=False
        )
        batch_op.create_index(
            "ix_seat_results_user_outcome",
            ["user_pk", "outcome", "ended_at", "game_id"],
            unique=False,
        )
        batch_op.create_index(
            "ix_seat_results_private", ["user_pk", "private", "kind", "outcome"], unique=False
        )
    op.create_table(
        "seat_records",
        sa.Column("user_pk", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("outcome", sa.String(length=4), nullable=False),
        sa.Column("private", sa.Boolean(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["user_pk"], ["users.id"]),
        sa.PrimaryKeyConstraint("user_pk", "kind", "outcome", "private"),
    )
    with op.batch_alter_table("game_seats", schema=None) as batch_op:
        batch_op.drop_index("ix_game_seats_user")
        batch_op.create_index("ix_game_seats_user", ["user_pk", "game_id"], unique=False)
    op.execute(
        "UPDATE games SET ended_at = updated_at WHERE status = 'finished' AND ended_at IS NULL"
    )
    _fill()
    op.execute(
        "INSERT INTO seat_records (user_pk, kind, outcome, private, games) "
        "SELECT user_pk, kind, coalesce(outcome, 'none'), private, count(*) FROM seat_results "
        "GROUP BY user_pk, kind, coalesce(outcome, 'none'), private"
    )


def _fill() -> None:
    conn = op.get_bind()
    games = sa.table(
        "games",
        sa.column("id", sa.Integer()),
        sa.column("kind", sa.String()),
        sa.column("status", sa.String()),
        sa.column("result", sa.Text()),
        sa.column("ended_at", sa.DateTime(timezone=True)),
        sa.column("private", sa.Boolean()),
        sa.column("ladder", sa.Boolean()),
    )
    seats = sa.table(
        "game_seats",
        sa.column("game_id", sa.Integer()),
        sa.column("seat", sa.Integer()),
        sa.column("user_pk", sa.Integer()),
    )
    results = sa.table(
        "seat_results",
        *(
            sa.column(name)
            for name in (
                "game_id",
                "seat",
                "user_pk",
                "kind",
                "outcome",
                "score",
                "ended_at",
                "private",
                "ladder",
            )
        ),
    )
    last = 0
    while True:
        rows = conn.execute(
            sa.select(
                games.c.id,
                games.c.kind,
                games.c.result,
                games.c.ended_at,
                games.c.private,
                games.c.ladder,
                seats.c.seat,
                seats.c.user_pk,
            )
            .join(seats, seats.c.game_id == games.c.id)
            .where(
                games.c.status == "finished",
                seats.c.user_pk.is_not(None),
                games.c.id > last,
                games.c.id <= last + BATCH,
            )
        ).all()
        if rows:
            conn.execute(sa.insert(results), [_row(row) for row in rows])
        more = conn.execute(sa.select(sa.func.max(games.c.id)).where(games.c.id > last)).scalar()
        if more is None:
            return
        last += BATCH


def _row(row: Any) -> dict[str, Any]:
    # The rules of domain.games.seat_results, as they stand at this revision.
    result = json.loads(row.result) if row.result else None
    winners = None if result is None else result.get("winners")
    scores = [] if result is None else result.get("scores") or []
    seat = row.seat
    if winners is None:
        outcome = None
    elif seat in winners:
        outcome = "win" if len(winners) == 1 else "draw"
    else:
        outcome = "loss"
    score = scores[seat] if seat < len(scores) and isinstance(scores[seat], int) else None
    return {
        "game_id": row.id,
        "seat": seat,
        "user_pk": row.user_pk,
        "kind": row.kind,
        "outcome": outcome,
        "score": score,
        "ended_at": row.ended_at,
        "private": bool(row.private),
        "ladder": bool(row.ladder),
    }


def downgrade() -> None:
    with op.batch_alter_table("game_seats", schema=None) as batch_op:
        batch_op.drop_index("ix_game_seats_user")
        batch_op.create_index("ix_game_seats_user", ["user_pk"], unique=False)
    op.drop_table("seat_records")
    with op.batch_alter_table("seat_results", schema=None) as batch_op:
        batch_op.drop_index("ix_seat_results_private")
        batch_op.drop_index("ix_seat_results_user_outcome")
        batch_op.drop_index("ix_seat_results_user_kind")
        batch_op.drop_index("ix_seat_results_user")
    op.drop_table("seat_results")
