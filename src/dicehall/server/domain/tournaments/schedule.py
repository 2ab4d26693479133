"""Scheduled tournaments: the ``tournament-schedule`` job creates them from the settings.

``settings.tournament_schedule`` names what the site runs (``"daily-cup,weekly-swiss"``;
empty: nothing):

- ``daily-cup``: each day, a cup per game that starts as soon as it is full (4 players, or
  the next size with an exact schedule at the game's table), at tables of 2 (or the
  game's smallest), at the ``live`` pace; cancelled at the day's end if it did not fill;
- ``weekly-swiss``: a Swiss of 5 rounds per game, starting next Monday at 18:00 UTC, at the
  ``brisk`` pace, open to whoever joins before the start.

Each slot of the schedule has a key (``daily-cup:<game>:<day>``,
``weekly-swiss:<game>:<start day>``) that is unique in the table, and the row is inserted
with ``ON CONFLICT DO NOTHING``, so several processes on several machines create each
tournament once.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from sqlalchemy import Connection, select
from sqlalchemy.dialects import postgresql, sqlite

from dicehall import games
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.services import Services
from dicehall.server.domain.tournaments import cup
from dicehall.server.domain.tournaments.create import MOST_CUP, row_values, validate
from dicehall.server.domain.tournaments.rows import TOURNAMENTS, allowed_tables
from dicehall.server.domain.work import write

log = logging.getLogger(__name__)

NAME = "tournament-schedule"
#: How often the job looks (it only inserts what is missing).
PERIOD = 600.0
KINDS = ("daily-cup", "weekly-swiss")
DAILY_SIZE = 4
WEEKLY_ROUNDS = 5
#: The weekly Swiss starts on Mondays at this hour (UTC).
WEEKLY_HOUR = 18


def wanted(schedule: str) -> list[str]:
    """The kinds of scheduled tournament ``schedule`` names (unknown names are logged)."""
    kinds = []
    for part in schedule.split(","):
        name = part.strip().lower()
        if not name:
            continue
        if name in KINDS:
            kinds.append(name)
        else:
            log.warning("unknown scheduled tournament %r (known: %s)", name, ", ".join(KINDS))
    return kinds


def next_monday(at: datetime) -> datetime:
    """The first Monday 18:00 UTC after ``at``."""
    day = at.replace(hour=WEEKLY_HOUR, minute=0, second=0, microsecond=0)
    start = day + timedelta(days=(-at.weekday()) % 7)
    return start if start > at else start + timedelta(days=7)


def _table_and_size(game: str) -> tuple[int, int]:
    options = games.get(game).game.options({})
    allowed = allowed_tables(game, options) or [2]
    table = 2 if 2 in allowed else min(allowed)
    size = next(
        (n for n in range(DAILY_SIZE, MOST_CUP + 1) if cup.cup_problem(n, table) is None),
        DAILY_SIZE,
    )
    return table, size


def slot(kind: str, game: str, at: datetime) -> tuple[str, dict[str, Any]]:
    """The key and the specification of scheduled tournament ``kind`` of ``game`` due at
    ``at``."""
    title = games.get(game).title
    table, size = _table_and_size(game)
    if kind == "daily-cup":
        spec: dict[str, Any] = {
            "name": f"Daily {title} cup",
            "format": "cup",
            "size": size,
            "pace": "live",
            "starts_at": None,
        }
        key = f"daily-cup:{game}:{at.date().isoformat()}"
    else:
        starts = next_monday(at)
        spec = {
            "name": f"Weekly {title} Swiss",
            "format": "swiss",
            "rounds": WEEKLY_ROUNDS,
            "pace": "brisk",
            "starts_at": starts,
        }
        key = f"weekly-swiss:{game}:{starts.date().isoformat()}"
    return key, {**spec, "game": game, "options": {}, "table": table, "rated": True}


def ensure(conn: Connection, key: str, spec: dict[str, Any], at: datetime) -> bool:
    """Create the scheduled tournament ``key`` unless it exists; whether this call did."""
    values = row_values({**validate(spec, at), "created_by": None, "schedule_key": key}, at)
    dialect: Any = postgresql if conn.dialect.name == "postgresql" else sqlite
    statement = (
        dialect.insert(TOURNAMENTS)
        .values(**values)
        .on_conflict_do_nothing(index_elements=[TOURNAMENTS.c.schedule_key])
        .returning(TOURNAMENTS.c.id)
    )
    return conn.execute(statement).first() is not None


def due(conn: Connection, kinds: list[str], at: datetime) -> list[tuple[str, dict[str, Any]]]:
    """The scheduled tournaments missing at ``at`` (a read)."""
    slots = [slot(kind, game, at) for kind in kinds for game in games.available()]
    if not slots:
        return []
    have = set(
        conn.execute(
            select(TOURNAMENTS.c.schedule_key).where(
                TOURNAMENTS.c.schedule_key.in_([key for key, _ in slots])
            )
        ).scalars()
    )
    return [(key, spec) for key, spec in slots if key not in have]


def run(services: Services, at: datetime) -> int:
    """The job: create what the schedule wants and nobody created yet; how many."""
    kinds = wanted(services.settings.tournament_schedule)
    if not kinds:
        return 0
    with services.read_conn() as conn:
        missing = due(conn, kinds, at)
    made = 0
    for key, spec in missing:
        try:
            made += int(write(services, partial(ensure, key=key, spec=spec, at=at)))
        except Refused as exc:  # a plug-in game no scheduled format fits: skip it
            log.warning("scheduled tournament %s not created: %s", key, exc.message)
    return made
