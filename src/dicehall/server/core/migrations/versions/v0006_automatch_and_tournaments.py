"""auto-match and tournaments

New tables: automatch_tickets (a player waiting to be matched), tournaments,
tournament_players and tournament_tables (one row per table of each round; a bye is a
table of one without a game).

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-23 19:50:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def _moment(name: str, nullable: bool = False) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def _user(name: str, ondelete: str = "CASCADE") -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint([name], ["users.id"], ondelete=ondelete)


def _game(name: str = "game_id") -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint([name], ["games.id"], ondelete="SET NULL")


def upgrade() -> None:
    op.create_table(
        "automatch_tickets",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_pk", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(length=24), nullable=False),
        sa.Column("options", sa.Text(), nullable=False),
        sa.Column("seats_min", sa.Integer(), nullable=False),
        sa.Column("seats_max", sa.Integer(), nullable=False),
        sa.Column("pace", sa.Text(), nullable=True),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("bots_after", sa.Integer(), nullable=True),
        sa.Column("status", sa.String(length=12), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        _moment("created_at"),
        _moment("matched_at", nullable=True),
        _user("user_pk"),
        _game(),
        sa.PrimaryKeyConstraint("id"),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_automatch_waiting", "automatch_tickets", ["status", "game"])
    op.create_index("ix_automatch_user", "automatch_tickets", ["user_pk", "status"])
    op.create_table(
        "tournaments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=80), nullable=False),
        sa.Column("game", sa.String(length=24), nullable=False),
        sa.Column("options", sa.Text(), nullable=False),
        sa.Column("format", sa.String(length=12), nullable=False),
        sa.Column("table_seats", sa.Integer(), nullable=False),
        sa.Column("size", sa.Integer(), nullable=True),
        sa.Column("rounds", sa.Integer(), nullable=True),
        sa.Column("pace", sa.Text(), nullable=False),
        sa.Column("bank", sa.Integer(), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        _moment("starts_at", nullable=True),
        sa.Column("buddies_only", sa.Boolean(), nullable=False),
        sa.Column("created_by", sa.Integer(), nullable=True),
        sa.Column("schedule_key", sa.String(length=80), nullable=True),
        sa.Column("status", sa.String(length=12), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        _moment("round_deadline", nullable=True),
        _moment("created_at"),
        _moment("started_at", nullable=True),
        _moment("finished_at", nullable=True),
        sa.Column("version", sa.Integer(), nullable=False),
        _user("created_by", ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("schedule_key"),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_tournaments_status", "tournaments", ["status", "starts_at"])
    op.create_table(
        "tournament_players",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("user_pk", sa.Integer(), nullable=False),
        _moment("joined_at"),
        sa.Column("status", sa.String(length=12), nullable=False),
        sa.Column("points", sa.Float(), nullable=False),
        sa.Column("seed", sa.Float(), nullable=False),
        sa.Column("left_round", sa.Integer(), nullable=True),
        sa.Column("place", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournaments.id"], ondelete="CASCADE"),
        _user("user_pk"),
        sa.PrimaryKeyConstraint("tournament_id", "user_pk"),
    )
    op.create_index("ix_tournament_players_user", "tournament_players", ["user_pk"])
    op.create_table(
        "tournament_tables",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("players", sa.Text(), nullable=False),
        sa.Column("points", sa.Text(), nullable=True),
        sa.Column("done", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournaments.id"], ondelete="CASCADE"),
        _game(),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("tournament_id", "round", "number"),
        sa.UniqueConstraint("game_id"),
        sqlite_autoincrement=True,
    )


def downgrade() -> None:
    op.drop_table("tournament_tables")
    op.drop_index("ix_tournament_players_user", table_name="tournament_players")
    op.drop_table("tournament_players")
    op.drop_index("ix_tournaments_status", table_name="tournaments")
    op.drop_table("tournaments")
    op.drop_index("ix_automatch_user", table_name="automatch_tickets")
    op.drop_index("ix_automatch_waiting", table_name="automatch_tickets")
    op.drop_table("automatch_tickets")
