"""log tree: the public log as an RFC 9162 Merkle tree with signed checkpoints

new table fairness_tree (every perfect subtree of the Merkle tree over the log's records:
level 0 holds each record's leaf hash), filled here for the records already logged; new table
fairness_cosignatures (each witness's latest cosignature of a checkpoint).

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-10 00:00:00
"""

from __future__ import annotations

import hashlib

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    tree = op.create_table(
        "fairness_tree",
        sa.Column("level", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("idx", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("hash", sa.String(length=64), nullable=False),
        sa.PrimaryKeyConstraint("level", "idx"),
    )
    op.create_table(
        "fairness_cosignatures",
        sa.Column("witness_key", sa.String(length=200), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("line", sa.Text(), nullable=False),
        sa.Column("cosigned_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("witness_key"),
    )
    op.create_index(
        "ix_fairness_cosignatures_size", "fairness_cosignatures", ["size"], unique=False
    )
    # The records logged so far: leaf i = SHA-256(0x00 || record i+1's canonical JSON, as
    # stored in body), and each perfect subtree they complete (inner node: 0x01 prefix).
    conn = op.get_bind()
    bodies = conn.execute(sa.text("SELECT body FROM fairness_log ORDER BY seq")).scalars().all()
    levels: list[list[bytes]] = [[]]
    rows: list[dict[str, object]] = []
    for body in bodies:
        node = hashlib.sha256(b"\x00" + str(body).encode("ascii")).digest()
        level = 0
        while True:
            levels[level].append(node)
            rows.append({"level": level, "idx": len(levels[level]) - 1, "hash": node.hex()})
            if len(levels[level]) % 2:
                break
            node = hashlib.sha256(b"\x01" + levels[level][-2] + node).digest()
            level += 1
            if len(levels) == level:
                levels.append([])
        if len(rows) >= 5000:
            op.bulk_insert(tree, rows)
            rows = []
    if rows:
        op.bulk_insert(tree, rows)


def downgrade() -> None:
    op.drop_index("ix_fairness_cosignatures_size", table_name="fairness_cosignatures")
    op.drop_table("fairness_cosignatures")
    op.drop_table("fairness_tree")
