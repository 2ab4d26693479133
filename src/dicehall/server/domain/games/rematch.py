"""A rematch: the same game with the same options and seats, asked for by a player of a
finished game. Bots sit down again at once; the other people are invited again."""

from __future__ import annotations

from dataclasses import fields

from sqlalchemy import Connection

from dicehall.server.core.models import User
from dicehall.server.domain.dice.pool import DicePool
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.games.pace import Pace, vacation_saves
from dicehall.server.domain.games.records import GameRecord, SeatInfo, load_options, seats_of
from dicehall.server.domain.games.seating import create_game


def rematch_specs(seats: list[SeatInfo], me: User) -> list[str]:
    """The seats of a new game like the old one, in the same order, as ``POST /games``
    names them: ``me`` for the asker, each bot again, each other person invited."""
    specs = []
    for seat in seats:
        if seat.user_pk == me.id:
            specs.append("me")
        elif seat.bot is not None:
            specs.append(f"bot:{seat.bot}")
        elif seat.user_id is not None:
            specs.append(f"user:{seat.user_id}")
        else:
            specs.append("open")
    return specs


def rematch(
    conn: Connection, pool: DicePool, user: User, record: GameRecord
) -> tuple[GameRecord, list[SeatInfo]]:
    """Create the rematch of finished game ``record`` for ``user``, one of its players.
    Caller commits."""
    seats = seats_of(conn, record.id)
    if not any(s.user_pk == user.id for s in seats):
        raise Refused(
            "forbidden", "not_your_game", "only a player of this game can ask for a rematch"
        )
    if record.status != "finished":
        raise Refused(
            "conflict", "not_finished", "a rematch can be asked for once the game is over"
        )
    chosen = load_options(record)
    options: dict[str, object] = {f.name: getattr(chosen, f.name) for f in fields(chosen)}
    pace = Pace.loads(record.pace)
    return create_game(
        conn,
        pool,
        user,
        record.kind,
        options,
        rematch_specs(seats, user),
        pace="none" if pace is None else pace.spec(),
        # As the old game could use it: never on at a pace under a day.
        vacation=vacation_saves(record.vacation, pace),
        private=record.private,
    )
