"""moderation: roles, mutes, suspensions, closed accounts, reports, the audit log, testimonials

users gains role, muted_until, suspended_until and closed_at; messages and game_chat gain
hidden_at (a moderator hid the line); new tables reports, moderation_actions (the audit log,
append-only) and testimonials (one per member).

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-09 12:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ALTER TABLE, never a batch rebuild: rebuilding ``users`` would drop the table
    # every other one refers to (SQLite adds and drops columns in place since 3.35).
    op.add_column(
        "users", sa.Column("role", sa.String(length=12), nullable=False, server_default="")
    )
    op.add_column("users", sa.Column("muted_until", sa.DateTime(timezone=True), nullable=True))
    op.add_column("users", sa.Column("suspended_until", sa.DateTime(timezone=True), nullable=True))
    op.add_column("users", sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True))
    op.add_column("messages", sa.Column("hidden_at", sa.DateTime(timezone=True), nullable=True))
    op.add_column("game_chat", sa.Column("hidden_at", sa.DateTime(timezone=True), nullable=True))
    op.create_table(
        "reports",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("reporter_pk", sa.Integer(), nullable=False),
        sa.Column("target_kind", sa.String(length=12), nullable=False),
        sa.Column("target_id", sa.Integer(), nullable=False),
        sa.Column("target_user_pk", sa.Integer(), nullable=False),
        sa.Column("reason", sa.String(length=16), nullable=False),
        sa.Column("text", sa.String(length=500), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=10), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("handled_by", sa.Integer(), nullable=True),
        sa.Column("handled_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["handled_by"], ["users.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["reporter_pk"], ["users.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["target_user_pk"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_reports_status", "reports", ["status", "id"], unique=False)
    op.create_index(
        "ix_reports_target", "reports", ["target_kind", "target_id", "reporter_pk"], unique=False
    )
    op.create_index("ix_reports_target_user_pk", "reports", ["target_user_pk"], unique=False)
    op.create_table(
        "moderation_actions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("moderator_pk", sa.Integer(), nullable=True),
        sa.Column("target_pk", sa.Integer(), nullable=True),
        sa.Column("action", sa.String(length=12), nullable=False),
        sa.Column("reason", sa.String(length=500), nullable=False),
        sa.Column("until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("content_kind", sa.String(length=12), nullable=True),
        sa.Column("content_id", sa.Integer(), nullable=True),
        sa.Column("content_text", sa.Text(), nullable=True),
        sa.Column("report_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["moderator_pk"], ["users.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["report_id"], ["reports.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["target_pk"], ["users.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
        sqlite_autoincrement=True,
    )
    op.create_index(
        "ix_moderation_actions_target", "moderation_actions", ["target_pk", "id"], unique=False
    )
    op.create_table(
        "testimonials",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_pk", sa.Integer(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=10), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("approved_by", sa.Integer(), nullable=True),
        sa.Column("approved_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["approved_by"], ["users.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["user_pk"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("user_pk"),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_testimonials_status", "testimonials", ["status", "id"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_testimonials_status", table_name="testimonials")
    op.drop_table("testimonials")
    op.drop_index("ix_moderation_actions_target", table_name="moderation_actions")
    op.drop_table("moderation_actions")
    op.drop_index("ix_reports_target_user_pk", table_name="reports")
    op.drop_index("ix_reports_target", table_name="reports")
    op.drop_index("ix_reports_status", table_name="reports")
    op.drop_table("reports")
    op.drop_column("game_chat", "hidden_at")
    op.drop_column("messages", "hidden_at")
    op.drop_column("users", "closed_at")
    op.drop_column("users", "suspended_until")
    op.drop_column("users", "muted_until")
    op.drop_column("users", "role")
