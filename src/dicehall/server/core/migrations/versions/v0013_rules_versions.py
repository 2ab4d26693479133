"""rules versions: each game remembers the rules it was made under; old unserved sets retired

games gain ``rules``: the version of its game's rules a game was made under
(``GameEntry.rules_version``). Every game is version 1 but Bull's Eye's: version 2 added
the rulings "the lead does not bet" and "a pot carried at the end goes to the winners"
(commit 3ce5517, 23 Nov 2026). A Bull's Eye game made before them, whose log has the lead
betting, or that ended with a pot left, stays version 1 and gets the version's rulings
written into its options and its snapshot's options (``lead_bets``, ``last_pot_shared``),
so that its moves, bots, replay and proof all follow the rules it was played under; any
other Bull's Eye game is version 2 (where no lead bet and no pot was left, both versions
agree on every move and every figure).

Unserved dice sets of scheme-1 batches (made before migration 0007, committed by one hash
over the whole batch) are retired: the pool's cursor moves past them, so every roll after
the upgrade gets a set committed by a Merkle root. They stay in their batch, served to no
game, and are revealed with it.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-10 00:00:00
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None

#: When "the lead does not bet" was added (commit 3ce5517): no site ran it before.
LEAD_RULING_ADDED = datetime(2026, 11, 23, 13, 38, 41, tzinfo=UTC)
#: Version 1's ruling, as Bull's Eye's entry declares it (written here as it was, so that
#: this migration does the same whatever later code says).
VERSION_1 = {"lead_bets": True, "last_pot_shared": False}


def upgrade() -> None:
    # Plain ALTER TABLE, never a batch rebuild: on SQLite, rebuilding ``games`` drops it, and
    # every row that refers to a game would go with it (ON DELETE CASCADE).
    op.add_column("games", sa.Column("rules", sa.Integer(), server_default="1", nullable=False))
    conn = op.get_bind()
    _bullseye_versions(conn)
    _retire_scheme_1_sets(conn)


def downgrade() -> None:
    op.drop_column("games", "rules")


def _bullseye_versions(conn: sa.Connection) -> None:
    games = conn.execute(
        sa.text(
            "SELECT id, options, seats, snapshot, created_at FROM games WHERE kind = 'bullseye'"
        )
    ).all()
    for game in games:
        events = conn.execute(
            sa.text("SELECT data FROM game_events WHERE game_id = :g ORDER BY seq"),
            {"g": game.id},
        ).scalars()
        old = (
            _created_before_ruling(game.created_at)
            or _ended_with_a_pot(game.snapshot)
            or lead_bet(game.options, int(game.seats), [json.loads(e) for e in events])
        )
        if not old:
            conn.execute(sa.text("UPDATE games SET rules = 2 WHERE id = :g"), {"g": game.id})
            continue
        options = {**json.loads(game.options), **VERSION_1}
        snapshot = game.snapshot
        if snapshot is not None:
            state = json.loads(snapshot)
            state["options"] = {**state["options"], **VERSION_1}
            snapshot = json.dumps(state, separators=(",", ":"))
        conn.execute(
            sa.text("UPDATE games SET rules = 1, options = :o, snapshot = :s WHERE id = :g"),
            {"o": json.dumps(options, separators=(",", ":")), "s": snapshot, "g": game.id},
        )


def _created_before_ruling(created_at: Any) -> bool:
    if isinstance(created_at, str):  # SQLite hands back the stored text
        created_at = datetime.fromisoformat(created_at)
    if created_at.tzinfo is None:
        created_at = created_at.replace(tzinfo=UTC)
    return bool(created_at < LEAD_RULING_ADDED)


def _ended_with_a_pot(snapshot: str | None) -> bool:
    # Version 2 shares a pot still carried at the end; version 1 left it.
    if snapshot is None:
        return False
    state = json.loads(snapshot)
    return state.get("round") is None and state.get("lead_choice") is None and state["pot"] > 0


def lead_bet(options: str, seats: int, events: list[Any]) -> bool:
    """Whether a Bull's Eye game's log has the lead betting (legal only under version 1).

    A log that cannot be replayed at all counts as version 1: that version allows every
    move version 2 does, so it is the one under which an old log can replay."""
    from dataclasses import replace

    from dicehall.engine import codec
    from dicehall.engine.events import Acted, apply_event, decode_event
    from dicehall.games.bullseye import GAME

    try:
        decoded = codec.loads(options, GAME.options_type)
        state = GAME.start(seats, replace(decoded, lead_bets=True))
        for data in events:
            event = decode_event(GAME, data)
            rnd = state.round
            if (
                isinstance(event, Acted)
                and rnd is not None
                and event.seat == rnd.lead
                and getattr(event.action, "bet", 0) > 0
            ):
                return True
            state = apply_event(GAME, state, event)
    except Exception:
        return True
    return False


def _retire_scheme_1_sets(conn: sa.Connection) -> None:
    end = conn.execute(
        sa.text("SELECT MAX(first_set + size) FROM dice_batches WHERE scheme = 1")
    ).scalar()
    if end is None:
        return
    conn.execute(
        sa.text("UPDATE dice_cursor SET next_set = :e WHERE id = 1 AND next_set < :e"),
        {"e": int(end)},
    )
