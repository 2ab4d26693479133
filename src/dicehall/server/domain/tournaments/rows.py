"""The tournament tables as Core tables, the row lock, and the few reads every part shares:
a tournament, its players, its tables, a game's allowed table sizes."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, cast

from sqlalchemy import Connection, Row, Table, func, select, update

from dicehall import games
from dicehall.engine import codec
from dicehall.engine.errors import DicehallError
from dicehall.server.core.models import Tournament, TournamentPlayer, TournamentTable, User
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.games.records import entry_of

TOURNAMENTS = cast(Table, Tournament.__table__)
PLAYERS = cast(Table, TournamentPlayer.__table__)
TABLES = cast(Table, TournamentTable.__table__)
USERS = cast(Table, User.__table__)

#: The statuses of a tournament, and of a player in one.
STATUSES = ("open", "running", "finished", "cancelled")
PLAYER_STATUSES = ("active", "withdrawn", "timed_out", "out")

Row_ = Row[Any]


def not_found(tournament_id: int) -> Refused:
    """The answer for a tournament that does not exist."""
    return Refused("not_found", "no_such_tournament", f"there is no tournament {tournament_id}")


def lock_player(conn: Connection, user_pk: int) -> None:
    """Hold ``user_pk``'s user row until the transaction ends (PostgreSQL), so that two of
    their requests at once (creating, joining) cannot both pass a quota. Taken before any
    tournament's row."""
    if conn.dialect.name == "postgresql":
        conn.execute(select(USERS.c.id).where(USERS.c.id == user_pk).with_for_update())


def fetch(conn: Connection, tournament_id: int, *, lock: bool = False) -> Row_:
    """Tournament ``tournament_id`` (row-locked on PostgreSQL with ``lock``); 404 if none."""
    query = select(TOURNAMENTS).where(TOURNAMENTS.c.id == tournament_id)
    row = conn.execute(query.with_for_update() if lock else query).first()
    if row is None:
        raise not_found(tournament_id)
    return row


def players_of(conn: Connection, tournament_id: int) -> list[Row_]:
    """The tournament's players in the order they joined."""
    return list(
        conn.execute(
            select(PLAYERS)
            .where(PLAYERS.c.tournament_id == tournament_id)
            .order_by(PLAYERS.c.joined_at, PLAYERS.c.user_pk)
        )
    )


def player_count(conn: Connection, tournament_id: int) -> int:
    """How many players the tournament holds."""
    return int(
        conn.execute(
            select(func.count()).where(PLAYERS.c.tournament_id == tournament_id)
        ).scalar_one()
    )


def tables_of(conn: Connection, tournament_id: int, round_: int | None = None) -> list[Row_]:
    """The tournament's tables (of one round, or all), by round and number."""
    query = select(TABLES).where(TABLES.c.tournament_id == tournament_id)
    if round_ is not None:
        query = query.where(TABLES.c.round == round_)
    return list(conn.execute(query.order_by(TABLES.c.round, TABLES.c.number)))


def seated(table: Row_) -> list[int]:
    """A table's players' user pks, by seat."""
    return [int(pk) for pk in json.loads(table.players)]


def points_of(table: Row_) -> list[float] | None:
    """A done table's points by seat (None until it is done)."""
    return None if table.points is None else [float(p) for p in json.loads(table.points)]


def bump(conn: Connection, tournament_id: int, **values: Any) -> int:
    """Write ``values`` on the tournament and bump its version; the new version."""
    version = conn.execute(
        update(TOURNAMENTS)
        .where(TOURNAMENTS.c.id == tournament_id)
        .values(version=TOURNAMENTS.c.version + 1, **values)
        .returning(TOURNAMENTS.c.version)
    ).scalar_one()
    return int(version)


def options_of(row: Row_) -> Any:
    """A tournament's decoded game options."""
    return codec.loads(row.options, entry_of(row.game).game.options_type)


def allowed_tables(game: str, options: Any) -> list[int]:
    """The seat counts a game of ``game`` with ``options`` (decoded) may be played with."""
    entry = games.get(game)
    allowed = []
    for seats in range(entry.game.min_seats, entry.game.max_seats + 1):
        try:
            entry.game.check_seats(seats)
            entry.game.start(seats, options)
        except (DicehallError, ValueError):
            continue
        allowed.append(seats)
    return allowed


def seat_range(row: Row_) -> tuple[int, int]:
    """The smallest and largest table a tournament's game allows with its options."""
    allowed = allowed_tables(row.game, options_of(row))
    return (min(allowed), max(allowed)) if allowed else (row.table_seats, row.table_seats)


def json_list(values: Sequence[object]) -> str:
    """A list as the tables store it."""
    return json.dumps(list(values), separators=(",", ":"))
