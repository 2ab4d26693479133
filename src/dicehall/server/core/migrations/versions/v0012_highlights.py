"""highlights: Singularity's moments and the records they are measured against

new table highlights (what was worth a look in each finished public game, each finished
tournament's winners, and the scores that records compare); game_events gains an index by
created_at (the moves of the last hour).

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-09 18:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_game_events_created", "game_events", ["created_at"], unique=False)
    op.create_table(
        "highlights",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("tournament_id", sa.Integer(), nullable=True),
        sa.Column("user_pk", sa.Integer(), nullable=True),
        sa.Column("what", sa.String(length=20), nullable=False),
        sa.Column("title", sa.String(length=80), nullable=False),
        sa.Column("text", sa.String(length=300), nullable=False),
        sa.Column("value", sa.BigInteger(), nullable=False),
        sa.Column("record", sa.String(length=80), nullable=True),
        sa.Column("shown", sa.Boolean(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournaments.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_pk"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_highlights_game_id", "highlights", ["game_id"], unique=False)
    op.create_index("ix_highlights_record", "highlights", ["record", "value"], unique=False)
    op.create_index("ix_highlights_shown", "highlights", ["shown", "id"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_highlights_shown", table_name="highlights")
    op.drop_index("ix_highlights_record", table_name="highlights")
    op.drop_index("ix_highlights_game_id", table_name="highlights")
    op.drop_table("highlights")
    op.drop_index("ix_game_events_created", table_name="game_events")
