"""A tournament's life once it starts: seeding, each round's tables and their games, moving on
when a round is over, and the final places.

Seeds are the players' ratings of the game's rating kind (mu; 25 without one). A round's
tables come from the format (:mod:`.cup`'s fixed plan mapped onto the players by seed,
:mod:`.swiss` by score, :mod:`.knockout` among those still in); a table of one is a bye
(:data:`~.scoring.BYE_POINTS`, no game); every other table is a game started at once with
every seat accepted, at the tournament's pace (:mod:`.paces`: a fixed bank, no vacation).
A table whose players may no longer meet (an ignore made since they joined) plays no game:
its players share one place. The round's deadline follows from the bank and the largest
table. The caller holds the locks (see :mod:`.job`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, insert, select, update

from dicehall.server.domain import notifications
from dicehall.server.domain.dice.pool import DicePool
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.games.matched import Player, start_matched_game
from dicehall.server.domain.games.pace import Pace
from dicehall.server.domain.games.records import USERS, GameRecord, SeatInfo
from dicehall.server.domain.games.seat_draw import claim, draw_seats
from dicehall.server.domain.people import relations
from dicehall.server.domain.ratings import kinds, model
from dicehall.server.domain.ratings.store import RATINGS
from dicehall.server.domain.singularity import moments
from dicehall.server.domain.tournaments import cup, knockout, live, paces, scoring, swiss
from dicehall.server.domain.tournaments.create import least_players
from dicehall.server.domain.tournaments.ranking import final_places
from dicehall.server.domain.tournaments.results import round_done, score_table
from dicehall.server.domain.tournaments.rows import (
    PLAYERS,
    TABLES,
    Row_,
    allowed_tables,
    bump,
    fetch,
    json_list,
    options_of,
    players_of,
    points_of,
    seated,
    tables_of,
)

#: The most rounds one job step plays through at once (rounds of byes only end at once).
MOST_ROUNDS_AT_ONCE = 25


@dataclass
class Work:
    """What one transaction of the job did: the games it started or ended (pushed to their
    players after the commit)."""

    games: list[tuple[GameRecord, list[SeatInfo]]] = field(default_factory=list)


def seeds(conn: Connection, tournament: Row_, user_pks: Sequence[int]) -> dict[int, float]:
    """Each player's seed: their rating (mu) of the game's kind, or the default."""
    kind = kinds.kind_of(tournament.game, options_of(tournament))
    found: dict[int, float] = {}
    if kind is not None and user_pks:
        rows = conn.execute(
            select(RATINGS.c.user_pk, RATINGS.c.mu).where(
                RATINGS.c.kind == kind, RATINGS.c.user_pk.in_(list(user_pks))
            )
        )
        found = {int(r.user_pk): float(r.mu) for r in rows}
    return {pk: found.get(pk, model.MU) for pk in user_pks}


def planned_rounds(tournament: Row_, players: int, smallest: int) -> int:
    """How many rounds the tournament plays (a knockout's may end sooner)."""
    if tournament.format == "cup":
        return len(cup.cup_plan(players, tournament.table_seats))
    if tournament.format == "knockout":
        return knockout.knockout_rounds(players, tournament.table_seats, smallest)
    return int(tournament.rounds)


def start(conn: Connection, pool: DicePool, tournament: Row_, at: datetime, work: Work) -> None:
    """Start ``tournament`` (locked, open, due) with its players, or cancel it when too
    few joined."""
    players = players_of(conn, tournament.id)
    smallest = min(allowed_tables(tournament.game, options_of(tournament)), default=2)
    least = least_players(tournament.format, tournament.table_seats, smallest, tournament.size)
    if len(players) < least:
        cancel(conn, tournament, at, f"too few players joined ({len(players)} of {least} needed)")
        return
    seeded = seeds(conn, tournament, [int(p.user_pk) for p in players])
    for user_pk, seed in seeded.items():
        conn.execute(
            update(PLAYERS)
            .where(PLAYERS.c.tournament_id == tournament.id, PLAYERS.c.user_pk == user_pk)
            .values(seed=seed)
        )
    bump(
        conn,
        tournament.id,
        status="running",
        started_at=at,
        rounds=planned_rounds(tournament, len(players), smallest),
    )
    play_on(conn, pool, fetch(conn, tournament.id), at, work)


def cancel(conn: Connection, tournament: Row_, at: datetime, why: str) -> None:
    """Cancel an open ``tournament`` and tell its players why."""
    version = bump(conn, tournament.id, status="cancelled", finished_at=at)
    for player in players_of(conn, tournament.id):
        notifications.add(
            conn,
            int(player.user_pk),
            "tournament",
            None,
            f"The tournament {tournament.name} was cancelled: {why}.",
        )
    live.changed(conn, tournament.id, version)


def _another_round(tournament: Row_, active: int, smallest: int) -> bool:
    # Whether a round follows the current one, with ``active`` players still in.
    played, planned = int(tournament.round), int(tournament.rounds or 0)
    if tournament.format == "cup":
        return played < planned and active >= 2
    if active < max(2, smallest):
        return False
    return tournament.format == "knockout" or played < planned


def play_on(conn: Connection, pool: DicePool, tournament: Row_, at: datetime, work: Work) -> None:
    """The current round is over (or the tournament has just started): knock out the
    losers of a knockout, then seat the next round, or finish."""
    smallest = min(allowed_tables(tournament.game, options_of(tournament)), default=2)
    for _ in range(MOST_ROUNDS_AT_ONCE):
        if tournament.format == "knockout" and tournament.round:
            _knock_out(conn, tournament)
        active = sum(1 for p in players_of(conn, tournament.id) if p.status == "active")
        if not _another_round(tournament, active, smallest):
            break
        begin_round(conn, pool, tournament, tournament.round + 1, at, work)
        tournament = fetch(conn, tournament.id)
        if not round_done(conn, tournament.id, tournament.round):
            return
    finish(conn, tournament, at)


def _history(conn: Connection, tournament_id: int) -> tuple[dict[frozenset[int], int], set[int]]:
    met: dict[frozenset[int], int] = {}
    had_bye: set[int] = set()
    for table in tables_of(conn, tournament_id):
        pks = seated(table)
        if len(pks) == 1:
            had_bye.add(pks[0])
        for i, first in enumerate(pks):
            for second in pks[i + 1 :]:
                pair = frozenset((first, second))
                met[pair] = met.get(pair, 0) + 1
    return met, had_bye


def plan_tables(conn: Connection, tournament: Row_, number: int) -> list[list[int]]:
    """Round ``number``'s tables (user pks; a table of one is a bye), every active player
    seated exactly once."""
    players = players_of(conn, tournament.id)
    active = [p for p in players if p.status == "active"]
    allowed = allowed_tables(tournament.game, options_of(tournament))
    if tournament.format == "cup":
        order = sorted(players, key=lambda p: (-p.seed, p.joined_at, p.user_pk))
        plan = cup.cup_plan(len(order), tournament.table_seats)
        if number > len(plan):
            return []
        in_play = {int(p.user_pk) for p in active}
        out: list[list[int]] = []
        for table in plan[number - 1]:
            pks = [int(order[i].user_pk) for i in table if int(order[i].user_pk) in in_play]
            if len(pks) == 1 or len(pks) in allowed:
                out.append(pks)
            else:
                out.extend([pk] for pk in pks)  # too few left to play: byes
        return out
    entrants = [swiss.Entrant(int(p.user_pk), float(p.points), float(p.seed)) for p in active]
    apart = relations.apart_pairs(conn, [e.key for e in entrants])
    smallest, largest = (min(allowed), max(allowed)) if allowed else (2, 2)
    if tournament.format == "knockout":
        return knockout.knockout_round(entrants, tournament.table_seats, smallest, apart)
    met, had_bye = _history(conn, tournament.id)
    return swiss.swiss_round(
        entrants, tournament.table_seats, smallest, largest, met, apart, had_bye
    )


def _handles(conn: Connection, user_pks: Sequence[int]) -> dict[int, str]:
    rows = conn.execute(select(USERS.c.id, USERS.c.user_id).where(USERS.c.id.in_(list(user_pks))))
    return {int(r.id): str(r.user_id) for r in rows}


def begin_round(
    conn: Connection, pool: DicePool, tournament: Row_, number: int, at: datetime, work: Work
) -> None:
    """Seat round ``number``: its tables, their games started, byes scored, the deadline."""
    tables = plan_tables(conn, tournament, number)
    everyone = [pk for table in tables for pk in table]
    handles = _handles(conn, everyone)
    apart = relations.apart_pairs(conn, everyone)
    options = options_of(tournament)
    pace = paces.game_pace(int(tournament.bank))
    widest = max((len(t) for t in tables), default=1)
    for index, pks in enumerate(tables, start=1):
        draw = draw_seats(conn, pool, list(pks), [handles[pk] for pk in pks], tournament.game)
        seats = draw.order
        table_id = conn.execute(
            insert(TABLES)
            .values(
                tournament_id=tournament.id,
                round=number,
                number=index,
                game_id=None,
                players=json_list(seats),
                points=None,
                done=False,
            )
            .returning(TABLES.c.id)
        ).scalar_one()
        if len(seats) == 1:
            score_table(conn, tournament.id, table_id, seats, [scoring.BYE_POINTS])
            _tell(conn, seats[0], None, f"Round {number} of {tournament.name}: you have a bye.")
            continue
        record = _start_game(conn, pool, tournament, seats, handles, options, pace, apart)
        if record is None:
            shared = scoring.table_points([list(range(len(seats)))], len(seats))
            score_table(conn, tournament.id, table_id, seats, shared)
            continue
        claim(conn, draw, record[0].id)
        work.games.append(record)
        conn.execute(update(TABLES).where(TABLES.c.id == table_id).values(game_id=record[0].id))
        for pk in seats:
            _tell(
                conn,
                pk,
                record[0].id,
                f"Round {number} of {tournament.name}: your game {record[0].id} has started.",
            )
    version = bump(
        conn,
        tournament.id,
        round=number,
        round_deadline=paces.round_deadline(at, int(tournament.bank), widest),
    )
    live.changed(conn, tournament.id, version)


def _tell(conn: Connection, user_pk: int, game_id: int | None, text: str) -> None:
    notifications.add(conn, user_pk, "tournament", game_id, text)


def _start_game(
    conn: Connection,
    pool: DicePool,
    tournament: Row_,
    seats: Sequence[int],
    handles: dict[int, str],
    options: Any,
    pace: Pace,
    apart: set[frozenset[int]],
) -> tuple[GameRecord, list[SeatInfo]] | None:
    # None: the table crosses an ignore (made after the players joined), so it plays no game.
    if any(frozenset((a, b)) in apart for a in seats for b in seats if a < b):
        return None
    try:
        return start_matched_game(
            conn,
            pool,
            tournament.game,
            options,
            [Player(pk, handles[pk]) for pk in seats],
            pace=pace,
            rated=bool(tournament.rated),
            vacation=False,
            created_by=int(tournament.created_by or seats[0]),
        )
    except Refused:
        return None


def _knock_out(conn: Connection, tournament: Row_) -> None:
    # Of each table of the round just over, the player who goes on stays; the others are out.
    players = {int(p.user_pk): p for p in players_of(conn, tournament.id)}
    seeds_ = {pk: float(p.seed) for pk, p in players.items()}
    for table in tables_of(conn, tournament.id, tournament.round):
        pks = seated(table)
        points = points_of(table) or [0.0] * len(pks)
        still = [
            (pk, pts) for pk, pts in zip(pks, points, strict=True) if players[pk].status == "active"
        ]
        if len(pks) < 2 or not still:
            continue
        winner = knockout.goes_on([pk for pk, _ in still], [pts for _, pts in still], seeds_)
        losers = [pk for pk, _ in still if pk != winner]
        if losers:
            conn.execute(
                update(PLAYERS)
                .where(PLAYERS.c.tournament_id == tournament.id, PLAYERS.c.user_pk.in_(losers))
                .values(status="out", left_round=tournament.round)
            )


def finish(conn: Connection, tournament: Row_, at: datetime) -> None:
    """Finish ``tournament``: everyone's final place, and each player told theirs."""
    places = final_places(conn, tournament)
    for user_pk, place in places.items():
        conn.execute(
            update(PLAYERS)
            .where(PLAYERS.c.tournament_id == tournament.id, PLAYERS.c.user_pk == user_pk)
            .values(place=place)
        )
    version = bump(conn, tournament.id, status="finished", finished_at=at, round_deadline=None)
    moments.tournament_finished(conn, tournament, places, at)
    for user_pk, place in places.items():
        _tell(
            conn,
            user_pk,
            None,
            f"The tournament {tournament.name} is over: you placed {place} of {len(places)}.",
        )
    live.changed(conn, tournament.id, version)
