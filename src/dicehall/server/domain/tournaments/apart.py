"""Keeping players across an ignore at different tables, for the Swiss and knockout plans.

A table that holds an apart pair first tries a swap with another table (or a bye) that leaves
fewer apart pairs at the two, the best such swap first; when no swap works the lower-ranked
of the pair moves to a table with a free seat, or else sits the round out with a bye. A table
left below its minimum by that is broken up the same way. Every step removes at least one
clash, so this ends. The planners' own goals (scores together, seeds spread) shape the tables
first; this changes as little as it can.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from itertools import combinations


def clashes(table: Sequence[int], apart: AbstractSet[frozenset[int]]) -> list[tuple[int, int]]:
    """The apart pairs sitting together at ``table``."""
    if not apart:
        return []
    return [(a, b) for a, b in combinations(table, 2) if frozenset((a, b)) in apart]


def _clean(table: Sequence[int], apart: AbstractSet[frozenset[int]]) -> bool:
    return not clashes(table, apart)


def _swap(
    units: list[list[int]], i: int, apart: AbstractSet[frozenset[int]], rank: Mapping[int, int]
) -> bool:
    """Swap a player of table ``i`` with one elsewhere (another table or a bye) where that
    leaves fewer apart pairs at the two; the fewest left first, then real tables before
    byes, then the nearest rank. Whether one was found."""
    best: tuple[tuple[int, bool, int, int], int, int, int] | None = None
    for j, other in enumerate(units):
        if j == i:
            continue
        before = len(clashes(units[i], apart)) + len(clashes(other, apart))
        for mover in units[i]:
            for z in other:
                mine = [z if p == mover else p for p in units[i]]
                theirs = [mover if p == z else p for p in other]
                after = len(clashes(mine, apart)) + len(clashes(theirs, apart))
                if after < before:
                    key = (after - before, len(other) == 1, abs(rank[mover] - rank[z]), rank[z])
                    if best is None or key < best[0]:
                        best = (key, mover, j, z)
    if best is None:
        return False
    _, mover, j, z = best
    units[i] = [z if p == mover else p for p in units[i]]
    units[j] = [mover if p == z else p for p in units[j]]
    return True


def _move_or_bye(
    units: list[list[int]],
    player: int,
    apart: AbstractSet[frozenset[int]],
    rank: Mapping[int, int],
    max_seats: int,
) -> None:
    """Seat ``player`` at the table with a free seat nearest their rank where nobody is apart
    from them; else give them a bye."""
    room = [
        j
        for j, unit in enumerate(units)
        if 2 <= len(unit) < max_seats and _clean([*unit, player], apart)
    ]
    if room:
        j = min(room, key=lambda j: (min(abs(rank[p] - rank[player]) for p in units[j]), j))
        units[j].append(player)
    else:
        units.append([player])


def separate(
    units: Sequence[Sequence[int]],
    apart: AbstractSet[frozenset[int]],
    rank: Mapping[int, int],
    min_seats: int,
    max_seats: int,
) -> list[list[int]]:
    """``units`` (tables, and byes as tables of one) with no apart pair at any table, each
    in rank order; byes come last. ``rank`` orders players (0 = best); tables keep
    ``min_seats`` (at least 2) to ``max_seats`` players where they can."""
    plan = [list(u) for u in units]
    low = max(2, min_seats)
    while True:
        found = next(((i, c[0]) for i, u in enumerate(plan) if (c := clashes(u, apart))), None)
        if found is None:
            tables = [sorted(u, key=rank.__getitem__) for u in plan]
            return [u for u in tables if len(u) > 1] + [u for u in tables if len(u) == 1]
        i, (a, b) = found
        if _swap(plan, i, apart, rank):
            continue
        loser = max(a, b, key=rank.__getitem__)
        plan[i].remove(loser)
        _move_or_bye(plan, loser, apart, rank, max_seats)
        if 1 < len(plan[i]) < low:
            rest, plan[i] = plan[i], []
            for player in rest:
                _move_or_bye(plan, player, apart, rank, max_seats)
        plan = [u for u in plan if u]
