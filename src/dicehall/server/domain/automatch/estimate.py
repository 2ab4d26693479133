"""What auto-match offers, how many wait for each choice, and how long a ticket can expect
to wait.

A game is offered once per variant its rating kinds name (Boatzee, Double and Triple
Boatzee: its columns), else once with its default options. A ticket is matched only with
tickets of the same game and options, so each variant has its own queue.

The estimate is plain history: the median wait of the tickets with the same game and
options matched in the last week (their latest :data:`SAMPLE`), less what the ticket has
waited already, and never past the moment its bots would come. No history: no estimate
(null), unless bots will come.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, select

from dicehall import games
from dicehall.engine import codec
from dicehall.engine.errors import InvalidOptions
from dicehall.server.core.clock import aware
from dicehall.server.domain.automatch.records import TICKETS
from dicehall.server.domain.games.records import variant_title

#: The matched tickets the typical wait is taken from.
WINDOW = timedelta(days=7)
SAMPLE = 200
#: The most recent matches read for all games together.
READ_MAX = 5000


@dataclass(frozen=True)
class Variant:
    """One choice auto-match offers: a game with the options that make the variant."""

    #: Its name in forms and answers: the rating kind that names it ("boatzee-double"), or
    #: the game's name for a game offered once.
    key: str
    game: str
    #: The options that make it, over the game's defaults, as the game parses them.
    options: Mapping[str, Any]
    #: All its options as stored on a ticket (``codec.dumps``).
    options_text: str
    title: str


def variants() -> tuple[Variant, ...]:
    """Every choice auto-match offers, in the site's order of games."""
    found: list[Variant] = []
    for name in games.available():
        entry = games.get(name)
        chosen: list[Variant] = []
        for spec in entry.rated_kinds():
            if not spec.options:
                continue
            try:
                options = entry.game.options(dict(spec.options))
            except InvalidOptions:  # a kind whose options the game does not take alone
                continue
            title = variant_title(name, options)
            chosen.append(Variant(spec.name, name, dict(spec.options), codec.dumps(options), title))
        if not chosen:
            defaults = entry.game.options({})
            chosen = [Variant(name, name, {}, codec.dumps(defaults), entry.title)]
        found.extend(chosen)
    return tuple(found)


def variant(key: str) -> Variant | None:
    """The variant named ``key``, or None."""
    return next((v for v in variants() if v.key == key), None)


@dataclass(frozen=True)
class Waits:
    """The median seconds waited by the tickets matched in the last week, per game and per
    game and options (a queue); a queue with none matched is left out."""

    by_game: dict[str, float] = field(default_factory=dict)
    by_queue: dict[tuple[str, str], float] = field(default_factory=dict)


def typical_waits(conn: Connection, at: datetime) -> Waits:
    """The typical waits of the last week (see :class:`Waits`)."""
    rows = conn.execute(
        select(TICKETS.c.game, TICKETS.c.options, TICKETS.c.created_at, TICKETS.c.matched_at)
        .where(TICKETS.c.status == "matched", TICKETS.c.matched_at >= at - WINDOW)
        .order_by(TICKETS.c.matched_at.desc())
        .limit(READ_MAX)
    ).all()
    per_game: dict[str, list[float]] = {}
    per_queue: dict[tuple[str, str], list[float]] = {}
    for row in rows:
        waited = (aware(row.matched_at) - aware(row.created_at)).total_seconds()
        for taken in (
            per_game.setdefault(row.game, []),
            per_queue.setdefault((row.game, row.options), []),
        ):
            if len(taken) < SAMPLE:
                taken.append(waited)
    return Waits(
        {name: statistics.median(values) for name, values in per_game.items()},
        {key: statistics.median(values) for key, values in per_queue.items()},
    )


def for_ticket(row: Any, waits: Waits, at: datetime) -> int | None:
    """Seconds waiting ``row`` (a waiting ticket) can still expect, or None: unknown."""
    waited = (at - aware(row.created_at)).total_seconds()
    typical = waits.by_queue.get((row.game, row.options))
    left = None if typical is None else max(0.0, typical - waited)
    if row.bots_after is not None:
        bots = max(0.0, row.bots_after * 60 - waited)
        left = bots if left is None else min(left, bots)
    return None if left is None else round(left)


def _seat_range(name: str) -> range:
    game = games.get(name).game
    return range(max(2, game.min_seats), game.max_seats + 1)


def _queue(rows: list[Any], seats: range, typical: float | None) -> dict[str, Any]:
    by_size: Counter[int] = Counter()
    for row in rows:
        by_size.update(range(row.seats_min, row.seats_max + 1))
    return {
        "waiting": len(rows),
        "by_seats": {str(n): by_size.get(n, 0) for n in seats},
        "estimated_wait_s": None if typical is None else round(typical),
    }


def queues(conn: Connection, at: datetime, waits: Waits | None = None) -> list[dict[str, Any]]:
    """Every game: how many tickets wait for it (any options), how many accept each table
    size, and the typical wait; and the same for each of its variants (``variants``).
    ``waits``: :func:`typical_waits`, when read already."""
    rows = conn.execute(
        select(TICKETS.c.game, TICKETS.c.options, TICKETS.c.seats_min, TICKETS.c.seats_max).where(
            TICKETS.c.status == "waiting"
        )
    ).all()
    if waits is None:
        waits = typical_waits(conn, at)
    offered = variants()
    out = []
    for name in games.available():
        seats = _seat_range(name)
        mine = [row for row in rows if row.game == name]
        queued = [
            {
                "key": v.key,
                "title": v.title,
                "options": codec.encode(
                    codec.loads(v.options_text, games.get(name).game.options_type)
                ),
                **_queue(
                    [row for row in mine if row.options == v.options_text],
                    seats,
                    waits.by_queue.get((name, v.options_text)),
                ),
            }
            for v in offered
            if v.game == name
        ]
        out.append(
            {
                "game": name,
                "title": games.get(name).title,
                **_queue(mine, seats, waits.by_game.get(name)),
                "variants": queued,
            }
        )
    return out
