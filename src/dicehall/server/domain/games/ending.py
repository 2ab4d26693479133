"""How games end besides by their rules: timeouts, resigning, aborting, the autopilot, and
the site's ranking of a finished game.

A seat's clock runs out: vacation saves it if the game allows it at a pace of a day or more
(see :mod:`~dicehall.server.domain.vacation`), and the clock keeps what saved it for the
board to say; otherwise in a 2-seat game the seat loses, or the game is aborted when some
person has not moved yet; in a game of 3+ seats the game's autopilot bot plays the seat from
then on (its owner may take it back). Resigning is the same by choice. A seat that resigned
or timed out ranks below every seat that finished under its own control.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Connection, Table, insert, select, update

from dicehall.server.core.clock import now
from dicehall.server.core.models import SeatTimeout, User
from dicehall.server.domain import notifications, vacation
from dicehall.server.domain.dice.pool import DicePool
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.games import notice_texts
from dicehall.server.domain.games.notice_texts import time_left as time_left
from dicehall.server.domain.games.pace import Clock, Pace, vacation_saves
from dicehall.server.domain.games.play import advance, store, withhold_unshown_dice, write_game
from dicehall.server.domain.games.records import (
    GAMES,
    SEATS,
    GameRecord,
    SeatInfo,
    Step,
    entry_of,
    fetch_game,
    load_state,
    seats_of,
)
from dicehall.server.domain.people.settings import of as settings_of
from dicehall.server.domain.people.settings import reminders_of

SEAT_TIMEOUTS = cast(Table, SeatTimeout.__table__)
#: The most hours of vacation one timeout may spend catching up (a sweeper that was down).
MOST_HOURS_AT_ONCE = 24 * 30

Changed = tuple[GameRecord, list[SeatInfo]]


def overdue(record: GameRecord, at: datetime) -> bool:
    """Whether the running seat's time ran out by ``at``."""
    return record.status == "active" and record.deadline is not None and record.deadline <= at


def _seat_of(seats: Sequence[SeatInfo], user: User) -> SeatInfo:
    mine = next((s for s in seats if s.user_pk == user.id), None)
    if mine is None:
        raise Refused("forbidden", "not_your_game", "you have no seat in this game")
    return mine


def _check_version(record: GameRecord, expected_version: int) -> None:
    if expected_version != record.version:
        raise Refused(
            "conflict",
            "stale",
            f"the game has moved on (version {record.version}, you sent {expected_version})",
            version=record.version,
        )


def _leave(
    conn: Connection, record: GameRecord, seats: list[SeatInfo], seat: int, status: str
) -> None:
    conn.execute(
        update(SEATS)
        .where(SEATS.c.game_id == record.id, SEATS.c.seat == seat)
        .values(status=status, left_version=record.version)
    )
    seats[seat] = replace(seats[seat], status=status, left_version=record.version)
    user_pk = seats[seat].user_pk
    if status == "resigned" and user_pk is not None:
        # Who resigned has left: the bell keeps no line about the game for them.
        notifications.forget_game(conn, user_pk, record.id)


#: Why a seat forfeits a 2-seat game (its ``forfeit.reason`` in the result).
FORFEIT_REASONS = ("resigned", "timed_out")


def forfeit_result(record: GameRecord, winner: int, seat: int, reason: str) -> str:
    """The result of a 2-seat game the other seat won by ``seat``'s resigning or timeout:
    the scores as they stood, and what ended it."""
    game = entry_of(record.kind).game
    standing = game.standing(load_state(record)) if record.snapshot is not None else None
    scores = list(standing.scores) if standing is not None else [0] * record.seats
    return json.dumps(
        {
            "type": "result",
            "winners": [winner],
            "scores": scores,
            "turns": standing.number if standing is not None else 0,
            "forfeit": {"seat": seat, "reason": reason},
        },
        separators=(",", ":"),
    )


def end_game(
    conn: Connection,
    pool: DicePool,
    record: GameRecord,
    status: str,
    result: str | None,
) -> GameRecord:
    """End a started game now (finished with ``result``, or aborted with none): the clock
    stops, dice no seat saw are withheld, and spent batches whose games all ended are
    revealed."""
    moment = now()
    clock = Clock.loads(record.clock) if record.clock else None
    if clock is not None:
        clock = clock.pass_to(None, None, moment)
    new = replace(
        record,
        status=status,
        version=record.version + 1,
        to_act=None,
        result=result,
        updated_at=moment,
        bot_due=False,
        clock=None if clock is None else clock.dumps(),
        deadline=None,
        ended_at=moment,
    )
    write_game(conn, new)
    withhold_unshown_dice(conn, record)
    pool.reveal_ready(conn)
    return new


