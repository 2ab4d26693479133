"""fair dice: Merkle commitments, committed bags, a chained public log

dice_batches gain ``scheme`` (1: the old whole-batch SHA-256, kept for every batch made
before; 2: a Merkle root over salted leaves), ``root`` and ``log_seq``; dice_sets gain each
leaf's ``salt``. New tables: bag_batches, bag_shuffles, bag_cursor (pre-shuffled Hold'em
bags) and fairness_log (the hash-chained records). game_events gain ``bag_shuffle``; games
gain ``seat_draw`` (a seat order drawn with committed dice). Old batches stay exactly as
they were and verifiable by ``dicehall verify-dice``.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-23 23:10:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("dice_batches", schema=None) as batch_op:
        batch_op.add_column(sa.Column("scheme", sa.Integer(), server_default="1", nullable=False))
        batch_op.add_column(sa.Column("root", sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column("log_seq", sa.Integer(), nullable=True))
    with op.batch_alter_table("dice_sets", schema=None) as batch_op:
        batch_op.add_column(sa.Column("salt", sa.String(length=64), nullable=True))
    with op.batch_alter_table("game_events", schema=None) as batch_op:
        batch_op.add_column(sa.Column("bag_shuffle", sa.BigInteger(), nullable=True))
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("seat_draw", sa.Text(), nullable=True))
    op.create_table(
        "bag_batches",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("root", sa.String(length=64), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("first_shuffle", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("log_seq", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sqlite_autoincrement=True,
    )
    op.create_table(
        "bag_shuffles",
        sa.Column("id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("batch_id", sa.Integer(), nullable=False),
        sa.Column("colours", sa.String(length=20), nullable=False),
        sa.Column("salt", sa.String(length=64), nullable=False),
        sa.Column("secret", sa.String(length=64), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["batch_id"], ["bag_batches.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("bag_shuffles", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_bag_shuffles_batch_id"), ["batch_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_bag_shuffles_game_id"), ["game_id"], unique=False)
    op.create_table(
        "bag_cursor",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("next_shuffle", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_table(
        "fairness_log",
        sa.Column("seq", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("batch_id", sa.Integer(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("hash", sa.String(length=64), nullable=False),
        sa.PrimaryKeyConstraint("seq"),
        sa.UniqueConstraint("kind", "batch_id"),
    )


def downgrade() -> None:
    op.drop_table("fairness_log")
    op.drop_table("bag_cursor")
    with op.batch_alter_table("bag_shuffles", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_bag_shuffles_game_id"))
        batch_op.drop_index(batch_op.f("ix_bag_shuffles_batch_id"))
    op.drop_table("bag_shuffles")
    op.drop_table("bag_batches")
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_column("seat_draw")
    with op.batch_alter_table("game_events", schema=None) as batch_op:
        batch_op.drop_column("bag_shuffle")
    with op.batch_alter_table("dice_sets", schema=None) as batch_op:
        batch_op.drop_column("salt")
    with op.batch_alter_table("dice_batches", schema=None) as batch_op:
        batch_op.drop_column("log_seq")
        batch_op.drop_column("root")
        batch_op.drop_column("scheme")
