"""Who may watch a game: anyone a public game; a private one only its seated players and the
users they invited to watch. To anyone else a private game does not exist (a 404, never a
403, so that its existence is not revealed).

A private game still waiting for players with an open seat is the exception: the waiting
room lists it for anyone to join, so its waiting board is no secret (it holds no dice).

A game waiting for players with an open seat does not exist (a 404) for a user across an
ignore with someone seated at it (:func:`apart_from_table`): as the waiting room leaves it
out for them, its board never offers them a seat that joining would refuse.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from sqlalchemy import Connection, Table, select

from dicehall.server.core.models import GameWatcher
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.games.records import GameRecord, SeatInfo, fetch_game, seats_of
from dicehall.server.domain.people import relations

WATCHERS = cast(Table, GameWatcher.__table__)


def seated(seats: Sequence[SeatInfo], user_pk: int | None) -> bool:
    """Whether ``user_pk`` sits in one of ``seats`` (an invited player counts)."""
    return user_pk is not None and any(s.user_pk == user_pk for s in seats)


def invited_to_watch(conn: Connection, game_id: int, user_pk: int) -> bool:
    """Whether the players invited ``user_pk`` to watch game ``game_id``."""
    found = conn.execute(
        select(WATCHERS.c.user_pk).where(
            WATCHERS.c.game_id == game_id, WATCHERS.c.user_pk == user_pk
        )
    ).first()
    return found is not None


def may_watch(
    conn: Connection, record: GameRecord, seats: Sequence[SeatInfo], user_pk: int | None
) -> bool:
    """Whether the user ``user_pk`` (None: a signed-out visitor) may see game ``record``."""
    taking_players = record.status == "waiting" and any(s.is_open for s in seats)
    if taking_players and apart_from_table(conn, seats, user_pk):
        return False
    if not record.private or taking_players:
        return True
    if user_pk is None:
        return False
    return seated(seats, user_pk) or invited_to_watch(conn, record.id, user_pk)


def apart_from_table(conn: Connection, seats: Sequence[SeatInfo], user_pk: int | None) -> bool:
    """Whether ``user_pk``, not seated in ``seats``, may not sit down with someone who is
    (an ignore either way: the one check's meeting "join")."""
    if user_pk is None or seated(seats, user_pk):
        return False
    there = {s.user_pk for s in seats if s.user_pk is not None}
    return bool(there - relations.may_interact_many(conn, user_pk, there, "join"))


def hidden(game_id: int) -> Refused:
    """The refusal for a game this user may not see: word for word that of a missing game."""
    return Refused("not_found", "not_found", f"there is no game {game_id}")


def check_may_watch(
    conn: Connection, record: GameRecord, seats: Sequence[SeatInfo], user_pk: int | None
) -> None:
    """Refuse (404, as if there were no such game) a user who may not see ``record``."""
    if not may_watch(conn, record, seats, user_pk):
        raise hidden(record.id)


def watchable(
    conn: Connection, game_id: int, user_pk: int | None
) -> tuple[GameRecord, list[SeatInfo]]:
    """Game ``game_id`` and its seats, if ``user_pk`` may see it; else a 404."""
    record = fetch_game(conn, game_id)
    seats = seats_of(conn, game_id)
    check_may_watch(conn, record, seats, user_pk)
    return record, seats
