"""What players and lists see: a game as a seat sees it, pushes, my games, the waiting room,
the public log."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, case, func, select
from sqlalchemy.engine import Row

from dicehall.engine import codec
from dicehall.engine.events import decode_event
from dicehall.server.core.clock import now
from dicehall.server.core.models import User
from dicehall.server.domain.dice.publiclog import public_events
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.games.ending import ranking
from dicehall.server.domain.games.pace import Clock, Pace, vacation_saves
from dicehall.server.domain.games.payloads import GamePayload
from dicehall.server.domain.games.privacy import watchable
from dicehall.server.domain.games.records import (
    EVENTS,
    GAMES,
    SEAT_COLUMNS,
    SEATS,
    USERS,
    GameRecord,
    SeatInfo,
    entry_of,
    load_options,
    load_state,
    seat_of,
    seats_json,
    variant_title,
)
from dicehall.server.domain.people import relations
from dicehall.server.domain.people.chat import unread_counts
from dicehall.server.domain.ratings.views import game_ratings

# -- reading -----------------------------------------------------------------------------------


def game_payload(
    record: GameRecord,
    seats: list[SeatInfo],
    user: User | None,
    ratings: dict[str, Any] | None = None,
) -> GamePayload:
    """A game as ``user``'s seat sees it (a spectator's view for anyone else); ``ratings``
    are its seats' ratings (:func:`rated_payload` reads them; None: an unrated game)."""
    game = entry_of(record.kind).game
    my_seat = next((s.seat for s in seats if user is not None and s.user_pk == user.id), None)
    options = load_options(record)
    payload: GamePayload = {
        "id": record.id,
        "game": record.kind,
        "title": variant_title(record.kind, options),
        "status": record.status,
        "version": record.version,
        "options": codec.encode(options),
        "seats": seats_json(seats),
        "my_seat": my_seat,
        "to_act": record.to_act,
        "your_turn": my_seat is not None and record.to_act == my_seat,
        "view": None,
        "legal": [],
        "result": None if record.result is None else json.loads(record.result),
        "bot_turn": bot_turn_of(record, seats),
        "pace": pace_json(record),
        "clock": clock_json(record, now()),
        "ranking": ranking(record, seats),
        "private": record.private,
        "rating_kind": record.rating_kind,
        "ladder": record.ladder,
        "ratings": ratings,
        # What the rules allow, not what an old game stored (never under a day's pace).
        "vacation": vacation_saves(record.vacation, Pace.loads(record.pace)),
    }
    if record.snapshot is not None:
        state = load_state(record)
        payload["view"] = codec.encode(game.view(state, my_seat))
        if my_seat is not None and record.status == "active":
            payload["legal"] = [codec.encode(a) for a in game.legal(state, my_seat)]
    return payload


def rated_payload(
    conn: Connection, record: GameRecord, seats: list[SeatInfo], user: User | None
) -> GamePayload:
    """:func:`game_payload` with the seats' ratings of a rated game (one query)."""
    ratings = game_ratings(conn, record, seats, None if user is None else user.id)
    return game_payload(record, seats, user, ratings)


def pace_json(record: GameRecord) -> dict[str, Any] | None:
    """The game's pace as the API shows it (None: no clock)."""
    pace = Pace.loads(record.pace)
    return None if pace is None else pace.as_json()


def clock_json(record: GameRecord, at: datetime) -> dict[str, Any] | None:
    """Every seat's time left at ``at``, its deadline if its bank runs, whether it runs, and
    what saved the running seat when its bank ran out this turn (``saved_by``: ``vacation``
    or ``away``; None for a game without a clock)."""
    if record.pace is None:
        return None
    pace = Pace.loads(record.pace)
    clock = Clock.loads(record.clock) if record.clock else Clock.start(pace, record.seats)
    running = clock.running if record.status == "active" else None
    deadline = clock.deadline() if running is not None else None
    return {
        "seats": [
            {
                "seat": seat,
                "remaining": round(
                    clock.remaining(seat, at) if running == seat else clock.banks[seat], 3
                ),
                "deadline": deadline.isoformat() if running == seat and deadline else None,
                "running": running == seat,
                "saved_by": clock.saved if running == seat else None,
            }
            for seat in range(record.seats)
        ]
    }


def bot_turn_of(record: GameRecord, seats: list[SeatInfo]) -> dict[str, Any] | None:
    # Who the game waits on when it is not a person: a bot (quick or slow), or the dice.
    if record.status != "active" or not record.bot_due:
        return None
    if record.to_act is None:
        return {"seat": None, "bot": None, "slow": False}
    entry = entry_of(record.kind)
    bot = seats[record.to_act].acting_bot(entry)
    return {"seat": record.to_act, "bot": bot, "slow": bot in entry.slow_bots}


