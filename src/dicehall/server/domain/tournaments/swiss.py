"""Swiss rounds: players ranked by points, then rating (the seed), meet players on the same
score, never across an ignore, and not again where another pairing is possible.

- **2 seats**: a pairing equivalent to the Dutch system's aims, as one maximum-weight
  matching (networkx, Edmonds' blossom) with costs in strict priority order: no second bye,
  no rematch, the bye to the lowest score, the smallest score differences, then within a
  score group the top half against the bottom half (1 v 5, 2 v 6, ... in a group of 8) and a
  floater from the bottom of the group above meeting the top of the group below; an odd
  number gives one bye, to the lowest-ranked player who has not had one. Apart pairs get no
  edge at all: a player nobody else may meet has a bye.
- **3+ seats**: score order (the leaders at table 1) cut into tables of ``table``; a
  remainder adds one seat to each of the last tables where ``max_seats`` allows, else makes
  one table more of at least ``min_seats`` (the tables as even as possible), else widens the
  last tables further up to ``max_seats``, else gives byes to the lowest-ranked players
  without one. Then swaps between near tables (neighbours and
  next-but-one) remove apart pairs and repeat meetings while moving players as little as
  possible; an apart pair that no swap can part costs one of them their seat (a bye, or a
  free seat at another table) rather than sit together.

The same input always gives the same plan. A bye scores as a win (the caller records it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from itertools import combinations

from dicehall.server.domain.tournaments.apart import separate

#: A player's points, in hundredths, for comparing scores exactly.
_SCALE = 100


@dataclass(frozen=True)
class Entrant:
    """A player to seat: ``key`` the user pk, ``points`` so far, ``rating`` the seed."""

    key: int
    points: float
    rating: float


def ranked(entrants: Sequence[Entrant]) -> list[Entrant]:
    """Best first: points, then rating, then the key (so ties are stable)."""
    return sorted(entrants, key=lambda e: (-e.points, -e.rating, e.key))


def _score(points: float) -> int:
    return round(points * _SCALE)


def swiss_round(
    entrants: Sequence[Entrant],
    table: int,
    min_seats: int,
    max_seats: int,
    met: Mapping[frozenset[int], int],
    apart: AbstractSet[frozenset[int]],
    had_bye: AbstractSet[int],
) -> list[list[int]]:
    """One Swiss round: tables of keys, table 1 first (the leaders); ``[k]`` alone is a bye
    (listed last). ``met`` counts earlier meetings per pair, ``apart`` the pairs who may not
    meet, ``had_bye`` who has had a bye."""
    order = ranked(entrants)
    if table <= 2:
        return _pairs(order, met, apart, had_bye)
    return _tables(order, table, min_seats, max_seats, met, apart, had_bye)


# -- two seats -----------------------------------------------------------------------------------


def _encode(
    costs: dict[tuple[int, int], tuple[int, ...]], pairs: int
) -> dict[tuple[int, int], int]:
    """Lexicographic cost tuples as one integer each, so that comparing the sums over any
    matching of ``pairs`` edges compares level by level (each level's radix exceeds the
    largest sum the levels below can reach)."""
    levels = len(next(iter(costs.values())))
    radix = [pairs * max(c[k] for c in costs.values()) + 1 for k in range(levels)]
    weights = {}
    for edge, cost in costs.items():
        value = 0
        for k in range(levels):
            value = value * radix[k] + cost[k]
        weights[edge] = value
    return weights


def _pairs(
    order: Sequence[Entrant],
    met: Mapping[frozenset[int], int],
    apart: AbstractSet[frozenset[int]],
    had_bye: AbstractSet[int],
) -> list[list[int]]:
    n = len(order)
    if n < 2:
        return [[e.key] for e in order]
    scores = [_score(e.points) for e in order]
    # Position inside the score group, and the group's size, for the Dutch halves.
    group_start = {s: scores.index(s) for s in scores}
    size = {s: scores.count(s) for s in scores}
    pos = [i - group_start[s] for i, s in enumerate(scores)]
    lowest = scores[-1]
    costs: dict[tuple[int, int], tuple[int, ...]] = {}
    for i, j in combinations(range(n), 2):
        a, b = order[i].key, order[j].key
        if frozenset((a, b)) in apart:
            continue
        if scores[i] == scores[j]:
            half = size[scores[i]] // 2
            shape = abs(pos[j] - pos[i] - half)
        else:
            shape = (size[scores[i]] - 1 - pos[i]) + pos[j]
        rematch = met.get(frozenset((a, b)), 0)
        costs[(i, j)] = (0, rematch, 0, (scores[i] - scores[j]) ** 2, shape)
    bye = n
    if n % 2:
        for i, e in enumerate(order):
            costs[(i, bye)] = (int(e.key in had_bye), 0, scores[i] - lowest, 0, n - 1 - i)
    if not costs:
        return [[e.key] for e in order]
    weights = _encode(costs, n // 2 + 1)
    top = max(weights.values()) + 1
    import networkx as nx  # a tenth of a second to import: only when pairing

    graph: nx.Graph[int] = nx.Graph()
    graph.add_nodes_from(range(n + n % 2))
    for (i, j), w in weights.items():
        graph.add_edge(i, j, weight=top - w)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    tables = sorted(sorted(pair) for pair in matching if bye not in pair)
    seated = {i for pair in tables for i in pair}
    byes = [i for i in range(n) if i not in seated]
    return [[order[i].key, order[j].key] for i, j in tables] + [[order[i].key] for i in byes]


# -- three seats and more -------------------------------------------------------------------------


def table_sizes(players: int, table: int, min_seats: int, max_seats: int) -> tuple[list[int], int]:
    """How ``players`` sit in tables of ``table``: the table sizes (table 1 first) and the
    number of byes. Extra players widen the last tables by one seat each where ``max_seats``
    allows; else make one more table of at least ``min_seats`` (all as even as possible);
    else widen the last tables further, up to ``max_seats`` (a real game beats free wins);
    else byes."""
    low = max(2, min(min_seats, table))
    high = max(table, max_seats)
    if players < low:
        return [], players
    whole, extra = divmod(players, table)
    if extra == 0:
        return [table] * whole, 0
    if whole and extra <= whole * (min(high, table + 1) - table):
        return _widened(whole, extra, table), 0
    each, over = divmod(players, whole + 1)
    if each >= low:
        return [each + 1] * over + [each] * (whole + 1 - over), 0
    if whole and extra <= whole * (high - table):
        return _widened(whole, extra, table), 0
    return [table] * whole, extra


def _widened(whole: int, extra: int, table: int) -> list[int]:
    """``whole`` tables of ``table`` with ``extra`` seats added one by one from the last."""
    sizes = [table] * whole
    for k in range(extra):
        sizes[-1 - k % whole] += 1
    return sizes


def _cost(
    table: Sequence[int], met: Mapping[frozenset[int], int], apart: AbstractSet[frozenset[int]]
) -> tuple[int, int]:
    pairs = [frozenset(p) for p in combinations(table, 2)]
    return sum(p in apart for p in pairs), sum(met.get(p, 0) for p in pairs)


def _near(count: int) -> list[tuple[int, int]]:
    """The pairs of tables a swap may join: neighbours, and next-but-one."""
    return [(t, t + d) for d in (1, 2) for t in range(count - d)]


def _improve(
    tables: list[list[int]],
    met: Mapping[frozenset[int], int],
    apart: AbstractSet[frozenset[int]],
) -> None:
    """Swap players between near tables (:func:`_near`) while that lowers (apart pairs together,
    repeat meetings, players moved from their score-order table), best swap first."""
    home = {p: t for t, players in enumerate(tables) for p in players}
    costs = [_cost(t, met, apart) for t in tables]
    while True:
        best: tuple[tuple[int, int, int], tuple[int, int], int, int] | None = None
        for t, u in _near(len(tables)):
            for x in tables[t]:
                for y in tables[u]:
                    new_t = _cost([y if p == x else p for p in tables[t]], met, apart)
                    new_u = _cost([x if p == y else p for p in tables[u]], met, apart)
                    moved = (abs(u - home[x]) - abs(t - home[x])) + (
                        abs(t - home[y]) - abs(u - home[y])
                    )
                    delta = (
                        new_t[0] + new_u[0] - costs[t][0] - costs[u][0],
                        new_t[1] + new_u[1] - costs[t][1] - costs[u][1],
                        moved,
                    )
                    if delta < (0, 0, 0) and (best is None or delta < best[0]):
                        best = (delta, (t, u), x, y)
        if best is None:
            return
        _, (t, u), x, y = best
        tables[t] = [y if p == x else p for p in tables[t]]
        tables[u] = [x if p == y else p for p in tables[u]]
        costs[t] = _cost(tables[t], met, apart)
        costs[u] = _cost(tables[u], met, apart)


def _tables(
    order: Sequence[Entrant],
    table: int,
    min_seats: int,
    max_seats: int,
    met: Mapping[frozenset[int], int],
    apart: AbstractSet[frozenset[int]],
    had_bye: AbstractSet[int],
) -> list[list[int]]:
    sizes, byes = table_sizes(len(order), table, min_seats, max_seats)
    keys = [e.key for e in order]
    # The byes go to the lowest-ranked who have had none, then (if need be) to those who have.
    bottom_up = [k for k in reversed(keys) if k not in had_bye] + [
        k for k in reversed(keys) if k in had_bye
    ]
    out = set(bottom_up[:byes])
    seated = [k for k in keys if k not in out]
    tables: list[list[int]] = []
    for size in sizes:
        tables.append(seated[:size])
        seated = seated[size:]
    _improve(tables, met, apart)
    rank = {k: i for i, k in enumerate(keys)}
    units = tables + [[k] for k in keys if k in out]
    widest = max([*sizes, min(max(table, max_seats), table + 1)])
    return separate(units, apart, rank, min_seats, widest)
