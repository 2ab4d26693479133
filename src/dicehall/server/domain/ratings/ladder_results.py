"""A ladder game's end, in the transaction that ends it: the challenge closes, both players
count as active, and a win from below moves the winner up (see
:func:`~dicehall.server.domain.ratings.ladder_moves.win_from_below`). A draw, an abort or
a win from above moves nothing.

Called from :func:`dicehall.server.domain.games.play.write_game`, the one place every
change of a game is written, so no ending (by the rules, a resignation, a timeout, an
abort) is missed and none is counted twice: the challenge is closed under the game's row
lock, and a closed challenge is never settled again.
"""

from __future__ import annotations

import json

from sqlalchemy import Connection, select, update

from dicehall.server.core.clock import now
from dicehall.server.domain.games.records import GameRecord, seats_of
from dicehall.server.domain.ratings import ladder_moves
from dicehall.server.domain.ratings.ladder_moves import CHALLENGES, POSITIONS, Move

#: The statuses of a game that is over.
ENDED = ("finished", "aborted", "cancelled")


def settle_game(conn: Connection, record: GameRecord) -> list[Move]:
    """Settle ladder game ``record`` if it has ended and its challenge is still open; the
    moves made."""
    if not record.ladder or record.status not in ENDED:
        return []
    challenge = conn.execute(
        select(CHALLENGES).where(CHALLENGES.c.game_id == record.id, CHALLENGES.c.open.is_(True))
    ).first()
    if challenge is None:
        return []
    kind = challenge.kind
    at = record.ended_at or now()
    ladder_moves.lock(conn, kind)
    conn.execute(update(CHALLENGES).where(CHALLENGES.c.id == challenge.id).values(open=False))
    players = (challenge.challenger_pk, challenge.opponent_pk)
    conn.execute(
        update(POSITIONS)
        .where(POSITIONS.c.kind == kind, POSITIONS.c.user_pk.in_(players))
        .values(active_at=at)
    )
    winner = _sole_winner(conn, record)
    if winner is None or winner not in players:
        return []
    loser = players[1] if winner == players[0] else players[0]
    return ladder_moves.win_from_below(conn, kind, winner, loser, at, record.id)


def _sole_winner(conn: Connection, record: GameRecord) -> int | None:
    # The user who won a finished game alone (None: a draw, or no result).
    if record.status != "finished" or record.result is None:
        return None
    winners = json.loads(record.result).get("winners", [])
    if len(winners) != 1:
        return None
    seat = next((s for s in seats_of(conn, record.id) if s.seat == winners[0]), None)
    return None if seat is None else seat.user_pk
