"""The ``tournaments`` job: start the tournaments that are due, close the rounds whose games
are all over or whose deadline has passed, seat the next rounds, finish.

Safe with several processes on several machines: each tournament is one transaction that
takes its locks in the site's order (the games of the round being closed, ascending ids;
then the dice pool's cursor; then the tournament's row) and checks the tournament's state
again under them, so a step another process has just taken is not taken twice. At a
round's deadline a game whose running seat is out of time gets the timeout rule first
(the sweeper may not have come by yet); a game still going after that is aborted (see
:mod:`.results` for how both score).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import partial

from sqlalchemy import Connection, and_, exists, func, or_, select

from dicehall.server.core.clock import aware
from dicehall.server.domain.dice.pool import DicePool
from dicehall.server.domain.games import ending
from dicehall.server.domain.games.records import GameRecord, fetch_game, seats_of
from dicehall.server.domain.services import Services
from dicehall.server.domain.tournaments import rounds
from dicehall.server.domain.tournaments.results import ENDED, round_done, settle_game
from dicehall.server.domain.tournaments.rows import (
    PLAYERS,
    TABLES,
    TOURNAMENTS,
    Row_,
    fetch,
    player_count,
)
from dicehall.server.domain.work import notify, write

NAME = "tournaments"
#: A start-when-full tournament nobody filled is cancelled this long after its creation (a
#: scheduled daily cup at the end of its day).
OPEN_FOR = timedelta(days=7)
#: Tournaments one run of the job steps at most (the rest wait for the next run).
BATCH = 50


def _day_start(at: datetime) -> datetime:
    return at.replace(hour=0, minute=0, second=0, microsecond=0)


def expired(tournament: Row_, at: datetime) -> bool:
    """Whether an open start-when-full ``tournament`` waited too long to fill."""
    if tournament.starts_at is not None:
        return False
    created = aware(tournament.created_at)
    if tournament.schedule_key is not None:
        return created < _day_start(at)
    return created + OPEN_FOR <= at


def due(conn: Connection, at: datetime, limit: int = BATCH) -> list[int]:
    """The tournaments with work at ``at``: to start, to cancel, or a round to close."""
    full = (
        select(func.count()).where(PLAYERS.c.tournament_id == TOURNAMENTS.c.id).scalar_subquery()
        >= TOURNAMENTS.c.size
    )
    opening = and_(
        TOURNAMENTS.c.status == "open",
        or_(
            TOURNAMENTS.c.starts_at <= at,
            and_(
                TOURNAMENTS.c.starts_at.is_(None),
                or_(
                    full,
                    TOURNAMENTS.c.created_at <= at - OPEN_FOR,
                    and_(
                        TOURNAMENTS.c.schedule_key.is_not(None),
                        TOURNAMENTS.c.created_at < _day_start(at),
                    ),
                ),
            ),
        ),
    )
    unfinished = exists().where(
        TABLES.c.tournament_id == TOURNAMENTS.c.id,
        TABLES.c.round == TOURNAMENTS.c.round,
        TABLES.c.done.is_(False),
    )
    closing = and_(
        TOURNAMENTS.c.status == "running",
        or_(TOURNAMENTS.c.round_deadline <= at, ~unfinished),
    )
    rows = conn.execute(
        select(TOURNAMENTS.c.id)
        .where(or_(opening, closing))
        .order_by(TOURNAMENTS.c.id)
        .limit(limit)
    ).scalars()
    return [int(i) for i in rows]


def _past_deadline(tournament: Row_, at: datetime) -> bool:
    deadline = tournament.round_deadline
    return tournament.status == "running" and deadline is not None and aware(deadline) <= at


def step(
    conn: Connection, pool: DicePool, tournament_id: int, at: datetime, work: rounds.Work
) -> int:
    """Do what is due for one tournament at ``at``, in the caller's transaction; 1 when
    something was done."""
    work.games.clear()  # a transaction tried again starts over
    seen = fetch(conn, tournament_id)
    locked: dict[int, GameRecord] = {}
    if _past_deadline(seen, at):
        ids = conn.execute(
            select(TABLES.c.game_id)
            .where(
                TABLES.c.tournament_id == tournament_id,
                TABLES.c.round == seen.round,
                TABLES.c.done.is_(False),
                TABLES.c.game_id.is_not(None),
            )
            .order_by(TABLES.c.game_id)
        ).scalars()
        for game_id in list(ids):
            locked[int(game_id)] = fetch_game(conn, int(game_id), lock=True)
    pool.hold_cursor(conn)
    tournament = fetch(conn, tournament_id, lock=True)
    if tournament.status == "open":
        return _open(conn, pool, tournament, at, work)
    if tournament.status != "running":
        return 0
    if _past_deadline(tournament, at) and tournament.round == seen.round:
        _close(conn, pool, tournament, locked, at, work)
    if not round_done(conn, tournament_id, tournament.round):
        return 0
    rounds.play_on(conn, pool, fetch(conn, tournament_id), at, work)
    return 1


def _open(
    conn: Connection, pool: DicePool, tournament: Row_, at: datetime, work: rounds.Work
) -> int:
    starts_at = tournament.starts_at
    if starts_at is not None:
        if aware(starts_at) > at:
            return 0
        rounds.start(conn, pool, tournament, at, work)
        return 1
    if tournament.size is not None and player_count(conn, tournament.id) >= tournament.size:
        rounds.start(conn, pool, tournament, at, work)
        return 1
    if expired(tournament, at):
        rounds.cancel(conn, tournament, at, "it did not fill in time")
        return 1
    return 0


def _close(
    conn: Connection,
    pool: DicePool,
    tournament: Row_,
    locked: dict[int, GameRecord],
    at: datetime,
    work: rounds.Work,
) -> None:
    # The round's deadline has passed: end every game of it that is still going.
    for table in conn.execute(
        select(TABLES.c.game_id).where(
            TABLES.c.tournament_id == tournament.id,
            TABLES.c.round == tournament.round,
            TABLES.c.done.is_(False),
            TABLES.c.game_id.is_not(None),
        )
    ).all():
        if table.game_id not in locked:
            continue  # seated after this step looked (another process's round): not ours
        record = fetch_game(conn, int(table.game_id), lock=True)
        if record.status in ENDED:
            settle_game(conn, record)
            continue
        if ending.overdue(record, at):
            changed = ending.apply_timeout(conn, pool, record, at)
            if changed is not None:
                record = changed[0]
        if record.status == "active":
            record = ending.end_game(conn, pool, record, "aborted", None)
        work.games.append((record, seats_of(conn, record.id)))


def run(services: Services, at: datetime) -> int:
    """The job: step every tournament with work at ``at``, each in its own transaction;
    how many were stepped."""
    with services.read_conn() as conn:
        ids = due(conn, at)
    done = 0
    for tournament_id in ids:
        work = rounds.Work()
        one = partial(step, pool=services.pool, tournament_id=tournament_id, at=at, work=work)
        done += write(services, one)
        for record, seats in work.games:
            notify(services, record, seats)
    return done
