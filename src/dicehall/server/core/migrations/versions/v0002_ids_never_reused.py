"""ids are never reused; idempotency keys are bound to their request; bot driver columns

On SQLite the tables whose ids appear in URLs or key a cache are rebuilt with AUTOINCREMENT,
so a deleted row's id never comes back (PostgreSQL's sequences never reuse an id). Each
idempotency key remembers a hash of the game and body it was first used with. A game says
when a bot (or a roll no human waits for) is due, and which driver holds it until when. A
seat remembers whether its user was invited and has not accepted yet, and when a user joined
it. A dice set remembers whether it served an outcome the table never saw (it is withheld
when its batch is revealed).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23 02:10:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

_NEVER_REUSED = ("users", "api_tokens", "games", "dice_batches")


def upgrade() -> None:
    with op.batch_alter_table("games") as batch_op:
        batch_op.add_column(
            sa.Column("bot_due", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch_op.add_column(sa.Column("driver_lease", sa.DateTime(timezone=True), nullable=True))
        batch_op.create_index("ix_games_bot_due", ["bot_due"], unique=False)
    with op.batch_alter_table("idempotency_keys") as batch_op:
        batch_op.add_column(
            sa.Column("request_hash", sa.String(length=64), nullable=False, server_default="")
        )
    with op.batch_alter_table("game_seats") as batch_op:
        batch_op.add_column(
            sa.Column("invited", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch_op.add_column(sa.Column("joined_at", sa.DateTime(timezone=True), nullable=True))
    with op.batch_alter_table("dice_sets") as batch_op:
        batch_op.add_column(
            sa.Column("withheld", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    if op.get_bind().dialect.name == "sqlite":
        # ``db.migrate`` turns foreign keys off around migrations: dropping the old table
        # would otherwise cascade into every child row.
        for table in _NEVER_REUSED:
            with op.batch_alter_table(
                table, recreate="always", table_kwargs={"sqlite_autoincrement": True}
            ):
                pass


def downgrade() -> None:
    with op.batch_alter_table("dice_sets") as batch_op:
        batch_op.drop_column("withheld")
    with op.batch_alter_table("game_seats") as batch_op:
        batch_op.drop_column("joined_at")
        batch_op.drop_column("invited")
    with op.batch_alter_table("games") as batch_op:
        batch_op.drop_index("ix_games_bot_due")
        batch_op.drop_column("driver_lease")
        batch_op.drop_column("bot_due")
    with op.batch_alter_table("idempotency_keys") as batch_op:
        batch_op.drop_column("request_hash")
