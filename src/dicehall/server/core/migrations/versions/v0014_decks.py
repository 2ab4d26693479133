"""decks: each game's dice keys committed at its start, and its players' seeds

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-10 00:00:00
"""

from __future__ import annotations

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
