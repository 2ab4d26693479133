"""decks: each game's dice keys committed before it starts, and its players' seeds

new tables decks, game_decks, game_seeds and game_faces (a finished deck game's face
counts); games gain next_key and next_shuffle (null: the game's dice come from the old
pool, as every game made before this migration); game_events gain dice_key and
hand_shuffle (what a scheme-3 roll or hand used).

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-10 00:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "decks",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("bags", sa.Boolean(), nullable=False),
        sa.Column("secret", sa.String(length=64), nullable=False),
        sa.Column("keys", sa.Integer(), nullable=False),
        sa.Column("shuffles", sa.Integer(), nullable=False),
        sa.Column("root", sa.String(length=64), nullable=False),
        sa.Column("shuffles_root", sa.String(length=64), nullable=True),
        sa.Column("log_seq", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(op.f("ix_decks_game_id"), "decks", ["game_id"], unique=False)
    op.create_table(
        "game_decks",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("part", sa.Integer(), nullable=False),
        sa.Column("deck_id", sa.Integer(), nullable=False),
        sa.Column("first_key", sa.Integer(), nullable=False),
        sa.Column("first_shuffle", sa.Integer(), nullable=False),
        sa.Column("log_seq", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["deck_id"], ["decks.id"]),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("game_id", "part"),
    )
    op.create_table(
        "game_seeds",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("seed", sa.String(length=128), nullable=False),
        sa.Column("from_key", sa.Integer(), nullable=False),
        sa.Column("from_shuffle", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("game_id", "seat"),
    )
    op.create_table(
        "game_faces",
        sa.Column("game_id", sa.Integer(), nullable=False),
        *(sa.Column(f"f{face}", sa.Integer(), nullable=False) for face in range(1, 7)),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("game_id"),
    )
    # Plain ADD COLUMN: nullable columns need no copy of the (large) tables.
    op.add_column("games", sa.Column("next_key", sa.Integer(), nullable=True))
    op.add_column("games", sa.Column("next_shuffle", sa.Integer(), nullable=True))
    op.add_column("game_events", sa.Column("dice_key", sa.Integer(), nullable=True))
    op.add_column("game_events", sa.Column("hand_shuffle", sa.Integer(), nullable=True))


def downgrade() -> None:
    # Plain DROP COLUMN, never a batch rebuild: on SQLite, rebuilding ``games`` drops it,
    # and every row that refers to a game would go with it (ON DELETE CASCADE).
    op.drop_column("game_events", "hand_shuffle")
    op.drop_column("game_events", "dice_key")
    op.drop_column("games", "next_shuffle")
    op.drop_column("games", "next_key")
    op.drop_table("game_faces")
    op.drop_table("game_seeds")
    op.drop_table("game_decks")
    op.drop_index(op.f("ix_decks_game_id"), table_name="decks")
    op.drop_table("decks")
