"""log tree: the public log as an RFC 9162 Merkle tree with signed checkpoints

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-10 00:00:00
"""

from __future__ import annotations

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
