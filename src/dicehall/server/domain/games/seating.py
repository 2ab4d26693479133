"""Creating games, seats: joining, invitations, calling a game off, the start (the quotas
they check are :mod:`.quotas`)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace
from typing import Literal

from sqlalchemy import Connection, insert, select, update

from dicehall.engine import codec
from dicehall.server.core.clock import now
from dicehall.server.core.models import User
from dicehall.server.domain import notifications
from dicehall.server.domain.dice.pool import DicePool
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.games import notice_texts, privacy
from dicehall.server.domain.games.notice_texts import time_left
from dicehall.server.domain.games.pace import BadPace, Pace, parse_pace, vacation_saves
from dicehall.server.domain.games.play import advance, store
from dicehall.server.domain.games.quotas import GameLimits, check_create_quota, check_join_quota
from dicehall.server.domain.games.records import (
    GAMES,
    SEATS,
    USERS,
    GameRecord,
    SeatInfo,
    Step,
    entry_of,
    fetch_game,
    load_options,
    seats_of,
)
from dicehall.server.domain.people import relations
from dicehall.server.domain.ratings import kinds

# -- creating and joining ----------------------------------------------------------------------


def parse_seat_specs(
    conn: Connection, creator: User, specs: Sequence[str], kind: str
) -> list[SeatInfo]:
    """Seats from ``me``, ``user:NAME`` (or a bare user id), ``bot:NAME`` and ``open``."""
    entry = entry_of(kind)
    seats: list[SeatInfo] = []
    for index, raw in enumerate(specs):
        spec = raw.strip()
        lowered = spec.lower()
        if lowered == "me":
            seats.append(SeatInfo(index, creator.id, creator.user_id, None))
        elif lowered == "open":
            seats.append(SeatInfo(index, None, None, None))
        elif lowered.startswith("bot:"):
            name = lowered[4:].strip()
            entry.bot(name, random.Random(0))  # raises InvalidInput for unknown bots
            seats.append(SeatInfo(index, None, None, name))
        else:
            handle = (spec[5:] if lowered.startswith("user:") else spec).strip()
            found = conn.execute(
                select(USERS.c.id, USERS.c.user_id).where(USERS.c.key == handle.lower())
            ).first()
            if found is None:
                raise Refused("invalid", "unknown_user", f"there is no user {handle!r}")
            seats.append(SeatInfo(index, found.id, found.user_id, None, invited=True))
    humans = [s.user_pk for s in seats if s.user_pk is not None]
    if creator.id not in humans:
        raise Refused("invalid", "invalid_seats", "one of the seats must be 'me'")
    if len(humans) != len(set(humans)):
        raise Refused("invalid", "invalid_seats", "a player can take only one seat in a game")
    _check_named_may_meet(conn, creator, seats)
    return seats


def _check_named_may_meet(conn: Connection, creator: User, seats: Sequence[SeatInfo]) -> None:
    """Naming a user as an opponent is a challenge (their settings and ignores decide), and
    everyone named must be able to sit together (nobody meets across an ignore)."""
    named: dict[int, str] = {}
    for seat in seats:
        if seat.user_pk is not None and seat.user_pk != creator.id:
            named[seat.user_pk] = seat.user_id or ""
    for user_pk, name in named.items():
        relations.check_may_interact(conn, creator.id, user_pk, "challenge", name)
    relations.check_all_may_meet(conn, named, "join")


def _check_may_join(
    conn: Connection, user: User, record: GameRecord, seats: Sequence[SeatInfo]
) -> None:
    """Nobody sits down with someone across an ignore. To the joiner the game does not
    exist (its board is a 404 for them too, see :func:`privacy.apart_from_table`): the
    answer anyone gets for a game they may not see, so an ignore is never told."""
    if privacy.apart_from_table(conn, seats, user.id):
        raise privacy.hidden(record.id)


def pace_for(raw: object, seats: Sequence[SeatInfo]) -> Pace | None:
    """The game's pace: as asked, or by default ``daily`` between people and ``none`` for
    one person against bots."""
    if raw is None:
        people = sum(1 for s in seats if s.user_pk is not None or s.is_open)
        raw = "daily" if people > 1 else "none"
    try:
        return parse_pace(raw)
    except BadPace as exc:
        raise Refused("invalid", "invalid_pace", str(exc)) from exc


def vacation_for(asked: bool | None, pace: Pace | None) -> bool:
    """Whether vacation may save the game's seats: as asked, or by default on wherever the
    pace allows it (a day or more, or no clock). Asking for it at a pace under a day is
    refused (422 ``invalid_vacation``)."""
    allowed = vacation_saves(True, pace)
    if asked and not allowed:
        assert pace is not None
        raise Refused(
            "invalid",
            "invalid_vacation",
            f"vacation cannot save a seat at a pace under a day ({pace.name}: "
            f"{time_left(pace.initial)}); leave vacation out or set it to false",
        )
    return allowed if asked is None else asked


def rating_kind_for(
    game: str, options: object, seats: Sequence[SeatInfo], rated: bool | None
) -> str | None:
    """The rating kind the game counts for, or None: unrated. By default a game is rated
    when every seat is a person (a user, or an open seat a user will take)."""
    people = all(s.bot is None for s in seats) and len(seats) >= 2
    kind = kinds.kind_of(game, options)
    if rated is None:
        return kind if people else None
    if not rated:
        return None
    if not people or kind is None:
        raise Refused(
            "invalid", "not_rateable", "a rated game needs two seats or more, each a person"
        )
    return kind


def create_game(
    conn: Connection,
    pool: DicePool,
    creator: User,
    kind: str,
    raw_options: dict[str, object],
    seat_specs: Sequence[str],
    *,
    pace: object = None,
    vacation: bool | None = None,
    private: bool = False,
    rated: bool | None = None,
    ladder: bool = False,
    limits: GameLimits | None = None,
    tell_invited: bool = True,
) -> tuple[GameRecord, list[SeatInfo]]:
    """Create a game; it starts at once unless seats are open. Caller commits.

    ``pace`` is a preset name or ``{initial, increment, cap}`` (see :func:`pace_for`);
    ``vacation`` lets a seat's vacation allowance save it from a timeout (None: wherever the
    pace allows, see :func:`vacation_for`); ``private`` lets
    only the players and invited watchers watch; ``rated`` (None: when every seat is a
    person) counts the result in the players' ratings; ``ladder`` marks a ladder game.
    Each user named gets an ``invitation`` notice with the options and the pace, unless
    ``tell_invited`` is false (a caller that accepts for them)."""
    entry = entry_of(kind)
    game = entry.game
    options = game.options(raw_options)
    game.check_seats(len(seat_specs))
    seats = parse_seat_specs(conn, creator, seat_specs, entry.name)
    chosen_pace = pace_for(pace, seats)
    saves = vacation_for(vacation, chosen_pace)
    rating_kind = rating_kind_for(entry.name, options, seats, rated)
    check_create_quota(conn, creator, seats, limits)
    game_id = insert_game(
        conn,
        pool,
        entry.name,
        options,
        seats,
        created_by=creator.id,
        pace=chosen_pace,
        vacation=saves,
        private=private,
        rating_kind=rating_kind,
        ladder=ladder,
    )
    record = fetch_game(conn, game_id)
    if tell_invited:
        _tell_invited(conn, creator, record, options, seats)
    if all(s.is_ready for s in seats):
        record = start_game(conn, pool, record, seats)
    return record, seats


def _tell_invited(
    conn: Connection, creator: User, record: GameRecord, options: object, seats: list[SeatInfo]
) -> None:
    """An ``invitation`` notice to each user the creator named: the game, its options and
    its pace, to accept or decline from the bell."""
    told: list[tuple[int, int | None, str]] = [
        (
            s.user_pk,
            record.id,
            notice_texts.invitation(creator.user_id, record, options, seats, s.user_pk),
        )
        for s in seats
        if s.invited and s.user_pk is not None
    ]
    notifications.add_many(conn, told, "invitation")


def insert_game(
    conn: Connection,
    pool: DicePool,
    kind: str,
    options: object,
    seats: Sequence[SeatInfo],
    *,
    created_by: int,
    pace: Pace | None,
    vacation: bool,
    private: bool,
    rating_kind: str | None,
    ladder: bool,
    seated_now: bool = False,
) -> int:
    """Write a new game waiting for its start and its seats (``seated_now``: every seat
    taken at this moment), bound to the next deck before any seat's seed is known; the
    game's id. Caller commits."""
    moment = now()
    game_id: int = conn.execute(
        insert(GAMES)
        .values(
            kind=kind,
            options=codec.dumps(options),
            seats=len(seats),
            status="waiting",
            version=0,
            snapshot=None,
            to_act=None,
            result=None,
            event_count=0,
            created_by=created_by,
            created_at=moment,
            updated_at=moment,
            pace=None if pace is None else pace.dumps(),
            vacation=vacation,
            private=private,
            rating_kind=rating_kind,
            ladder=ladder,
            rules=entry_of(kind).rules_version,
        )
        .returning(GAMES.c.id)
    ).scalar_one()
    conn.execute(
        insert(SEATS),
        [
            {
                "game_id": game_id,
                "seat": s.seat,
                "user_pk": s.user_pk,
                "bot": s.bot,
                "invited": s.invited,
                "joined_at": moment if seated_now else None,
            }
            for s in seats
        ],
    )
    pool.hold_cursor(conn)  # the log's appends take turns under the pool's cursor
    pool.decks.bind(conn, game_id, bags=entry_of(kind).bag)
    return game_id


