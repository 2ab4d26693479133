"""Tournaments as the API and the pages show them: the list, one tournament with its
standings and rounds, a user's tournaments (their profile), and the marks of tournament
games (the status page)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, func, select

from dicehall import games
from dicehall.engine import codec
from dicehall.server.core.clock import aware
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.games.records import USERS, variant_title
from dicehall.server.domain.tournaments import entry, paces
from dicehall.server.domain.tournaments.ranking import ranked
from dicehall.server.domain.tournaments.rows import (
    PLAYERS,
    STATUSES,
    TABLES,
    TOURNAMENTS,
    Row_,
    fetch,
    options_of,
    points_of,
    seated,
    tables_of,
)

#: The most tournaments a list holds.
PAGE_MAX = 100


def _moment(value: datetime | None) -> str | None:
    return None if value is None else aware(value).isoformat()


def _names(conn: Connection, user_pks: Sequence[int]) -> dict[int, tuple[str, str]]:
    if not user_pks:
        return {}
    rows = conn.execute(
        select(USERS.c.id, USERS.c.user_id, USERS.c.display_name).where(
            USERS.c.id.in_(sorted(set(user_pks)))
        )
    )
    return {int(r.id): (str(r.user_id), str(r.display_name)) for r in rows}


def summary(row: Row_, players: int) -> dict[str, Any]:
    """A tournament in a list."""
    return {
        "id": row.id,
        "name": row.name,
        "game": row.game,
        "title": variant_title(row.game, row.options),
        "format": row.format,
        "status": row.status,
        "players": players,
        "size": row.size,
        "table_seats": row.table_seats,
        "starts_at": _moment(row.starts_at),
        "round": row.round,
        "rounds_planned": row.rounds,
        "pace": paces.shown(row.pace),
        "rated": bool(row.rated),
        "buddies_only": bool(row.buddies_only),
        "scheduled": row.schedule_key is not None,
    }


def _rounds(tables: Sequence[Row_], names: dict[int, tuple[str, str]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for table in tables:
        if not out or out[-1]["number"] != table.round:
            out.append({"number": table.round, "tables": []})
        out[-1]["tables"].append(
            {
                "number": table.number,
                "seats": [names.get(pk, ("?", "?"))[0] for pk in seated(table)],
                "game_id": table.game_id,
                "points": points_of(table),
                "done": bool(table.done),
            }
        )
    return out


def _why_not(conn: Connection, row: Row_, viewer_pk: int | None) -> str | None:
    if viewer_pk is None:
        return "sign in to join" if row.status == "open" else f"this tournament is {row.status}"
    refused = entry.why_not(conn, row, viewer_pk)
    return None if refused is None else refused.message


def detail(conn: Connection, tournament_id: int, viewer_pk: int | None) -> dict[str, Any]:
    """Tournament ``tournament_id`` as ``viewer_pk`` sees it (None: signed out); 404
    ``no_such_tournament``."""
    row = fetch(conn, tournament_id)
    tables = tables_of(conn, tournament_id)
    lines = ranked(conn, row)
    players = {line.standing.key for line in lines}
    creator = [] if row.created_by is None else [int(row.created_by)]
    names = _names(conn, [*players, *creator, *(pk for t in tables for pk in seated(t))])
    played: dict[int, int] = {}
    for table in tables:
        if table.done and table.game_id is not None:
            for pk in seated(table):
                played[pk] = played.get(pk, 0) + 1
    why_not = _why_not(conn, row, viewer_pk)
    return {
        **summary(row, len(lines)),
        "options": codec.encode(options_of(row)),
        "bank_s": int(row.bank),
        "created_by": None if row.created_by is None else names[int(row.created_by)][0],
        "round_deadline": _moment(row.round_deadline),
        "version": int(row.version),
        "joined": viewer_pk in players,
        "can_join": why_not is None,
        "why_not": why_not,
        "standings": [
            {
                "place": line.place,
                "user_id": names[line.standing.key][0],
                "display_name": names[line.standing.key][1],
                "points": float(line.standing.points),
                "tiebreak": float(line.standing.tiebreak),
                "status": line.player.status,
                "games": played.get(line.standing.key, 0),
            }
            for line in lines
        ],
        "rounds": _rounds(tables, names),
    }


def listing(
    conn: Connection,
    viewer_pk: int | None,
    status: str | None,
    game: str | None,
    limit: int = 50,
) -> list[dict[str, Any]]:
    """Tournaments, newest first, of one status and one game when given (422
    ``invalid_status`` for an unknown status)."""
    del viewer_pk  # everyone sees the same list; whether one may join shows on its page
    query = select(TOURNAMENTS)
    if status is not None:
        if status not in STATUSES:
            raise Refused("invalid", "invalid_status", f"status is one of {', '.join(STATUSES)}")
        query = query.where(TOURNAMENTS.c.status == status)
    if game is not None:
        name = game.strip().lower()
        if name not in games.available():
            return []  # no tournament plays it (and no odd text reaches the database)
        query = query.where(TOURNAMENTS.c.game == name)
    rows = list(
        conn.execute(query.order_by(TOURNAMENTS.c.id.desc()).limit(max(1, min(limit, PAGE_MAX))))
    )
    counts = _counts(conn, [int(r.id) for r in rows])
    return [summary(r, counts.get(int(r.id), 0)) for r in rows]


def _counts(conn: Connection, ids: Sequence[int]) -> dict[int, int]:
    if not ids:
        return {}
    rows = conn.execute(
        select(PLAYERS.c.tournament_id, func.count())
        .where(PLAYERS.c.tournament_id.in_(list(ids)))
        .group_by(PLAYERS.c.tournament_id)
    )
    return {int(r[0]): int(r[1]) for r in rows}


def of_user(conn: Connection, user_pk: int, limit: int = 50) -> list[dict[str, Any]]:
    """``user_pk``'s tournaments, newest first (their profile): id, name, game, format,
    status, place (once finished), points, players."""
    rows = list(
        conn.execute(
            select(TOURNAMENTS, PLAYERS.c.place, PLAYERS.c.points.label("my_points"))
            .join(PLAYERS, PLAYERS.c.tournament_id == TOURNAMENTS.c.id)
            .where(PLAYERS.c.user_pk == user_pk)
            .order_by(TOURNAMENTS.c.id.desc())
            .limit(limit)
        )
    )
    counts = _counts(conn, [int(r.id) for r in rows])
    return [
        {
            "id": r.id,
            "name": r.name,
            "game": r.game,
            "format": r.format,
            "status": r.status,
            "place": r.place,
            "points": float(r.my_points),
            "players": counts.get(int(r.id), 0),
        }
        for r in rows
    ]


def game_markers(conn: Connection, game_ids: Sequence[int]) -> dict[int, dict[str, Any]]:
    """Which of ``game_ids`` are tournament games: game id to the tournament's id and name,
    the round, and the round's deadline while that round is being played."""
    if not game_ids:
        return {}
    rows = conn.execute(
        select(
            TABLES.c.game_id,
            TABLES.c.round,
            TOURNAMENTS.c.id,
            TOURNAMENTS.c.name,
            TOURNAMENTS.c.status,
            TOURNAMENTS.c.round.label("current"),
            TOURNAMENTS.c.round_deadline,
        )
        .join(TOURNAMENTS, TOURNAMENTS.c.id == TABLES.c.tournament_id)
        .where(TABLES.c.game_id.in_(sorted(set(game_ids))))
    )
    out: dict[int, dict[str, Any]] = {}
    for r in rows:
        current = r.status == "running" and r.round == r.current
        out[int(r.game_id)] = {
            "tournament_id": int(r.id),
            "name": r.name,
            "round": int(r.round),
            "deadline": _moment(r.round_deadline) if current else None,
        }
    return out
