"""How many wait for each game, and how long a ticket can expect to wait.

The estimate is plain history: the median wait of the game's tickets matched in the last
week (its latest :data:`SAMPLE`), less what the ticket has waited already, and never past
the moment its bots would come. No history: no estimate (null), unless bots will come.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, select

from dicehall import games
from dicehall.server.core.clock import aware
from dicehall.server.domain.automatch.records import TICKETS

#: The matched tickets the typical wait is taken from.
WINDOW = timedelta(days=7)
SAMPLE = 200
#: The most recent matches read for all games together.
READ_MAX = 5000


def typical_waits(conn: Connection, at: datetime) -> dict[str, float | None]:
    """Per game, the median seconds its tickets matched in the last week waited (None:
    none matched)."""
    rows = conn.execute(
        select(TICKETS.c.game, TICKETS.c.created_at, TICKETS.c.matched_at)
        .where(TICKETS.c.status == "matched", TICKETS.c.matched_at >= at - WINDOW)
        .order_by(TICKETS.c.matched_at.desc())
        .limit(READ_MAX)
    ).all()
    waits: dict[str, list[float]] = {}
    for row in rows:
        taken = waits.setdefault(row.game, [])
        if len(taken) < SAMPLE:
            taken.append((aware(row.matched_at) - aware(row.created_at)).total_seconds())
    found: dict[str, float | None] = {name: None for name in games.available()}
    found.update({name: statistics.median(values) for name, values in waits.items()})
    return found


def for_ticket(row: Any, waits: Mapping[str, float | None], at: datetime) -> int | None:
    """Seconds waiting ``row`` (a waiting ticket) can still expect, or None: unknown."""
    waited = (at - aware(row.created_at)).total_seconds()
    typical = waits.get(row.game)
    left = None if typical is None else max(0.0, typical - waited)
    if row.bots_after is not None:
        bots = max(0.0, row.bots_after * 60 - waited)
        left = bots if left is None else min(left, bots)
    return None if left is None else round(left)


def queues(
    conn: Connection, at: datetime, waits: Mapping[str, float | None] | None = None
) -> list[dict[str, Any]]:
    """Every game: how many tickets wait for it, how many accept each table size, and the
    typical wait (``waits``: :func:`typical_waits`, when read already)."""
    rows = conn.execute(
        select(TICKETS.c.game, TICKETS.c.seats_min, TICKETS.c.seats_max).where(
            TICKETS.c.status == "waiting"
        )
    ).all()
    counts = Counter(row.game for row in rows)
    sizes: dict[str, Counter[int]] = {}
    for row in rows:
        sizes.setdefault(row.game, Counter()).update(range(row.seats_min, row.seats_max + 1))
    if waits is None:
        waits = typical_waits(conn, at)
    out = []
    for name in games.available():
        entry = games.get(name)
        game = entry.game
        by_size = sizes.get(name, Counter())
        typical = waits.get(name)
        out.append(
            {
                "game": name,
                "title": entry.title,
                "waiting": counts.get(name, 0),
                "by_seats": {
                    str(n): by_size.get(n, 0)
                    for n in range(max(2, game.min_seats), game.max_seats + 1)
                },
                "estimated_wait_s": None if typical is None else round(typical),
            }
        )
    return out
