"""A tournament game's end, in the transaction that ends it: its table's points, the
players' totals, and who timed out.

Called from :func:`dicehall.server.domain.games.play.write_game`, the one place every
change of a game is written, so no ending (by the rules, a resignation, a timeout, an
abort at the round's deadline) is missed and none is counted twice: the table is marked
done under the tournament's row lock (taken after the game's row, which the caller holds)
and a done table is never scored again. For any other game it costs one indexed read.

Places: a finished game ranks its seats as the ratings do
(:func:`~dicehall.server.domain.ratings.store.place_groups`: by the result, seats that
resigned or timed out last); an aborted game ranks every seat that did not time out in
one shared place, above the seats that did. A seat that timed out withdraws its player
from the later rounds (status ``timed_out``).
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Connection, bindparam, func, select, update

from dicehall.server.domain import jobs
from dicehall.server.domain.games.records import GameRecord, SeatInfo, seats_of
from dicehall.server.domain.ratings.store import place_groups
from dicehall.server.domain.tournaments import live, scoring
from dicehall.server.domain.tournaments.bans import SEAT_TIMEOUTS
from dicehall.server.domain.tournaments.rows import (
    PLAYERS,
    TABLES,
    Row_,
    bump,
    fetch,
    json_list,
    seated,
)

#: The statuses of a game that is over.
ENDED = ("finished", "aborted", "cancelled")
_TABLE_OF_GAME = select(TABLES.c.id, TABLES.c.tournament_id, TABLES.c.done).where(
    TABLES.c.game_id == bindparam("b_game")
)


def groups_of(
    record: GameRecord, seats: Sequence[SeatInfo], timed_out: set[int]
) -> list[list[int]]:
    """A game's seats in place groups, best first (see the module's docstring)."""
    if record.status == "finished" and record.result is not None:
        return place_groups(record, seats)
    stayed = [s.seat for s in seats if s.seat not in timed_out]
    left = sorted(timed_out)
    return [group for group in (stayed, left) if group]


def score_table(
    conn: Connection,
    tournament_id: int,
    table_id: int,
    players: Sequence[int],
    points: Sequence[float],
) -> None:
    """Mark a table done with ``points`` (by seat) and add them to its players' totals."""
    conn.execute(
        update(TABLES).where(TABLES.c.id == table_id).values(points=json_list(points), done=True)
    )
    for user_pk, gained in zip(players, points, strict=True):
        conn.execute(
            update(PLAYERS)
            .where(PLAYERS.c.tournament_id == tournament_id, PLAYERS.c.user_pk == user_pk)
            .values(points=PLAYERS.c.points + float(gained))
        )


def round_done(conn: Connection, tournament_id: int, round_: int) -> bool:
    """Whether every table of round ``round_`` is done."""
    left = conn.execute(
        select(func.count()).where(
            TABLES.c.tournament_id == tournament_id,
            TABLES.c.round == round_,
            TABLES.c.done.is_(False),
        )
    ).scalar_one()
    return int(left) == 0


def settle_game(conn: Connection, record: GameRecord) -> None:
    """Score tournament game ``record`` if it has ended and its table is not done yet
    (nothing for a game of no tournament). The caller holds the game's row lock."""
    if record.status not in ENDED:
        return
    found = conn.execute(_TABLE_OF_GAME, {"b_game": record.id}).first()
    if found is None or found.done:
        return
    tournament = fetch(conn, found.tournament_id, lock=True)
    table = conn.execute(select(TABLES).where(TABLES.c.id == found.id)).one()
    if table.done:
        return
    _settle(conn, tournament, table, record)


def _settle(conn: Connection, tournament: Row_, table: Row_, record: GameRecord) -> None:
    players = seated(table)
    seats = seats_of(conn, record.id)
    timed_out = {
        int(seat)
        for seat in conn.execute(
            select(SEAT_TIMEOUTS.c.seat).where(SEAT_TIMEOUTS.c.game_id == record.id)
        ).scalars()
    }
    points = scoring.table_points(groups_of(record, seats, timed_out), len(players))
    score_table(conn, tournament.id, table.id, players, points)
    gone = [players[seat] for seat in sorted(timed_out) if seat < len(players)]
    if gone:
        conn.execute(
            update(PLAYERS)
            .where(
                PLAYERS.c.tournament_id == tournament.id,
                PLAYERS.c.user_pk.in_(gone),
                PLAYERS.c.status.in_(("active", "withdrawn")),
            )
            .values(status="timed_out", left_round=table.round)
        )
    version = bump(conn, tournament.id)
    live.changed(conn, tournament.id, version)
    current = tournament.status == "running" and table.round == tournament.round
    if current and round_done(conn, tournament.id, table.round):
        jobs.wake(conn, "tournaments")
