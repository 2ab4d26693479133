"""A tournament's standings from its rows: points, tie-breaks and places, live or final.

Places come from :func:`.standings.standings` (points, then the tie-breaks); a knockout
ranks first by how far each player got (the last one in first, then those knocked out
later), then by the standings.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection

from dicehall.server.domain.tournaments import standings, swiss
from dicehall.server.domain.tournaments.rows import (
    Row_,
    players_of,
    points_of,
    seated,
    tables_of,
)


@dataclass(frozen=True)
class Ranked:
    """One player's line in the standings."""

    place: int
    standing: standings.Standing
    player: Row_


def ranked(conn: Connection, tournament: Row_) -> list[Ranked]:
    """Every player of ``tournament`` in order, best first, from the tables done so far."""
    players = {int(p.user_pk): p for p in players_of(conn, tournament.id)}
    entrants = [swiss.Entrant(pk, float(p.points), float(p.seed)) for pk, p in players.items()]
    played = []
    for table in tables_of(conn, tournament.id):
        points = points_of(table)
        if table.done and points is not None:
            played.append(standings.PlayedTable(tuple(seated(table)), tuple(points)))
    lines = standings.standings(entrants, played)
    if tournament.format != "knockout":
        return [Ranked(s.place, s, players[s.key]) for s in lines]
    far = {pk: _reached(p) for pk, p in players.items()}
    order = sorted(lines, key=lambda s: (-far[s.key], s.place))
    out: list[Ranked] = []
    for index, line in enumerate(order):
        previous = out[-1] if out else None
        same = (
            previous is not None
            and far[previous.standing.key] == far[line.key]
            and previous.standing.place == line.place
        )
        out.append(
            Ranked(previous.place if same and previous else index + 1, line, players[line.key])
        )
    return out


def _reached(player: Row_) -> int:
    # How far a knockout player got: the round they left in, or further than anyone.
    return 10_000 if player.left_round is None else int(player.left_round)


def final_places(conn: Connection, tournament: Row_) -> dict[int, int]:
    """Each player's final place (user pk to place)."""
    return {line.standing.key: line.place for line in ranked(conn, tournament)}
