"""Tournament standings: points (byes included), then three tie-breaks in order.

1. **Sonneborn-Berger, generalised to tables**: for every table a player sat at and every
   opponent there, the opponent's total points times the player's result against them at
   that table (1 placed above, 0.5 level, 0 below). With 2 seats this is the chess
   Sonneborn-Berger (a win counts the loser's score in full, a draw half). Byes add nothing.
2. **The result between the tied players**: among the players still level on points and
   Sonneborn-Berger, the sum of each one's results (as above) against the others at tables
   they shared.
3. **Rating** (the seed).

Players level on all of these share a place (``1, 2, 2, 4``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import groupby

from dicehall.server.domain.tournaments.swiss import Entrant

#: Digits kept when comparing sums of fractional points (2/3 + 2/3 + 2/3 == 2).
_DIGITS = 9


@dataclass(frozen=True)
class PlayedTable:
    """A finished table: players by seat and their tournament points (one player: a bye)."""

    players: tuple[int, ...]
    points: tuple[float, ...]


@dataclass(frozen=True)
class Standing:
    """One line of the standings."""

    key: int
    place: int
    points: float
    tiebreak: float
    head_to_head: float
    rating: float


def _result(mine: float, theirs: float) -> float:
    """My result against one opponent at a table: placed above 1, level 0.5, below 0."""
    mine, theirs = round(mine, _DIGITS), round(theirs, _DIGITS)
    return 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0


def standings(entrants: Sequence[Entrant], tables: Sequence[PlayedTable]) -> list[Standing]:
    """The standings of ``entrants`` (their ``rating`` is the seed; their ``points`` are not
    used: points come from ``tables``), best first, places 1..n."""
    total: dict[int, float] = defaultdict(float)
    for table in tables:
        for player, points in zip(table.players, table.points, strict=True):
            total[player] += points
    berger: dict[int, float] = defaultdict(float)
    # (me, opponent) -> my summed results against them at the tables we shared.
    between: dict[tuple[int, int], float] = defaultdict(float)
    for table in tables:
        seats = list(zip(table.players, table.points, strict=True))
        for me, mine in seats:
            for them, theirs in seats:
                if them == me:
                    continue
                result = _result(mine, theirs)
                berger[me] += total[them] * result
                between[(me, them)] += result

    def level(e: Entrant) -> tuple[float, float]:
        return (round(total[e.key], _DIGITS), round(berger[e.key], _DIGITS))

    by_level = sorted(entrants, key=lambda e: tuple(-x for x in level(e)))
    mutual: dict[int, float] = {}
    for _, tied_group in groupby(by_level, key=level):
        tied = [e.key for e in tied_group]
        for key in tied:
            mutual[key] = sum(between[(key, other)] for other in tied if other != key)

    def rank(e: Entrant) -> tuple[float, float, float, float]:
        points, sb = level(e)
        return (-points, -sb, -round(mutual[e.key], _DIGITS), -e.rating)

    ordered = sorted(entrants, key=lambda e: (rank(e), e.key))
    lines: list[Standing] = []
    for i, e in enumerate(ordered):
        place = lines[-1].place if lines and rank(ordered[i - 1]) == rank(e) else i + 1
        lines.append(
            Standing(
                key=e.key,
                place=place,
                points=total[e.key],
                tiebreak=berger[e.key],
                head_to_head=mutual[e.key],
                rating=e.rating,
            )
        )
    return lines
