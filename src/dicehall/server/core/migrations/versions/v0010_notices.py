"""notices: e-mail, web push, webhooks, deliveries, open games, grouped bell lines

users gains email and email_verified_at; notifications gains events (a game's unread notices
share one line) and an index by user and game; new tables deliveries (each notice on its way
to one channel), push_subscriptions, webhooks and game_views (games open in a tab).

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-07 23:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ALTER TABLE, never a batch rebuild: rebuilding ``users`` would drop the table
    # every other one refers to (SQLite adds and drops columns in place since 3.35).
    op.add_column("users", sa.Column("email", sa.String(length=254), nullable=True))
    op.add_column(
        "users", sa.Column("email_verified_at", sa.DateTime(timezone=True), nullable=True)
    )
    op.create_index("ix_users_email", "users", ["email"], unique=False)
    op.add_column(
        "notifications",
        sa.Column("events", sa.Integer(), nullable=False, server_default="1"),
    )
    op.create_index(
        "ix_notifications_user_game", "notifications", ["user_pk", "game_id"], unique=False
    )
    op.create_table(
        "deliveries",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_pk", sa.Integer(), nullable=False),
        sa.Column("channel", sa.String(length=10), nullable=False),
        sa.Column("event", sa.String(length=80), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("title", sa.String(length=200), nullable=False),
        sa.Column("text", sa.String(length=400), nullable=False),
        sa.Column("path", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("status", sa.String(length=10), nullable=False),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("claimed_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_error", sa.String(length=300), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_pk"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("user_pk", "channel", "event", name="uq_deliveries_event"),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_deliveries_due", "deliveries", ["status", "due_at"], unique=False)
    op.create_table(
        "push_subscriptions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_pk", sa.Integer(), nullable=False),
        sa.Column("endpoint", sa.String(length=1000), nullable=False),
        sa.Column("p256dh", sa.String(length=200), nullable=False),
        sa.Column("auth", sa.String(length=100), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_error", sa.String(length=300), nullable=True),
        sa.ForeignKeyConstraint(["user_pk"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("endpoint"),
        sqlite_autoincrement=True,
    )
    op.create_index(
        "ix_push_subscriptions_user_pk", "push_subscriptions", ["user_pk"], unique=False
    )
    op.create_table(
        "webhooks",
        sa.Column("user_pk", sa.Integer(), nullable=False),
        sa.Column("url", sa.String(length=1000), nullable=False),
        sa.Column("format", sa.String(length=10), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_ok_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_error", sa.String(length=300), nullable=True),
        sa.Column("last_error_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["user_pk"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("user_pk"),
    )
    op.create_table(
        "game_views",
        sa.Column("socket", sa.String(length=32), nullable=False),
        sa.Column("user_pk", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_pk"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("socket"),
    )
    op.create_index("ix_game_views_user_game", "game_views", ["user_pk", "game_id"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_game_views_user_game", table_name="game_views")
    op.drop_table("game_views")
    op.drop_table("webhooks")
    op.drop_index("ix_push_subscriptions_user_pk", table_name="push_subscriptions")
    op.drop_table("push_subscriptions")
    op.drop_index("ix_deliveries_due", table_name="deliveries")
    op.drop_table("deliveries")
    op.drop_index("ix_notifications_user_game", table_name="notifications")
    op.drop_column("notifications", "events")
    op.drop_index("ix_users_email", table_name="users")
    op.drop_column("users", "email_verified_at")
    op.drop_column("users", "email")