def read_game(conn: Connection, game_id: int, user: User | None) -> GamePayload:
    """A game's payload for ``user``, read fresh (a 404 for a private game ``user`` may not
    watch)."""
    record, seats = watchable(conn, game_id, None if user is None else user.id)
    return rated_payload(conn, record, seats, user)


def pushes(record: GameRecord, seats: list[SeatInfo]) -> list[tuple[int, dict[str, Any]]]:
    """The push each seated user gets after a change to a game (none for a player who has
    left it: a resigned player at a table of bots is not told of every bot's move)."""
    return [
        (
            s.user_pk,
            {
                "type": "game",
                "game": record.id,
                "version": record.version,
                "status": record.status,
                "your_turn": record.status == "active" and record.to_act == s.seat,
            },
        )
        for s in seats
        if s.user_pk is not None and s.status not in ("resigned", "timed_out")
    ]


def summaries(conn: Connection, rows: Sequence[Row[Any]], me: int) -> list[dict[str, Any]]:
    ids = [r.id for r in rows]
    by_game: dict[int, list[SeatInfo]] = {i: [] for i in ids}
    if ids:
        for r in conn.execute(
            select(SEATS.c.game_id, *SEAT_COLUMNS)
            .select_from(SEATS.outerjoin(USERS, USERS.c.id == SEATS.c.user_pk))
            .where(SEATS.c.game_id.in_(ids))
            .order_by(SEATS.c.game_id, SEATS.c.seat)
        ):
            by_game[r.game_id].append(seat_of(r))
    creator_pks = {row.created_by for row in rows if row.created_by is not None}
    creators: dict[int, str] = (
        dict(
            conn.execute(
                select(USERS.c.id, USERS.c.user_id).where(USERS.c.id.in_(creator_pks))
            ).all()
        )
        if creator_pks
        else {}
    )
    # Players' chat lines ``me`` has not read, by game (see domain.people.chat).
    chat_unread = unread_counts(conn, me, ids)
    out = []
    for row in rows:
        record = GameRecord.of(row)
        seats = by_game[record.id]
        mine = next((s for s in seats if s.user_pk == me), None)
        options = load_options(record)
        out.append(
            {
                "id": record.id,
                "game": record.kind,
                "title": variant_title(record.kind, options),
                "status": record.status,
                "version": record.version,
                "to_act": record.to_act,
                "your_turn": record.status == "active"
                and mine is not None
                and record.to_act == mine.seat,
                "invitation": record.status == "waiting" and mine is not None and mine.invited,
                "creator": creators.get(row.created_by),
                "seats": seats_json(seats),
                "options": codec.encode(options),
                "updated_at": record.updated_at.isoformat(),
                "standing": standing_of(record),
                "winners": winners_of(record),
                "pace": None if (pace := Pace.loads(record.pace)) is None else pace.name,
                "deadline": None
                if record.deadline is None or record.status != "active"
                else record.deadline.isoformat(),
                "chat_unread": chat_unread.get(record.id, 0),
                "ladder": record.ladder,
            }
        )
    return out


def standing_of(record: GameRecord) -> dict[str, Any] | None:
    """A started game's scores so far and the turn being played, as JSON (None before the
    start, or for a game that does not say)."""
    if record.snapshot is None or record.status == "cancelled":
        return None
    try:
        game = entry_of(record.kind).game
        standing = game.standing(load_state(record))
    except Refused:  # a game no longer installed on this site
        return None
    if standing is None:
        return None
    return {"scores": list(standing.scores), "number": standing.number, "noun": game.turn_noun}


def winners_of(record: GameRecord) -> list[int] | None:
    """A finished game's winning seats."""
    if record.result is None:
        return None
    winners: list[int] = json.loads(record.result).get("winners", [])
    return winners


def my_games(conn: Connection, user: User, limit: int = 200) -> list[dict[str, Any]]:
    """My games, the ones waiting on me first (my turn, the least time left first, or an
    invitation to answer), then the rest most recently moved first."""
    order = case(
        ((GAMES.c.status == "active") & (GAMES.c.to_act == SEATS.c.seat), 0),
        ((GAMES.c.status == "waiting") & SEATS.c.invited.is_(True), 0),
        (GAMES.c.status == "active", 1),
        (GAMES.c.status == "waiting", 2),
        else_=3,
    )
    my_turn = (GAMES.c.status == "active") & (GAMES.c.to_act == SEATS.c.seat)
    my_deadline = case((my_turn, GAMES.c.deadline), else_=None)
    rows = conn.execute(
        select(GAMES)
        .join(SEATS, SEATS.c.game_id == GAMES.c.id)
        .where(SEATS.c.user_pk == user.id)
        .order_by(
            order,
            my_deadline.is_(None),
            my_deadline,
            GAMES.c.updated_at.desc(),
            GAMES.c.id.desc(),
        )
        .limit(limit)
    ).all()
    return summaries(conn, rows, user.id)


