"""The matcher: a site job (the sweeper's sibling) that turns waiting tickets into games.

A pass first fills open waiting-room seats that fit a ticket (:mod:`.open_seats`), in one
write transaction: the games it might fill are locked (skipping those another transaction
holds), then the matcher's own lock (:mod:`.locks`; another process filling now means this
one skips), then the waiting tickets ``FOR UPDATE`` (a cancel waits), then each join takes
the dice. Then it plans, on a read connection: the tickets left are grouped into queues
(same game, options, pace and rated) and planned by :mod:`.grouping` from the players'
ratings, their ignores (one query) and who met whom in their last auto-matched game of the
day. Each planned table then starts in a transaction of its own (:func:`start_planned`):
its tickets locked and checked still waiting, the game started (which takes the dice
pool's cursor, and checks the ignores again), its players told. A table commits on its
own so that the dice pool's cursor, which every move takes, is never held for longer than
one game's start. Any process may run a pass at any moment: a table whose tickets another
pass matched first is skipped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache, partial
from typing import Any

from sqlalchemy import Connection, select

from dicehall.engine import codec
from dicehall.server.core.clock import aware
from dicehall.server.core.config import Settings
from dicehall.server.core.models import User
from dicehall.server.domain.automatch import grouping, locks, open_seats
from dicehall.server.domain.automatch.grouping import Pairs, Table, Wanted
from dicehall.server.domain.automatch.records import TICKETS, mark_all_matched
from dicehall.server.domain.dice.pool import DicePool
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.games.matched import Player, label_of, start_matched_game
from dicehall.server.domain.games.pace import Pace
from dicehall.server.domain.games.quotas import GameLimits
from dicehall.server.domain.games.records import SEATS, GameRecord, SeatInfo, entry_of
from dicehall.server.domain.games.seat_draw import claim, draw_seats
from dicehall.server.domain.jobs import Job
from dicehall.server.domain.people import relations
from dicehall.server.domain.ratings import kinds, model
from dicehall.server.domain.ratings.model import Skill
from dicehall.server.domain.ratings.store import RATINGS
from dicehall.server.domain.reliability import limits_of
from dicehall.server.domain.services import Services
from dicehall.server.domain.work import notify, read, write

#: The most waiting tickets one pass takes (the rest wait for the next pass).
PASS_MAX = 2000
#: A player's last auto-matched game counts against meeting the same people for this long.
RECENT = timedelta(days=1)
#: The rating of a player new to the kind, as shown.
NEW_RATING = 1500.0
USERS = User.__table__

Changed = tuple[GameRecord, list[SeatInfo]]
QueueKey = tuple[str, str, str | None, bool]
"""A queue: game, options text, pace text, rated."""


@dataclass(frozen=True)
class Planned:
    """A table to start: its queue, its tickets (rows, oldest first) and its bot seats."""

    key: QueueKey
    tickets: list[Any]
    bots: int


def key_of(row: Any) -> QueueKey:
    """The queue a ticket (row) waits in."""
    return (row.game, row.options, row.pace, bool(row.rated))


# -- the job and its pass ----------------------------------------------------------------------


def job(settings: Settings) -> Job:
    """The matcher as a site job, every ``settings.matcher_seconds`` and when a ticket is
    filed."""
    return Job("automatch", settings.matcher_seconds, run)


def run(services: Services, at: datetime) -> int:
    """One pass: fill open seats if one fits a ticket, then read and plan without a lock
    (most rounds find nothing to do and stop there), then start each planned table in its
    own transaction; the changed games are pushed once committed. How many games it started or
    seated someone in."""

    def fits(conn: Connection) -> bool:
        rows = waiting(conn)
        return bool(rows) and open_seats.any_fit(conn, rows)

    def look(conn: Connection) -> tuple[list[Planned], dict[int, str]]:
        rows = waiting(conn)
        return plan(conn, rows, at), _names(conn, {r.user_pk for r in rows})

    changed: list[Changed] = []
    if read(services, fits):
        limits = limits_of(services.settings)
        changed = write(services, lambda conn: fill_open(conn, services.pool, at, limits))
    tables, names = read(services, look)
    for table in tables:
        started = write(services, partial(start_planned, pool=services.pool, table=table,
                                          names=names, at=at))  # fmt: skip
        if started is not None:
            changed.append(started)
    for record, seats in changed:
        notify(services, record, seats)
    return len(changed)


def work_due(conn: Connection, at: datetime) -> bool:
    """Whether a pass would do something: an open seat that fits a ticket, or a table in
    the plan (read without a lock)."""
    rows = waiting(conn)
    if not rows:
        return False
    return open_seats.any_fit(conn, rows) or bool(plan(conn, rows, at))


def waiting(conn: Connection, *, lock: bool = False) -> list[Any]:
    """The waiting tickets, oldest first (at most :data:`PASS_MAX`); ``lock``: FOR UPDATE."""
    query = (
        select(TICKETS).where(TICKETS.c.status == "waiting").order_by(TICKETS.c.id).limit(PASS_MAX)
    )
    return list(conn.execute(query.with_for_update() if lock else query).all())


def fill_open(
    conn: Connection, pool: DicePool, at: datetime, limits: GameLimits | None = None
) -> list[Changed]:
    """Seat waiting tickets in open waiting-room games that fit them (see the module's
    docstring for the locks); the games changed. Caller commits."""
    peek = conn.execute(
        select(TICKETS.c.game, TICKETS.c.options).where(TICKETS.c.status == "waiting")
    ).all()
    if not peek:
        return []
    game_ids = open_seats.candidates(conn, peek, lock=True)
    if not game_ids or not locks.try_pass(conn):
        return []
    rows = waiting(conn, lock=True)
    names = _names(conn, {r.user_pk for r in rows})
    seated = open_seats.fill(conn, pool, rows, names, at, limits, game_ids)
    return [(s.record, s.seats) for s in seated]


def start_planned(
    conn: Connection, pool: DicePool, table: Planned, names: dict[int, str], at: datetime
) -> Changed | None:
    """Start planned ``table`` if every one of its tickets still waits (locked now); its
    players are told once committed. None: skipped. Caller commits."""
    ids = [r.id for r in table.tickets]
    still = conn.execute(
        select(TICKETS.c.id)
        .where(TICKETS.c.id.in_(ids), TICKETS.c.status == "waiting")
        .order_by(TICKETS.c.id)
        .with_for_update()
    ).scalars()
    if len(list(still)) != len(ids):
        return None  # another pass (or a cancel) got there first
    started = _start(conn, pool, table, names)
    if started is not None:
        mark_all_matched(conn, [([(r.id, r.user_pk) for r in table.tickets], started[0])], at)
    return started


def match(
    conn: Connection, pool: DicePool, at: datetime, limits: GameLimits | None = None
) -> list[Changed]:
    """A whole pass in the caller's transaction (tests and the benchmark; the job commits
    each table on its own, see :func:`run`): open seats, then every planned table."""
    changed = fill_open(conn, pool, at, limits)
    rows = waiting(conn)
    names = _names(conn, {r.user_pk for r in rows})
    for table in plan(conn, rows, at):
        started = start_planned(conn, pool, table, names, at)
        if started is not None:
            changed.append(started)
    return changed


def plan(conn: Connection, rows: Sequence[Any], at: datetime) -> list[Planned]:
    """The tables for waiting tickets ``rows``: their ratings, ignores and recent meetings
    read (a few queries for every queue together), each queue planned by :mod:`.grouping`."""
    queues: dict[QueueKey, list[Any]] = {}
    for row in rows:
        queues.setdefault(key_of(row), []).append(row)
    users = {r.user_pk for r in rows}
    apart = relations.apart_pairs(conn, users)
    recent = recent_pairs(conn, users, at)
    ratings = _ratings(conn, users, {_kind(key[0], key[1]) for key in queues})
    planned: list[Planned] = []
    for key, members in queues.items():
        if len(members) < 2 and not any(_bots_due(r, at) for r in members):
            continue
        kind = _kind(key[0], key[1])
        wanted = [
            Wanted(
                r.id,
                r.user_pk,
                r.seats_min,
                r.seats_max,
                ratings.get((r.user_pk, kind or ""), NEW_RATING),
                _waited(r, at),
                None if r.bots_after is None else r.bots_after * 60.0,
            )
            for r in members
        ]
        by_id = {r.id: r for r in members}
        for table in grouping.plan(wanted, apart, recent):
            planned.append(Planned(key, [by_id[i] for i in table.tickets], table.bots))
    return planned


def recent_pairs(conn: Connection, users: set[int], at: datetime) -> Pairs:
    """Each of ``users`` with everyone who sat in their last auto-matched game of the last
    :data:`RECENT` (two queries)."""
    if not users:
        return set()
    rows = conn.execute(
        select(TICKETS.c.user_pk, TICKETS.c.game_id, TICKETS.c.matched_at).where(
            TICKETS.c.status == "matched",
            TICKETS.c.user_pk.in_(users),
            TICKETS.c.matched_at >= at - RECENT,
            TICKETS.c.game_id.is_not(None),
        )
    ).all()
    last: dict[int, tuple[datetime, int]] = {}
    for row in rows:
        seen = (aware(row.matched_at), int(row.game_id))
        if row.user_pk not in last or seen > last[row.user_pk]:
            last[row.user_pk] = seen
    if not last:
        return set()
    seated: dict[int, list[int]] = {}
    found = conn.execute(
        select(SEATS.c.game_id, SEATS.c.user_pk).where(
            SEATS.c.game_id.in_({game for _, game in last.values()}),
            SEATS.c.user_pk.is_not(None),
        )
    )
    for game_id, user_pk in found:
        seated.setdefault(int(game_id), []).append(int(user_pk))
    return {
        frozenset((user, other))
        for user, (_, game) in last.items()
        for other in seated.get(game, [])
        if other != user
    }


# -- helpers -------------------------------------------------------------------------------------


def _waited(row: Any, at: datetime) -> float:
    return (at - aware(row.created_at)).total_seconds()


def _bots_due(row: Any, at: datetime) -> bool:
    return row.bots_after is not None and _waited(row, at) >= row.bots_after * 60


@lru_cache(maxsize=256)
def _options(game: str, options_text: str) -> Any:
    return codec.loads(options_text, entry_of(game).game.options_type)


@lru_cache(maxsize=256)
def _kind(game: str, options_text: str) -> str | None:
    return kinds.kind_of(game, _options(game, options_text))


def _ratings(conn: Connection, users: set[int], wanted: set[str | None]) -> dict[Any, float]:
    """Each player's shown rating of each kind asked for ((user pk, kind) -> rating)."""
    named = {k for k in wanted if k is not None}
    if not users or not named:
        return {}
    rows = conn.execute(
        select(RATINGS.c.user_pk, RATINGS.c.kind, RATINGS.c.mu, RATINGS.c.sigma).where(
            RATINGS.c.user_pk.in_(users), RATINGS.c.kind.in_(named)
        )
    )
    return {(r.user_pk, r.kind): float(model.shown(Skill(r.mu, r.sigma))) for r in rows}


