"""A player's move as one piece of work: the transaction, the clock that ran out first, the
idempotent replay, the race between twin requests, and the absence a move ends. Runs in a
worker thread; the API's route only adapts HTTP to it."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import Connection
from sqlalchemy.exc import IntegrityError

from dicehall.server.core.clock import now
from dicehall.server.core.models import User
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.games import absence
from dicehall.server.domain.games.ending import apply_timeout, overdue
from dicehall.server.domain.games.payloads import MovePayload, moved
from dicehall.server.domain.games.play import apply_move, find_replay, request_hash
from dicehall.server.domain.games.reading import rated_payload, read_game
from dicehall.server.domain.games.records import GameRecord, SeatInfo, fetch_game, seats_of
from dicehall.server.domain.services import Services
from dicehall.server.domain.work import read, write

Changed = tuple[GameRecord, list[SeatInfo]]


@dataclass(frozen=True)
class Move:
    """What a player sent: the action as JSON, the version they saw, an optional key."""

    game_id: int
    action: object
    expected_version: int
    key: str | None = None


@dataclass
class MoveDone:
    """The game as the mover sees it now, and the changes to push once committed (a timeout
    applied first, then the move; none for a replay)."""

    payload: MovePayload
    changed: list[Changed] = field(default_factory=list)


class _Overdue(Exception):
    """A clock ran out before this move: the timeout is applied first, on its own."""


def make_move(services: Services, user: User, move: Move) -> MoveDone:
    """Apply ``user``'s move (blocking: call it from a worker thread).

    A clock that ran out is applied first in a transaction of its own, and the move is tried
    again against the game it left. A request repeated with its Idempotency-Key answers the
    game as it stands, marked ``replayed``, and changes nothing; so does the loser of two
    twin requests racing in at once.
    """
    bound_to = request_hash(move.game_id, move.action, move.expected_version)

    def work(conn: Connection) -> tuple[MovePayload, Changed | None, bool]:
        # Lock first, then look the key up: a twin request that committed while we waited
        # for the lock is then seen, and answered as a replay rather than as stale.
        record = fetch_game(conn, move.game_id, lock=True)
        if overdue(record, now()):
            raise _Overdue
        if move.key is not None:
            stored = find_replay(conn, user, move.key, bound_to)
            if stored is not None:
                return _replayed(conn, stored, move.game_id, user), None, False
        record, seats, was_away = apply_move(
            conn, services.pool, user, record, move.action, move.expected_version, move.key
        )
        if record.status == "finished":
            services.pool.reveal_ready(conn)
        # Read in the move's own transaction: one connection and one commit per move.
        payload = moved(rated_payload(conn, record, seats, user), replayed=False)
        return payload, (record, seats), was_away

    def time_out(conn: Connection) -> Changed | None:
        record = fetch_game(conn, move.game_id, lock=True)
        return apply_timeout(conn, services.pool, record, now())

    changes: list[Changed] = []
    try:
        try:
            payload, changed, was_away = write(services, work)
        except _Overdue:
            timed_out = write(services, time_out)
            if timed_out is not None:
                changes.append(timed_out)
            payload, changed, was_away = write(services, work)
    except IntegrityError:
        # The same key raced in from a second request and won: answer as a replay.
        if move.key is None:
            raise
        return MoveDone(
            read(services, lambda conn: _after_race(conn, move, user, bound_to)), changes
        )
    if was_away:
        # Any move ends an absence: in a transaction of its own, once the move's lock is
        # released (it locks every game the absence held, in id order; see apply_move).
        back = write(services, lambda conn: _come_back(conn, user, move.game_id))
        if back is not None:
            payload, changed = back
    if changed is not None:
        changes.append(changed)
    return MoveDone(payload, changes)


def _come_back(conn: Connection, user: User, game_id: int) -> tuple[MovePayload, Changed] | None:
    """End ``user``'s absence after their move in ``game_id``: that game, as the mover now
    sees it, when it still waits on them at a deadline the absence had moved (it gets the
    floating hour); None when it no longer does."""
    _, held = absence.come_back(conn, user.id, now())
    record = next((game for game in held if game.id == game_id), None)
    if record is None:
        return None
    seats = seats_of(conn, game_id)
    return moved(rated_payload(conn, record, seats, user), replayed=False), (record, seats)


def _after_race(conn: Connection, move: Move, user: User, bound_to: str) -> MovePayload:
    assert move.key is not None
    stored = find_replay(conn, user, move.key, bound_to)
    if stored is None:
        raise Refused("conflict", "conflict", "the move conflicted with another; try again")
    return _replayed(conn, stored, move.game_id, user)


def _replayed(conn: Connection, stored_game: int, game_id: int, user: User) -> MovePayload:
    if stored_game != game_id:
        raise Refused(
            "invalid", "key_reused", "this Idempotency-Key was already used for another game"
        )
    return moved(read_game(conn, game_id, user), replayed=True)