def _play_on(
    conn: Connection, pool: DicePool, record: GameRecord, seats: list[SeatInfo]
) -> GameRecord:
    # A seat changed hands (to the autopilot, or back): let bots and dice go on at once.
    state = load_state(record)
    steps: list[Step] = []
    state = advance(conn, pool, record, seats, state, steps)
    return store(conn, record, seats, state, steps)


def _someone_never_moved(seats: Sequence[SeatInfo]) -> bool:
    return any(s.user_pk is not None and not s.moved for s in seats)


# -- timeouts ------------------------------------------------------------------------------------


def apply_timeout(
    conn: Connection, pool: DicePool, record: GameRecord, at: datetime
) -> Changed | None:
    """Apply the timeout rule to a game whose running seat is out of time (row locked by
    the caller); None when it is not overdue (any more)."""
    if not overdue(record, at) or record.clock is None:
        return None
    clock = Clock.loads(record.clock)
    seat = clock.running
    deadline = clock.deadline()
    if seat is None or deadline is None:
        return None
    seats = seats_of(conn, record.id)
    user_pk = seats[seat].user_pk
    # Never at a pace under a day, even in a game stored with vacation on before that rule.
    if vacation_saves(record.vacation, Pace.loads(record.pace)) and user_pk is not None:
        saved = _vacation(conn, user_pk, deadline, at)
        if saved is not None:
            extended = clock.extended_to(saved.until, saved.by)
            new = replace(record, clock=extended.dumps(), deadline=saved.until)
            reminders = extended.reminders(reminders_of(conn, user_pk))
            write_game(conn, new, reminders[0] if reminders else None)
            zone = settings_of(conn, user_pk).time_zone
            notifications.add(
                conn,
                user_pk,
                "vacation",
                record.id,
                f"Your time ran out in "
                f"{notice_texts.game_title(record.kind, record.options)} (game "
                f"{record.id}); vacation moved your deadline to "
                f"{notice_texts.exact_time(saved.until, zone)}.",
            )
            return new, seats
    conn.execute(
        insert(SEAT_TIMEOUTS).values(
            game_id=record.id, seat=seat, version=record.version, user_pk=user_pk, at=at
        )
    )
    if user_pk is not None:
        notifications.add(
            conn, user_pk, "timed_out", record.id, notice_texts.timed_out(record, seats, seat)
        )
    if record.seats == 2:
        if _someone_never_moved(seats):
            _leave(conn, record, seats, seat, "timed_out")
            return end_game(conn, pool, record, "aborted", None), seats
        _leave(conn, record, seats, seat, "timed_out")
        result = forfeit_result(record, 1 - seat, seat, "timed_out")
        return end_game(conn, pool, record, "finished", result), seats
    _leave(conn, record, seats, seat, "autopilot")
    return _play_on(conn, pool, record, seats), seats


def _vacation(
    conn: Connection, user_pk: int, deadline: datetime, at: datetime
) -> vacation.Saved | None:
    # Spend floating hours until the deadline lies ahead (more than one only when the
    # sweeper was down), or the allowance runs out.
    moment = deadline
    for _ in range(MOST_HOURS_AT_ONCE):
        saved = vacation.save_from_timeout(conn, user_pk, moment)
        if saved is None:
            return None
        if saved.until > at:
            return saved
        moment = saved.until
    return None


def work_due(conn: Connection, at: datetime) -> bool:
    """Whether a timeout or a reminder is due by ``at`` (a cheap read before the sweep's
    write transaction)."""
    due = select(GAMES.c.id).where(
        GAMES.c.status == "active", (GAMES.c.deadline <= at) | (GAMES.c.remind_at <= at)
    )
    return conn.execute(due.limit(1)).first() is not None


def overdue_games(conn: Connection, at: datetime, limit: int) -> list[int]:
    """Games whose running seat ran out of time by ``at``, longest overdue first."""
    rows = conn.execute(
        select(GAMES.c.id)
        .where(GAMES.c.status == "active", GAMES.c.deadline <= at)
        .order_by(GAMES.c.deadline)
        .limit(limit)
    ).scalars()
    return [int(i) for i in rows]


def sweep(conn: Connection, pool: DicePool, at: datetime, limit: int = 50) -> list[Changed]:
    """Apply every timeout due by ``at`` (up to ``limit`` games). Safe with several sweepers
    on several machines: each game is locked (PostgreSQL skips games another sweeper holds;
    SQLite's writers take turns) and checked again under the lock."""
    query = (
        select(GAMES.c.id)
        .where(GAMES.c.status == "active", GAMES.c.deadline <= at)
        .order_by(GAMES.c.deadline)
        .limit(limit)
        .with_for_update(skip_locked=True)
    )
    changed = []
    for game_id in list(conn.execute(query).scalars()):
        done = apply_timeout(conn, pool, fetch_game(conn, int(game_id), lock=True), at)
        if done is not None:
            changed.append(done)
    return changed


