"""restore: what a restore from a backup must move past

new table restores: the audit record of each ``dicehall restore`` (the backup's log size,
the log's size after the saved log's records were imported, and the cursors and id floors
that were moved past whatever the published log names).

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-10 00:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "restores",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("restored_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("source", sa.String(length=300), nullable=False),
        sa.Column("backup_log_size", sa.Integer(), nullable=False),
        sa.Column("log_size", sa.Integer(), nullable=False),
        sa.Column("details", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sqlite_autoincrement=True,
    )


def downgrade() -> None:
    op.drop_table("restores")
