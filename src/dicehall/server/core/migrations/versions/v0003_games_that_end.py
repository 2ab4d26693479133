"""games that end: paces and clocks, seat statuses, timeouts, turn times, notifications,
vacation, private games and their watchers

A game keeps its pace, its clock (each seat's bank, whose runs since when), the deadline
the sweeper looks for, when the running seat is next reminded, whether vacation may save a
seat, whether it is private, and when it ended. A seat keeps its status (playing, resigned,
timed_out, autopilot), whether its player has moved, and when it left. An account keeps its
vacation allowance and an announced absence. Existing accounts get the sign-up allowance.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-23 14:10:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

_SIGN_UP_ALLOWANCE = str(7 * 24 * 3600)
#: SQLite rebuilds a table to add an index in batch mode: these keep AUTOINCREMENT (0002).
_NEVER_REUSED = {"sqlite_autoincrement": True}


def upgrade() -> None:
    with op.batch_alter_table("users", table_kwargs=_NEVER_REUSED) as batch_op:
        batch_op.add_column(
            sa.Column(
                "vacation_seconds", sa.Float(), nullable=False, server_default=_SIGN_UP_ALLOWANCE
            )
        )
        batch_op.add_column(
            sa.Column("vacation_accrued_at", sa.DateTime(timezone=True), nullable=True)
        )
        batch_op.add_column(sa.Column("vacation_until", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("away_until", sa.DateTime(timezone=True), nullable=True))
    with op.batch_alter_table("games", table_kwargs=_NEVER_REUSED) as batch_op:
        batch_op.add_column(sa.Column("pace", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("clock", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("deadline", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("remind_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(
            sa.Column("vacation", sa.Boolean(), nullable=False, server_default=sa.true())
        )
        batch_op.add_column(
            sa.Column("private", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch_op.add_column(sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.create_index("ix_games_deadline", ["deadline"], unique=False)
        batch_op.create_index("ix_games_remind_at", ["remind_at"], unique=False)
        batch_op.create_index("ix_games_ended_at", ["ended_at"], unique=False)
    with op.batch_alter_table("game_seats") as batch_op:
        batch_op.add_column(
            sa.Column("status", sa.String(length=10), nullable=False, server_default="playing")
        )
        batch_op.add_column(
            sa.Column("moved", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch_op.add_column(sa.Column("left_version", sa.Integer(), nullable=True))
    # Games that ended before clocks existed end when they were last changed.
    op.execute(
        "UPDATE games SET ended_at = updated_at "
        "WHERE status IN ('finished', 'cancelled') AND ended_at IS NULL"
    )
    op.create_table(
        "seat_timeouts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("user_pk", sa.Integer(), nullable=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_pk"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game_id", "seat", "version"),
    )
    op.create_index("ix_seat_timeouts_user_pk", "seat_timeouts", ["user_pk"], unique=False)
    op.create_table(
        "turn_times",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_pk", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seconds", sa.Float(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_pk"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_turn_times_user", "turn_times", ["user_pk", "id"], unique=False)
    op.create_table(
        "notifications",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_pk", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("text", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("read", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_pk"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_notifications_user", "notifications", ["user_pk", "id"], unique=False)
    op.create_table(
        "game_watchers",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("user_pk", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_pk"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("game_id", "user_pk"),
    )


def downgrade() -> None:
    op.drop_table("game_watchers")
    op.drop_index("ix_notifications_user", table_name="notifications")
    op.drop_table("notifications")
    op.drop_index("ix_turn_times_user", table_name="turn_times")
    op.drop_table("turn_times")
    op.drop_index("ix_seat_timeouts_user_pk", table_name="seat_timeouts")
    op.drop_table("seat_timeouts")
    with op.batch_alter_table("game_seats") as batch_op:
        batch_op.drop_column("left_version")
        batch_op.drop_column("moved")
        batch_op.drop_column("status")
    with op.batch_alter_table("games", table_kwargs=_NEVER_REUSED) as batch_op:
        batch_op.drop_index("ix_games_ended_at")
        batch_op.drop_index("ix_games_remind_at")
        batch_op.drop_index("ix_games_deadline")
        for column in ("ended_at", "private", "vacation", "remind_at", "deadline", "clock", "pace"):
            batch_op.drop_column(column)
    with op.batch_alter_table("users", table_kwargs=_NEVER_REUSED) as batch_op:
        for column in ("away_until", "vacation_until", "vacation_accrued_at", "vacation_seconds"):
            batch_op.drop_column(column)