def remind(conn: Connection, at: datetime, limit: int = 50) -> int:
    """Send the clock reminders due by ``at`` (80% of a turn's time used, an hour left);
    return how many were sent."""
    query = (
        select(GAMES.c.id)
        .where(GAMES.c.status == "active", GAMES.c.remind_at <= at)
        .order_by(GAMES.c.remind_at)
        .limit(limit)
        .with_for_update(skip_locked=True)
    )
    sent = 0
    for game_id in list(conn.execute(query).scalars()):
        record = fetch_game(conn, int(game_id), lock=True)
        if record.status != "active" or record.clock is None:
            continue
        clock = Clock.loads(record.clock)
        seats = [] if clock.running is None else seats_of(conn, record.id)
        user_pk = None if clock.running is None else seats[clock.running].user_pk
        marks = reminders_of(conn, user_pk)
        due = [mark for mark in clock.reminders(marks) if mark <= at]
        if clock.running is not None and due:
            left = clock.remaining(clock.running, at)
            if user_pk is not None:
                notifications.add(
                    conn,
                    user_pk,
                    "time_low",
                    record.id,
                    notice_texts.time_low(record, seats, clock.running, time_left(left)),
                )
                sent += 1
        clock = replace(clock, reminded=clock.reminded + len(due))
        later = clock.reminders(marks)
        conn.execute(
            update(GAMES)
            .where(GAMES.c.id == record.id)
            .values(clock=clock.dumps(), remind_at=later[0] if later else None)
        )
    return sent


# -- resigning, aborting, taking a seat back -----------------------------------------------------


def resign(
    conn: Connection, pool: DicePool, user: User, record: GameRecord, expected_version: int
) -> Changed:
    """Resign my seat: in 2 seats the other seat wins; in 3+ the autopilot plays my seat and
    I rank last of those still in. Asking again answers the game as it is."""
    seats = seats_of(conn, record.id)
    mine = _seat_of(seats, user)
    if mine.status == "resigned":
        return record, seats
    if record.status != "active":
        raise Refused("conflict", record.status, f"this game is {record.status}")
    _check_version(record, expected_version)
    _leave(conn, record, seats, mine.seat, "resigned")
    if record.seats == 2:
        result = forfeit_result(record, 1 - mine.seat, mine.seat, "resigned")
        return end_game(conn, pool, record, "finished", result), seats
    return _play_on(conn, pool, record, seats), seats


def abort(
    conn: Connection, pool: DicePool, user: User, record: GameRecord, expected_version: int
) -> Changed:
    """Call off a started game while some person at it has not moved yet (no result, no
    rating). Asking again answers the game as it is."""
    seats = seats_of(conn, record.id)
    _seat_of(seats, user)
    if record.status == "aborted":
        return record, seats
    if record.status != "active":
        raise Refused("conflict", record.status, f"this game is {record.status}")
    _check_version(record, expected_version)
    if not _someone_never_moved(seats):
        raise Refused(
            "conflict",
            "everyone_moved",
            "every player has moved, so the game can no longer be aborted; resign instead",
        )
    return end_game(conn, pool, record, "aborted", None), seats


def take_back(
    conn: Connection, pool: DicePool, user: User, record: GameRecord, expected_version: int
) -> Changed:
    """Take my seat back from the autopilot (after a timeout), before the game ends."""
    seats = seats_of(conn, record.id)
    mine = _seat_of(seats, user)
    if record.status != "active":
        raise Refused("conflict", record.status, f"this game is {record.status}")
    if mine.status == "playing":
        return record, seats
    if mine.status != "autopilot":
        raise Refused("conflict", mine.status, "you resigned from this game")
    _check_version(record, expected_version)
    conn.execute(
        update(SEATS)
        .where(SEATS.c.game_id == record.id, SEATS.c.seat == mine.seat)
        .values(status="playing", left_version=None)
    )
    seats[mine.seat] = replace(mine, status="playing", left_version=None)
    return _play_on(conn, pool, record, seats), seats


# -- the site's ranking ----------------------------------------------------------------------------


def ranking(record: GameRecord, seats: Sequence[SeatInfo]) -> list[int] | None:
    """A finished game's seats, best first: those that finished under their own control by
    the rules' result (winners, then score), then those that resigned or timed out, the
    later leaver first."""
    if record.status != "finished" or record.result is None or len(seats) != record.seats:
        return None
    result: dict[str, Any] = json.loads(record.result)
    winners = set(result.get("winners", []))
    scores = result.get("scores") or [0] * record.seats
    stayed = sorted(
        (s for s in seats if not s.forfeited),
        key=lambda s: (s.seat not in winners, -scores[s.seat], s.seat),
    )
    left = sorted((s for s in seats if s.forfeited), key=lambda s: (-(s.left_version or 0), s.seat))
    return [s.seat for s in (*stayed, *left)]
