"""the people around the games: relations, messages, game chat, invites, search, settings

A user gets their settings (JSON) and the day they were last here; a seat the newest chat
line its player has seen. New tables: relations (buddy or ignore, with a private note),
message threads (one per pair of users, each side's read and hidden marks) and their
messages, game chat lines, invites, the user search terms (compared byte by byte so that a
prefix is one index range on both databases) and the site's shared secrets.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23 17:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

#: SQLite rebuilds a table to add a column in batch mode: these keep AUTOINCREMENT (0002).
_NEVER_REUSED = {"sqlite_autoincrement": True}
_BYTEWISE = sa.String(length=80).with_variant(sa.String(length=80, collation="C"), "postgresql")


def _moment(name: str, nullable: bool = False) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def _user(name: str, ondelete: str = "CASCADE") -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint([name], ["users.id"], ondelete=ondelete)


def upgrade() -> None:
    with op.batch_alter_table("users", table_kwargs=_NEVER_REUSED) as batch_op:
        batch_op.add_column(sa.Column("settings", sa.Text(), nullable=False, server_default="{}"))
        batch_op.add_column(_moment("last_seen_at", nullable=True))
    with op.batch_alter_table("game_seats") as batch_op:
        batch_op.add_column(
            sa.Column("chat_read", sa.Integer(), nullable=False, server_default="0")
        )
    op.create_table(
        "relations",
        sa.Column("owner_pk", sa.Integer(), nullable=False),
        sa.Column("target_pk", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=6), nullable=False),
        sa.Column("note", sa.String(length=200), nullable=False),
        _moment("created_at"),
        _user("owner_pk"),
        _user("target_pk"),
        sa.PrimaryKeyConstraint("owner_pk", "target_pk"),
    )
    op.create_index("ix_relations_target", "relations", ["target_pk"], unique=False)
    op.create_table(
        "message_threads",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("low_pk", sa.Integer(), nullable=False),
        sa.Column("high_pk", sa.Integer(), nullable=False),
        sa.Column("created_by", sa.Integer(), nullable=False),
        _moment("created_at"),
        sa.Column("last_id", sa.Integer(), nullable=False),
        _moment("last_at"),
        sa.Column("low_read", sa.Integer(), nullable=False),
        sa.Column("high_read", sa.Integer(), nullable=False),
        sa.Column("low_hidden", sa.Integer(), nullable=False),
        sa.Column("high_hidden", sa.Integer(), nullable=False),
        _user("low_pk"),
        _user("high_pk"),
        _user("created_by"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("low_pk", "high_pk"),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_message_threads_low", "message_threads", ["low_pk", "last_id"])
    op.create_index("ix_message_threads_high", "message_threads", ["high_pk", "last_id"])
    op.create_index("ix_message_threads_writer", "message_threads", ["created_by", "created_at"])
    op.create_table(
        "messages",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("thread_id", sa.Integer(), nullable=False),
        sa.Column("sender_pk", sa.Integer(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        _moment("created_at"),
        sa.ForeignKeyConstraint(["thread_id"], ["message_threads.id"], ondelete="CASCADE"),
        _user("sender_pk"),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_messages_thread", "messages", ["thread_id", "id"])
    op.create_index("ix_messages_sender", "messages", ["sender_pk", "id"])
    op.create_table(
        "game_chat",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("user_pk", sa.Integer(), nullable=False),
        sa.Column("channel", sa.String(length=10), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        _moment("created_at"),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE"),
        _user("user_pk"),
        sa.PrimaryKeyConstraint("id"),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_game_chat_game", "game_chat", ["game_id", "id"])
    op.create_table(
        "invites",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("inviter_pk", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("seat", sa.Integer(), nullable=True),
        _moment("created_at"),
        _moment("expires_at"),
        sa.Column("accepted_by", sa.Integer(), nullable=True),
        _moment("accepted_at", nullable=True),
        sa.Column("make_buddies", sa.Boolean(), nullable=False),
        _user("inviter_pk"),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE"),
        _user("accepted_by", ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_invites_inviter", "invites", ["inviter_pk", "id"])
    op.create_table(
        "user_search",
        sa.Column("term", _BYTEWISE, nullable=False),
        sa.Column("user_pk", sa.Integer(), nullable=False),
        _user("user_pk"),
        sa.PrimaryKeyConstraint("term", "user_pk"),
    )
    op.create_index("ix_user_search_user", "user_search", ["user_pk"])
    op.create_table(
        "site_secrets",
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("value", sa.String(length=128), nullable=False),
        sa.PrimaryKeyConstraint("name"),
    )


def downgrade() -> None:
    op.drop_table("site_secrets")
    op.drop_index("ix_user_search_user", table_name="user_search")
    op.drop_table("user_search")
    op.drop_index("ix_invites_inviter", table_name="invites")
    op.drop_table("invites")
    op.drop_index("ix_game_chat_game", table_name="game_chat")
    op.drop_table("game_chat")
    op.drop_index("ix_messages_sender", table_name="messages")
    op.drop_index("ix_messages_thread", table_name="messages")
    op.drop_table("messages")
    for index in ("writer", "high", "low"):
        op.drop_index(f"ix_message_threads_{index}", table_name="message_threads")
    op.drop_table("message_threads")
    op.drop_index("ix_relations_target", table_name="relations")
    op.drop_table("relations")
    with op.batch_alter_table("game_seats") as batch_op:
        batch_op.drop_column("chat_read")
    with op.batch_alter_table("users", table_kwargs=_NEVER_REUSED) as batch_op:
        batch_op.drop_column("last_seen_at")
        batch_op.drop_column("settings")
