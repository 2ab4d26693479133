"""Knockout rounds: tables of the game's size, the top of each table goes on.

A round of ``n`` players makes ``ceil(n / table)`` places in the next round (so a knockout
of ``n`` takes ``ceil(log_table n)`` rounds), as full tables where it can: the deficit of
seats becomes byes for the best seeds (they go straight on), as many as whole tables allow,
and the rest sit in tables as even as possible (never fewer than ``min_seats``, at least 2).
When ``min_seats`` forbids that, the round makes more places instead, never leaving 2 to
``min_seats - 1`` players for the next where any plan avoids it (4 players in tables of
exactly 3 cannot: their final is a table of 2). Seeds (ratings) spread by snake order: seed 1 at
table 1, seed 2 at table 2, ... back up from the last table; the smaller tables come first,
so the best seeds meet fewest. An apart pair is split by a swap between tables (a bye when
none works). Should that leave everyone on a bye, one table that may meet is seated (largest,
then best seeds); when none can, every player has a bye and the caller must decide (no two
players left may sit together).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from itertools import combinations, islice

from dicehall.server.domain.tournaments.apart import clashes, separate
from dicehall.server.domain.tournaments.swiss import Entrant


def round_sizes(players: int, table: int, min_seats: int = 2) -> tuple[list[int], int]:
    """The table sizes (smallest first) and the number of byes for a knockout round of
    ``players``."""
    if players <= 1:
        return [], players
    if players <= table:
        return [players], 0
    low = max(2, min(min_seats, table))
    # Some counts cannot avoid a short final (4 in threes of at least 3): then allow it.
    for least in sorted({low, 2}, reverse=True):
        for places in range(max(-(-players // table), least), players):
            deficit = places * table - players
            for byes in range(min(deficit // (table - 1), places - 1), -1, -1):
                count, seated = places - byes, players - byes
                if count * least <= seated <= count * table:
                    each, over = divmod(seated, count)
                    return [each] * (count - over) + [each + 1] * over, byes
    raise AssertionError("unreachable: with tables of 2 or more, ceil(n / table) places fit")


def knockout_rounds(players: int, table: int, min_seats: int = 2) -> int:
    """How many rounds a knockout of ``players`` in tables of ``table`` takes until one
    player remains (byes forced by ignores can change later rounds)."""
    rounds = 0
    while players > 1:
        sizes, byes = round_sizes(players, table, min_seats)
        players = len(sizes) + byes
        rounds += 1
    return rounds


def knockout_round(
    entrants: Sequence[Entrant], table: int, min_seats: int, apart: AbstractSet[frozenset[int]]
) -> list[list[int]]:
    """One knockout round: tables of keys (the best seeds' tables first); ``[k]`` alone is a
    bye (listed last), which goes straight on."""
    seeds = [e.key for e in sorted(entrants, key=lambda e: (-e.rating, e.key))]
    sizes, byes = round_sizes(len(seeds), table, min_seats)
    tables: list[list[int]] = [[] for _ in sizes]
    step, t = 1, 0
    for key in seeds[byes:]:
        while len(tables[t]) == sizes[t]:
            t, step = _snake(t, step, len(sizes))
        tables[t].append(key)
        t, step = _snake(t, step, len(sizes))
    rank = {k: i for i, k in enumerate(seeds)}
    units = tables + [[k] for k in seeds[:byes]]
    plan = separate(units, apart, rank, min_seats, max(table, 2))
    if len(plan) == len(seeds) > 1:
        # Everyone has a bye, so the knockout would stand still: seat any clean table.
        return _rescue(seeds, table, max(2, min(min_seats, table)), apart) or plan
    return plan


#: How many groups :func:`_rescue` looks at before giving up.
_RESCUE_TRIES = 20_000


def _rescue(
    seeds: Sequence[int], table: int, low: int, apart: AbstractSet[frozenset[int]]
) -> list[list[int]] | None:
    """The first group (largest, then best seeds) with no apart pair, the rest on byes."""
    for size in range(min(table, len(seeds)), low - 1, -1):
        for group in islice(combinations(seeds, size), _RESCUE_TRIES):
            if not clashes(group, apart):
                return [list(group)] + [[k] for k in seeds if k not in group]
    return None


def _snake(t: int, step: int, count: int) -> tuple[int, int]:
    """The next table in snake order (0, 1, .., n-1, n-1, .., 0, 0, 1, ..)."""
    if 0 <= t + step < count:
        return t + step, step
    return t, -step


def goes_on(players: Sequence[int], points: Sequence[float], seeds: Mapping[int, float]) -> int:
    """Who goes on from a finished table: the most points; a tie goes to the higher seed
    (then the lower key, so it is always one)."""
    best = max(
        range(len(players)), key=lambda i: (points[i], seeds.get(players[i], 0.0), -players[i])
    )
    return players[best]
