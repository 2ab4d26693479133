"""Open waiting-room seats first: a waiting ticket takes an open seat of a game that fits it
before the matcher starts a new game, so the waiting room and auto-match never compete.

A game fits a ticket when it waits for players in the waiting room (not private, not a
ladder game) and has the ticket's game, options, pace, rated or not, and a table size
within the ticket's range. The seat is taken through :func:`seating.join_game`, with every
check a person joining by hand meets (an ignore, the quotas); a refusal only skips that
game for that ticket. Games are taken oldest first, tickets oldest first.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, select

from dicehall.server.core.models import User
from dicehall.server.domain.automatch.records import mark_matched
from dicehall.server.domain.dice.pool import DicePool
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.games import quotas, seating
from dicehall.server.domain.games.records import (
    GAMES,
    SEATS,
    GameRecord,
    SeatInfo,
    fetch_game,
    seats_of,
)
from dicehall.server.domain.people import relations

#: The most open games one filing or one matcher pass looks at.
MOST_GAMES = 50


@dataclass(frozen=True)
class Seated:
    """A ticket that took an open seat, and its game after the join."""

    ticket_id: int
    user_pk: int
    record: GameRecord
    seats: list[SeatInfo]


def candidates(conn: Connection, tickets: Iterable[Any], *, lock: bool) -> list[int]:
    """The waiting-room games that might fit one of ``tickets`` (rows), oldest first;
    ``lock``: row-locked (PostgreSQL skips games someone else holds: a join in progress)."""
    rows = list(tickets)
    if not rows:
        return []
    has_open_seat = select(SEATS.c.game_id).where(SEATS.c.user_pk.is_(None), SEATS.c.bot.is_(None))
    query = (
        select(GAMES.c.id)
        .where(
            GAMES.c.status == "waiting",
            GAMES.c.private.is_(False),
            GAMES.c.ladder.is_(False),
            GAMES.c.kind.in_(sorted({r.game for r in rows})),
            GAMES.c.options.in_(sorted({r.options for r in rows})),
            GAMES.c.id.in_(has_open_seat),
        )
        .order_by(GAMES.c.id)
        .limit(MOST_GAMES)
    )
    if lock:
        query = query.with_for_update(skip_locked=True)
    return [int(i) for i in conn.execute(query).scalars()]


def any_fit(conn: Connection, tickets: Sequence[Any]) -> bool:
    """Whether some open seat would take one of ``tickets`` (rows), as far as a read
    without locks can tell: the game fits, the player does not sit there, nobody there is
    across an ignore with them."""
    game_ids = candidates(conn, tickets, lock=False)
    if not game_ids:
        return False
    records = [fetch_game(conn, game_id) for game_id in game_ids]
    seated: dict[int, set[int]] = {}
    for game_id, user_pk in conn.execute(
        select(SEATS.c.game_id, SEATS.c.user_pk).where(
            SEATS.c.game_id.in_(game_ids), SEATS.c.user_pk.is_not(None)
        )
    ):
        seated.setdefault(int(game_id), set()).add(int(user_pk))
    everyone = {t.user_pk for t in tickets}.union(*seated.values())
    apart = relations.apart_pairs(conn, everyone)
    for record in records:
        there = seated.get(record.id, set())
        for ticket in tickets:
            if not fits(ticket, record) or ticket.user_pk in there:
                continue
            if not any(frozenset((ticket.user_pk, other)) in apart for other in there):
                return True
    return False


def fits(ticket: Any, record: GameRecord) -> bool:
    """Whether waiting game ``record`` is what ``ticket`` (a row) asks for."""
    return (
        record.status == "waiting"
        and record.kind == ticket.game
        and record.options == ticket.options
        and record.pace == ticket.pace
        and (record.rating_kind is not None) == bool(ticket.rated)
        and ticket.seats_min <= record.seats <= ticket.seats_max
    )


def fill(
    conn: Connection,
    pool: DicePool,
    tickets: Sequence[Any],
    names: Mapping[int, str],
    at: datetime,
    limits: quotas.GameLimits | None = None,
    game_ids: Sequence[int] | None = None,
) -> list[Seated]:
    """Seat waiting ``tickets`` (rows, locked or the caller's own) in the open games that
    fit them; ``names`` gives each player's user id; ``game_ids`` are the candidate games,
    already locked (None: found and locked here, see :func:`candidates`). Each seated
    ticket is marked matched and its player told. Caller commits."""
    found = candidates(conn, tickets, lock=True) if game_ids is None else list(game_ids)
    if not found:
        return []
    waiting = sorted(tickets, key=lambda t: (t.created_at, t.id))
    done: set[int] = set()
    seated: list[Seated] = []
    for game_id in found:
        record = fetch_game(conn, game_id)
        seats = seats_of(conn, game_id)
        for ticket in waiting:
            if record.status != "waiting" or not any(s.is_open for s in seats):
                break
            if ticket.id in done or not fits(ticket, record):
                continue
            if any(s.user_pk == ticket.user_pk for s in seats):
                continue
            joiner = User(id=ticket.user_pk, user_id=names.get(ticket.user_pk, ""))
            try:
                record, seats = seating.join_game(conn, pool, joiner, record, None, limits)
            except Refused:
                continue  # a quota of theirs, or an ignore: the next ticket may fit
            mark_matched(conn, [(ticket.id, ticket.user_pk)], record, at)
            done.add(ticket.id)
            seated.append(Seated(ticket.id, ticket.user_pk, record, seats))
    return seated
