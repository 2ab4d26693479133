"""bot tables: which slow bots' tables the bot workers have built

New table bot_tables (kind, bot, options; started_at, ready_at; progress, left_s, told_at),
written by the bot workers, read by web processes that have no bot workers of their own
(``dicehall serve --no-background`` beside ``dicehall worker``).

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-07 20:15:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "bot_tables",
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("bot", sa.String(length=30), nullable=False),
        sa.Column("options", sa.String(length=400), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ready_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("progress", sa.Float(), nullable=True),
        sa.Column("left_s", sa.Float(), nullable=True),
        sa.Column("told_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("kind", "bot", "options"),
    )


def downgrade() -> None:
    op.drop_table("bot_tables")