def _names(conn: Connection, users: set[int]) -> dict[int, str]:
    if not users:
        return {}
    rows = conn.execute(select(USERS.c.id, USERS.c.user_id).where(USERS.c.id.in_(users)))
    return {int(r.id): str(r.user_id) for r in rows}


def match_bot(game: str) -> str:
    """The bot that fills missing seats: the game's strongest bot that answers at once (its
    autopilot when only ``random`` does)."""
    entry = entry_of(game)
    quick = [name for name, _ in entry.ranked_bots() if name not in entry.slow_bots]
    best = quick[-1] if quick else "random"
    return entry.autopilot_bot() if best == "random" else best


def _start(
    conn: Connection, pool: DicePool, table: Planned, names: dict[int, str]
) -> Changed | None:
    game, options_text, pace_text, rated = table.key
    players = [Player(user_pk=r.user_pk, user_id=names.get(r.user_pk)) for r in table.tickets]
    players += [Player(bot=match_bot(game))] * table.bots
    draw = draw_seats(conn, pool, players, [label_of(p) for p in players], game)
    try:
        record, seats = start_matched_game(
            conn,
            pool,
            game,
            _options(game, options_text),
            draw.order,
            pace=Pace.loads(pace_text),
            rated=rated,
            created_by=table.tickets[0].user_pk,
        )
    except Refused:
        return None  # an ignore made since the plan read them: they wait for the next pass
    claim(conn, draw, record.id)
    return record, seats


def tables_of(planned: Sequence[Planned]) -> list[Table]:
    """The plan as :class:`grouping.Table` values (tests and the benchmark)."""
    return [Table(tuple(r.id for r in p.tickets), p.bots) for p in planned]
