"""Singularity's live counts: members online now, games in progress by the name their
options give them ("Double Boatzee"), moves in the last hour, games finished today (from
the viewer's midnight) and tournaments running.

Each is one indexed query or a count from the presence store; together they are kept for
:data:`KEEP_SECONDS` per site and day (a page refreshing and every visitor's request cost
one count, not one each), and forgotten here when a game or tournament of this process
ends. Who hides from Who is here is not counted online (the store leaves them out); games
are counted whoever plays them, private ones too (a count names no game).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, cast

from sqlalchemy import Connection, Table, func, select

from dicehall import games
from dicehall.server.core.clock import now
from dicehall.server.core.models import Tournament
from dicehall.server.domain.games.records import EVENTS, GAMES, variant_title
from dicehall.server.domain.notices.zones import local
from dicehall.server.domain.people import here
from dicehall.server.domain.services import Services

TOURNAMENTS = cast(Table, Tournament.__table__)

#: How long counts are kept before they are counted again.
KEEP_SECONDS = 10.0
#: How an event that is a player's move starts (the engine's codec writes it so).
MOVE_PREFIX = '{"type":"acted"'


@dataclass(frozen=True)
class Playing:
    """Games in progress of one kind and variant."""

    game: str
    title: str
    games: int

    def as_json(self) -> dict[str, Any]:
        """As the API sends it."""
        return {"game": self.game, "title": self.title, "games": self.games}


@dataclass(frozen=True)
class Counts:
    """The site's pulse in numbers."""

    online: int
    playing: tuple[Playing, ...]
    moves_last_hour: int
    finished_today: int
    tournaments_running: int

    @property
    def in_progress(self) -> int:
        """Games in progress, of every kind."""
        return sum(p.games for p in self.playing)

    def as_json(self) -> dict[str, Any]:
        """As the API sends it."""
        return {
            "online": self.online,
            "in_progress": self.in_progress,
            "playing": [p.as_json() for p in self.playing],
            "moves_last_hour": self.moves_last_hour,
            "finished_today": self.finished_today,
            "tournaments_running": self.tournaments_running,
        }


#: The counts by site and midnight, and when they were counted.
_kept: dict[tuple[str, datetime], tuple[datetime, Counts]] = {}
_lock = threading.Lock()


def forget() -> None:
    """Count again at the next ask (a game or a tournament of this process ended)."""
    with _lock:
        _kept.clear()


def midnight(zone_name: str | None, at: datetime | None = None) -> datetime:
    """The start of the day ``at`` (now) falls in, in the zone ``zone_name`` (None: UTC),
    in UTC (as the database compares times)."""
    moment = local(at or now(), zone_name)
    return moment.replace(hour=0, minute=0, second=0, microsecond=0).astimezone(UTC)


def live(conn: Connection, services: Services, zone_name: str | None) -> Counts:
    """The counts now, "today" starting at midnight in ``zone_name`` (None: UTC)."""
    day = midnight(zone_name)
    key = (str(services.engine.url), day)
    at = now()
    with _lock:
        kept = _kept.get(key)
    if kept is not None and kept[0] <= at < kept[0] + timedelta(seconds=KEEP_SECONDS):
        return kept[1]
    counted = count(conn, services, day)
    with _lock:
        if len(_kept) > 1000:  # many zones' midnights: start again
            _kept.clear()
        _kept[key] = (at, counted)
    return counted


def count(conn: Connection, services: Services, day: datetime) -> Counts:
    """Every count, afresh (``day``: the midnight "finished today" counts from)."""
    at = now()
    online, _recent = here.counts(services)
    moves = conn.execute(
        select(func.count())
        .select_from(EVENTS)
        .where(EVENTS.c.created_at >= at - timedelta(hours=1))
        .where(EVENTS.c.data.startswith(MOVE_PREFIX, autoescape=True))
    ).scalar_one()
    finished = conn.execute(
        select(func.count())
        .select_from(GAMES)
        .where(GAMES.c.ended_at >= day, GAMES.c.status == "finished")
    ).scalar_one()
    running = conn.execute(
        select(func.count()).select_from(TOURNAMENTS).where(TOURNAMENTS.c.status == "running")
    ).scalar_one()
    return Counts(online, _playing(conn), int(moves), int(finished), int(running))


def _playing(conn: Connection) -> tuple[Playing, ...]:
    """Games in progress by kind and variant, in the site's order of games, then by name."""
    by_title: dict[tuple[str, str], int] = {}
    rows = conn.execute(
        select(GAMES.c.kind, GAMES.c.options, func.count())
        .where(GAMES.c.status == "active")
        .group_by(GAMES.c.kind, GAMES.c.options)
    ).all()
    for kind, options, number in rows:
        title = variant_title(kind, options)
        by_title[kind, title] = by_title.get((kind, title), 0) + int(number)
    order = {name: i for i, name in enumerate(games.available())}
    ranked = sorted(by_title.items(), key=lambda item: (order.get(item[0][0], len(order)), item[0]))
    return tuple(Playing(kind, title, number) for (kind, title), number in ranked)