def join_game(
    conn: Connection,
    pool: DicePool,
    user: User,
    record: GameRecord,
    seat: int | None,
    limits: GameLimits | None = None,
) -> tuple[GameRecord, list[SeatInfo]]:
    """Take an open seat (the first, or the one asked for); the last one starts the game."""
    if record.status != "waiting":
        raise Refused("conflict", "not_open", "this game has no open seats")
    seats = seats_of(conn, record.id)
    if any(s.user_pk == user.id for s in seats):
        raise Refused("conflict", "already_seated", "you already have a seat in this game")
    _check_may_join(conn, user, record, seats)
    open_seats = [s for s in seats if s.is_open and (seat is None or s.seat == seat)]
    if not open_seats:
        raise Refused("conflict", "seat_taken", f"seat {seat} is not open")
    check_join_quota(conn, user, limits)
    chosen = open_seats[0]
    conn.execute(
        update(SEATS)
        .where(SEATS.c.game_id == record.id, SEATS.c.seat == chosen.seat)
        .values(user_pk=user.id, joined_at=now())
    )
    seats[chosen.seat] = SeatInfo(chosen.seat, user.id, user.user_id, None)
    return seated(conn, pool, record, seats)


def seated(
    conn: Connection, pool: DicePool, record: GameRecord, seats: list[SeatInfo]
) -> tuple[GameRecord, list[SeatInfo]]:
    # A seat changed hands: a new version, and the game starts once every seat is ready.
    record = replace(record, version=record.version + 1, updated_at=now())
    conn.execute(
        update(GAMES)
        .where(GAMES.c.id == record.id)
        .values(version=record.version, updated_at=record.updated_at)
    )
    if not all(s.is_ready for s in seats):
        return record, seats
    return start_game(conn, pool, record, seats), seats


