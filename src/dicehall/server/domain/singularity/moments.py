"""Writing Singularity's moments, in the transaction that ends a game or a tournament.

A finished public game's highlights come from its game's hook (:mod:`dicehall.games.highlights`,
named on its entry), given the game replayed from its log; a private game writes nothing. A
highlight that competes for a record (``record``: a key the game chose, such as
``"boatzee:Triple Boatzee"``) is measured against the best figure stored under that key:
the game's best one beats it only when it is strictly larger, and only when the game was
played to its end. Each game keeps its best figure per key (shown or not), so the next game
is measured against it by one indexed query. A finished tournament writes its winners.

Every end tells the Singularity pages after the commit (``{"type": "singularity"}``), so
they ask again for the moments and the counts.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Connection, Row, Table, func, insert, select

from dicehall.engine.events import decode_event
from dicehall.games.highlights import Highlight, Played, hook_of
from dicehall.server.core.models import Highlight as HighlightRow
from dicehall.server.core.txn import after_commit, publish_site_after_commit
from dicehall.server.domain.games.records import (
    EVENTS,
    GameRecord,
    entry_of,
    load_options,
    load_state,
    variant_title,
)
from dicehall.server.domain.singularity import counts

log = logging.getLogger(__name__)

HIGHLIGHTS = cast(Table, HighlightRow.__table__)

#: The longest text a moment keeps (the column's size).
TEXT_MOST = 300
#: What the pages following the site hear when a game or a tournament ended.
ENDED = {"type": "singularity"}


def changed(conn: Connection) -> None:
    """After the commit: the counts are stale, and the pages should ask again."""
    after_commit(conn, counts.forget)
    publish_site_after_commit(conn, ENDED)


def game_ended(conn: Connection, record: GameRecord) -> None:
    """Game ``record`` finished: write its moments (a public game with a highlights hook),
    and tell the pages after the commit."""
    changed(conn)
    if record.private or record.snapshot is None:
        return
    entry = entry_of(record.kind)
    if entry.highlights is None:
        return
    logged = conn.execute(
        select(EVENTS.c.data).where(EVENTS.c.game_id == record.id).order_by(EVENTS.c.seq)
    ).all()
    try:
        hook = hook_of(entry)
        assert hook is not None
        events = tuple(decode_event(entry.game, json.loads(row.data)) for row in logged)
        played = Played(entry.game, load_options(record), record.seats, events, load_state(record))
        found = list(hook(played))
        if not all(isinstance(highlight, Highlight) for highlight in found):
            raise TypeError("a highlights hook answers Highlight records only")
        complete = played.complete
    except Exception:
        # A game never fails to end for its highlights: its result, ratings and standings
        # are what matter, and the page only misses this game's moments.
        log.exception("the highlights of game %s could not be worked out", record.id)
        return
    _store(conn, record, found, complete)


def best_of(conn: Connection, record_key: str) -> int | None:
    """The best figure stored under ``record_key`` (None: none yet)."""
    found = conn.execute(
        select(func.max(HIGHLIGHTS.c.value)).where(HIGHLIGHTS.c.record == record_key)
    ).scalar_one_or_none()
    return None if found is None else int(found)


def _store(
    conn: Connection, record: GameRecord, found: Sequence[Highlight], complete: bool
) -> None:
    """Write ``found``: what is shown, and each record key's best figure of the game."""
    assert record.ended_at is not None, "a finished game has ended"
    base = {
        "game_id": record.id,
        "tournament_id": None,
        "user_pk": None,
        "title": variant_title(record.kind, record.options)[:80],
        "at": record.ended_at,
    }
    rows: list[dict[str, Any]] = []
    keys: dict[str, list[Highlight]] = {}
    for highlight in found:
        if not 0 <= highlight.seat < record.seats:
            log.warning("game %s: a highlight of seat %s ignored", record.id, highlight.seat)
        elif highlight.record is not None and complete:
            keys.setdefault(highlight.record, []).append(highlight)
        elif highlight.shown:
            rows.append({**base, **_row(highlight)})
    for key, candidates in keys.items():
        # The game's best figure is kept (the next game's measure); the others only when
        # they are worth a look in themselves.
        best = max(candidates, key=lambda h: h.value)
        before = best_of(conn, key)
        beaten = before if before is not None and best.value > before else None
        rows.append({**base, **_row(best, key, beaten)})
        rows.extend({**base, **_row(h)} for h in candidates if h is not best and h.shown)
    if rows:
        conn.execute(insert(HIGHLIGHTS), rows)


def _row(
    highlight: Highlight, record_key: str | None = None, beaten: int | None = None
) -> dict[str, Any]:
    """A highlight's columns, kept under ``record_key``; ``beaten``: the record it beat."""
    row = {
        "seat": highlight.seat,
        "what": highlight.what,
        "text": highlight.text,
        "value": highlight.value,
        "record": record_key,
        "shown": highlight.shown,
    }
    if beaten is not None:
        words = f"a new site record for {highlight.record_title} (the last was {beaten:,})"
        row.update(what="record", text=f"{highlight.text}, {words}"[:TEXT_MOST], shown=True)
    return row


def tournament_finished(
    conn: Connection, tournament: Row[Any], places: Mapping[int, int], at: datetime
) -> None:
    """Tournament ``tournament`` finished with ``places`` (user pk: place): write its
    winners, and tell the pages after the commit."""
    changed(conn)
    winners = sorted(pk for pk, place in places.items() if place == 1)
    title = variant_title(tournament.game, tournament.options)
    rows = [
        {
            "game_id": None,
            "seat": None,
            "tournament_id": tournament.id,
            "user_pk": pk,
            "what": "tournament",
            "title": str(tournament.name)[:80],
            "text": f"{'shared the win of' if len(winners) > 1 else 'won'} the {title} tournament",
            "value": len(places),
            "record": None,
            "shown": True,
            "at": at,
        }
        for pk in winners
    ]
    if rows:
        conn.execute(insert(HIGHLIGHTS), rows)
