"""Auto-match's locks on PostgreSQL (SQLite runs one writer at a time and needs none).

Transaction advisory locks in their own space: key 0 is the matcher's filling of open
seats (tried, never waited for: another process filling now means this one skips), a
user's pk is that player's filings (so two filings at once cannot both find no waiting
ticket and both add one). A filing takes its player's lock before anything else. The
filling of open seats takes its lock after the game rows it fills and before the tickets;
the dice pool's cursor comes last, when a join or a new game takes dice. No move ever
waits for an auto-match lock or a ticket, and a table's start locks only its tickets
before the cursor, so no order here can close a cycle with a move's (game row, then
cursor) or with one another.
"""

from __future__ import annotations

from sqlalchemy import Connection, text

#: The first key of auto-match's advisory locks (the ladders use 0x1ADD).
LOCK_SPACE = 0xA7C4
PASS_KEY = 0


def _postgres(conn: Connection) -> bool:
    return conn.dialect.name == "postgresql"


def lock_player(conn: Connection, user_pk: int) -> None:
    """Hold ``user_pk``'s filing lock until the transaction ends."""
    if _postgres(conn):
        conn.execute(
            text("SELECT pg_advisory_xact_lock(:space, :key)"),
            {"space": LOCK_SPACE, "key": user_pk},
        )


def try_pass(conn: Connection) -> bool:
    """Take the matcher's lock unless another process holds it; whether this transaction
    may match."""
    if not _postgres(conn):
        return True
    got = conn.execute(
        text("SELECT pg_try_advisory_xact_lock(:space, :key)"),
        {"space": LOCK_SPACE, "key": PASS_KEY},
    ).scalar_one()
    return bool(got)