def answer_invitation(
    conn: Connection, pool: DicePool, user: User, record: GameRecord, accept: bool
) -> tuple[GameRecord, list[SeatInfo]]:
    """Accept (the game starts once every seat is ready) or decline (the game is called
    off) an invitation to play. Caller commits."""
    seats = seats_of(conn, record.id)
    mine = next((s for s in seats if s.user_pk == user.id and s.invited), None)
    if record.status != "waiting" or mine is None:
        raise Refused("conflict", "not_invited", "you have no open invitation to this game")
    if not accept:
        called_off = call_off(conn, record)
        _tell_declined(conn, user, called_off, seats)
        return called_off, seats
    conn.execute(
        update(SEATS)
        .where(SEATS.c.game_id == record.id, SEATS.c.seat == mine.seat)
        .values(invited=False)
    )
    seats[mine.seat] = replace(mine, invited=False)
    return seated(conn, pool, record, seats)


def _tell_declined(conn: Connection, user: User, record: GameRecord, seats: list[SeatInfo]) -> None:
    """An ``invite_declined`` notice naming who declined: to the creator, and to the other
    people seated or invited (the game is called off for them too)."""
    created_by = conn.execute(
        select(GAMES.c.created_by).where(GAMES.c.id == record.id)
    ).scalar_one_or_none()
    told: list[tuple[int, int | None, str]] = [
        (
            s.user_pk,
            record.id,
            notice_texts.invite_declined(
                user.user_id, record, seats, s.user_pk, mine=s.user_pk == created_by
            ),
        )
        for s in seats
        if s.user_pk is not None and s.user_pk != user.id
    ]
    notifications.add_many(conn, told, "invite_declined")


def cancel_game(
    conn: Connection, user: User, record: GameRecord
) -> tuple[GameRecord, list[SeatInfo]]:
    """The creator withdraws a game that has not started. Caller commits."""
    created_by = conn.execute(
        select(GAMES.c.created_by).where(GAMES.c.id == record.id)
    ).scalar_one()
    if created_by != user.id:
        raise Refused(
            "forbidden", "not_yours", "only the player who created this game can cancel it"
        )
    if record.status != "waiting":
        raise Refused("conflict", "started", "this game has started; it can no longer be cancelled")
    return call_off(conn, record), seats_of(conn, record.id)


Answer = Literal["accept", "decline", "cancel"]
"""What a player may say to a game that has not started: accept or decline an invitation,
or (its creator) call it off."""


def answer_game(
    conn: Connection, pool: DicePool, user: User, record: GameRecord, answer: Answer
) -> tuple[GameRecord, list[SeatInfo]]:
    """Apply ``answer`` (see :data:`Answer`) to a waiting game. Caller commits."""
    if answer == "cancel":
        return cancel_game(conn, user, record)
    return answer_invitation(conn, pool, user, record, accept=answer == "accept")


def call_off(conn: Connection, record: GameRecord) -> GameRecord:
    moment = now()
    record = replace(
        record, status="cancelled", version=record.version + 1, updated_at=moment, ended_at=moment
    )
    conn.execute(
        update(GAMES)
        .where(GAMES.c.id == record.id)
        .values(
            status=record.status,
            version=record.version,
            updated_at=record.updated_at,
            ended_at=moment,
        )
    )
    return record


def start_game(
    conn: Connection, pool: DicePool, record: GameRecord, seats: list[SeatInfo]
) -> GameRecord:
    game = entry_of(record.kind).game
    state = game.start(record.seats, load_options(record))
    steps: list[Step] = []
    state = advance(conn, pool, record, seats, state, steps)
    return store(conn, record, seats, state, steps)
