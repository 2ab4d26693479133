"""ratings and ladders

A game keeps the rating kind it is rated in (none: unrated) and whether it is a ladder
game. New tables: ratings (a user's mu and sigma per kind), rating_changes (what each rated
game did to each seat, once), ladder_positions, ladder_challenges and ladder_moves.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23 17:45:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

#: SQLite rebuilds a table to add a column in batch mode: these keep AUTOINCREMENT (0002).
_NEVER_REUSED = {"sqlite_autoincrement": True}


def _moment(name: str, nullable: bool = False) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def _user(name: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint([name], ["users.id"], ondelete="CASCADE")


def _kind() -> sa.Column[object]:
    return sa.Column("kind", sa.String(length=24), nullable=False)


def upgrade() -> None:
    with op.batch_alter_table("games", table_kwargs=_NEVER_REUSED) as batch_op:
        batch_op.add_column(sa.Column("rating_kind", sa.String(length=24), nullable=True))
        batch_op.add_column(
            sa.Column("ladder", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    op.create_table(
        "ratings",
        sa.Column("user_pk", sa.Integer(), nullable=False),
        _kind(),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        _moment("last_game_at"),
        _user("user_pk"),
        sa.PrimaryKeyConstraint("user_pk", "kind"),
    )
    op.create_index("ix_ratings_kind", "ratings", ["kind", "user_pk"])
    op.create_table(
        "rating_changes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("user_pk", sa.Integer(), nullable=False),
        _kind(),
        sa.Column("place", sa.Integer(), nullable=False),
        sa.Column("mu_before", sa.Float(), nullable=False),
        sa.Column("sigma_before", sa.Float(), nullable=False),
        sa.Column("mu_after", sa.Float(), nullable=False),
        sa.Column("sigma_after", sa.Float(), nullable=False),
        _moment("at"),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE"),
        _user("user_pk"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game_id", "user_pk"),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_rating_changes_user", "rating_changes", ["user_pk", "kind", "id"])
    op.create_table(
        "ladder_positions",
        _kind(),
        sa.Column("user_pk", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        _moment("joined_at"),
        _moment("active_at"),
        _moment("dropped_at", nullable=True),
        _moment("vacation_until", nullable=True),
        sa.Column("vacation_days", sa.Integer(), nullable=False),
        sa.Column("vacation_year", sa.Integer(), nullable=False),
        _user("user_pk"),
        sa.PrimaryKeyConstraint("kind", "user_pk"),
        sa.UniqueConstraint("kind", "position"),
    )
    op.create_table(
        "ladder_challenges",
        sa.Column("id", sa.Integer(), nullable=False),
        _kind(),
        sa.Column("challenger_pk", sa.Integer(), nullable=False),
        sa.Column("opponent_pk", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("open", sa.Boolean(), nullable=False),
        _moment("created_at"),
        _user("challenger_pk"),
        _user("opponent_pk"),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game_id"),
        sqlite_autoincrement=True,
    )
    op.create_index(
        "ix_ladder_challenges_open", "ladder_challenges", ["kind", "challenger_pk", "open"]
    )
    op.create_table(
        "ladder_moves",
        sa.Column("id", sa.Integer(), nullable=False),
        _kind(),
        sa.Column("user_pk", sa.Integer(), nullable=False),
        sa.Column("old_position", sa.Integer(), nullable=True),
        sa.Column("new_position", sa.Integer(), nullable=True),
        sa.Column("reason", sa.String(length=12), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        _moment("at"),
        _user("user_pk"),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_ladder_moves_kind", "ladder_moves", ["kind", "id"])


def downgrade() -> None:
    op.drop_index("ix_ladder_moves_kind", table_name="ladder_moves")
    op.drop_table("ladder_moves")
    op.drop_index("ix_ladder_challenges_open", table_name="ladder_challenges")
    op.drop_table("ladder_challenges")
    op.drop_table("ladder_positions")
    op.drop_index("ix_rating_changes_user", table_name="rating_changes")
    op.drop_table("rating_changes")
    op.drop_index("ix_ratings_kind", table_name="ratings")
    op.drop_table("ratings")
    with op.batch_alter_table("games", table_kwargs=_NEVER_REUSED) as batch_op:
        batch_op.drop_column("ladder")
        batch_op.drop_column("rating_kind")