def waiting_on_me(conn: Connection, user: User) -> dict[str, int]:
    """How many of my games wait on me: my turn, and invitations to answer."""
    turns = conn.execute(
        select(func.count())
        .select_from(GAMES.join(SEATS, SEATS.c.game_id == GAMES.c.id))
        .where(
            SEATS.c.user_pk == user.id,
            GAMES.c.status == "active",
            GAMES.c.to_act == SEATS.c.seat,
        )
    ).scalar_one()
    invitations = conn.execute(
        select(func.count())
        .select_from(GAMES.join(SEATS, SEATS.c.game_id == GAMES.c.id))
        .where(SEATS.c.user_pk == user.id, GAMES.c.status == "waiting", SEATS.c.invited.is_(True))
    ).scalar_one()
    return {"your_turn": int(turns), "invitations": int(invitations)}


#: The waiting room's page size, and the most one page may hold.
OPEN_PAGE = 50
OPEN_PAGE_MAX = 100


def open_games(
    conn: Connection,
    limit: int = OPEN_PAGE,
    before: int | None = None,
    viewer_pk: int | None = None,
) -> list[dict[str, Any]]:
    """The waiting room: games with open seats, newest first, a page at a time (``before``:
    only games with a smaller id, the last id of the previous page). A signed-in viewer
    does not see games where someone across an ignore with them sits."""
    has_open_seat = select(SEATS.c.game_id).where(SEATS.c.user_pk.is_(None), SEATS.c.bot.is_(None))
    query = select(GAMES).where(GAMES.c.status == "waiting", GAMES.c.id.in_(has_open_seat))
    if viewer_pk is not None:
        apart = relations.others_across_an_ignore(conn, viewer_pk)
        if apart:
            query = query.where(
                GAMES.c.id.not_in(select(SEATS.c.game_id).where(SEATS.c.user_pk.in_(apart)))
            )
    if before is not None:
        query = query.where(GAMES.c.id < before)
    rows = conn.execute(
        query.order_by(GAMES.c.id.desc()).limit(max(1, min(limit, OPEN_PAGE_MAX)))
    ).all()
    return summaries(conn, rows, -1)


def event_log(conn: Connection, game_id: int, user: User | None) -> dict[str, Any]:
    """A finished game's record for replay and audit: every die the table saw; dice never
    shown (folded Hold'em pockets) stay hidden, see :mod:`dicehall.server.domain.dice.publiclog`.
    A private game's only for those who may watch it (404 to anyone else)."""
    record, _seats = watchable(conn, game_id, None if user is None else user.id)
    if record.status != "finished":
        raise Refused(
            "conflict",
            "in_progress",
            "the full log is published when the game is over (it holds hidden dice)",
        )
    game = entry_of(record.kind).game
    events = conn.execute(
        select(EVENTS.c.data, EVENTS.c.dice_set, EVENTS.c.dice_key)
        .where(EVENTS.c.game_id == game_id)
        .order_by(EVENTS.c.seq)
    ).all()
    options = load_options(record)
    from_deck = conn.execute(select(GAMES.c.next_key).where(GAMES.c.id == game_id)).scalar()
    sources: dict[str, Any] = (
        {"dice_keys": [e.dice_key for e in events]}
        if from_deck is not None
        else {"dice_sets": [e.dice_set for e in events]}
    )
    return {
        "game": record.kind,
        "id": record.id,
        "seats": record.seats,
        "rules": conn.execute(select(GAMES.c.rules).where(GAMES.c.id == game_id)).scalar_one(),
        "options": codec.encode(options),
        "events": public_events(
            record.kind,
            options,
            record.seats,
            [decode_event(game, json.loads(e.data)) for e in events],
            **sources,
        ),
        "result": None if record.result is None else json.loads(record.result),
    }


def count_games(conn: Connection) -> int:
    """How many games the site holds."""
    return int(conn.execute(select(func.count()).select_from(GAMES)).scalar_one())


def creator_of(conn: Connection, game_id: int) -> str | None:
    """The user id of the game's creator (who may call it off while it waits)."""
    creator: str | None = conn.execute(
        select(USERS.c.user_id)
        .select_from(GAMES.join(USERS, USERS.c.id == GAMES.c.created_by))
        .where(GAMES.c.id == game_id)
    ).scalar_one_or_none()
    return creator
