"""The matcher's plan, pure: waiting tickets of one queue in, tables out (no database).

One queue is every ticket for the same game, options, pace and rated flag. Within it:

1. **Tables of 3 or more**, oldest ticket first: the ticket and the tickets nearest to it in
   rating, for the largest table size every member accepts (``low <= size <= high``);
   nobody across an ignore, nobody twice, and the table's spread of ratings within the
   :func:`allowance` of its longest-waiting member.
2. **Tables of 2**, for the tickets left that accept two seats: a maximum-weight matching
   (``networkx.max_weight_matching``, most pairs first) where a pair weighs more the closer
   its ratings are. The graph stays sparse: each ticket is linked to its nearest
   :data:`NEIGHBOURS` acceptable tickets above it in rating (so also to those below).
3. **Bots**: a ticket whose ``bots_after`` has passed gets bots for the seats its smallest
   table lacks (one person and ``low - 1`` bots).

The acceptable rating gap widens with waiting time (:func:`allowance`). Two players whose
last auto-matched game (within a day) had them together are matched again only when no
other table is possible: big tables are first sought without such a pair, and a pair's
weight drops by :data:`REPEAT_PENALTY`, more than any difference of ratings can make up.
A table smaller than some member would accept waits :data:`GROW_SECONDS` for more players
(counted from its longest-waiting member's ticket).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

#: The rating gap (shown points) a new ticket accepts, and how much it widens per minute.
GAP_START = 100.0
GAP_PER_MINUTE = 100.0
#: A table below some member's largest accepted size waits this long for more players.
GROW_SECONDS = 60.0
#: Two-seat candidates: each ticket's nearest acceptable tickets above it in rating.
NEIGHBOURS = 6
#: Bigger tables: how many of the nearest tickets a table is chosen from.
CANDIDATES = 32
#: Pair weights: a base every pair has, less its rating gap (capped), less the penalty
#: for meeting again (more than two gaps can ever make up).
PAIR_BASE = 1_000_000
GAP_CAP = 10_000
REPEAT_PENALTY = 500_000


@dataclass(frozen=True)
class Wanted:
    """A waiting ticket as the plan sees it."""

    id: int
    user: int
    #: The table sizes the player accepts, smallest and largest.
    low: int
    high: int
    #: The player's shown rating for the queue's kind (1500 for a new player).
    rating: float
    #: Seconds since the ticket was filed.
    waited: float
    #: Seconds after which the missing seats may be bots (None: never).
    bots_after: float | None = None

    @property
    def gap(self) -> float:
        """The rating gap this ticket accepts now."""
        return allowance(self.waited)

    @property
    def bots_due(self) -> bool:
        """Bots may fill this ticket's missing seats now."""
        return self.bots_after is not None and self.waited >= self.bots_after


@dataclass(frozen=True)
class Table:
    """A table to start: its tickets (the people, oldest first) and how many bot seats."""

    tickets: tuple[int, ...]
    bots: int = 0

    @property
    def size(self) -> int:
        """Its seats, people and bots."""
        return len(self.tickets) + self.bots


Pairs = set[frozenset[int]]
"""Pairs of user pks (across an ignore, or met in their last auto-matched game)."""


def allowance(waited: float) -> float:
    """The rating gap (shown points) a ticket accepts after waiting ``waited`` seconds."""
    return GAP_START + GAP_PER_MINUTE * max(0.0, waited) / 60.0


def plan(wanted: Sequence[Wanted], apart: Pairs, recent: Pairs) -> list[Table]:
    """The tables for one queue's waiting tickets (see the module's docstring)."""
    pool = _one_per_user(wanted)
    oldest_first = sorted(pool, key=lambda w: (-w.waited, w.id))
    by_rating = sorted(pool, key=lambda w: (w.rating, w.id))
    ratings = [w.rating for w in by_rating]
    widest = max((w.gap for w in pool), default=0.0)
    taken: set[int] = set()
    tables: list[Table] = []
    for seed in oldest_first:
        if seed.id in taken or seed.high < 3:
            continue
        near = _nearest(seed, by_rating, ratings, widest, taken, apart)
        members = _big_table(seed, near, apart, recent)
        if members is not None:
            tables.append(Table(tuple(m.id for m in members)))
            taken.update(m.id for m in members)
    twos = [w for w in by_rating if w.id not in taken and w.low <= 2]
    for first, second in _pairs(twos, widest, apart, recent):
        tables.append(Table((first.id, second.id)))
        taken.update((first.id, second.id))
    for ticket in oldest_first:
        if ticket.id not in taken and ticket.bots_due:
            tables.append(Table((ticket.id,), bots=ticket.low - 1))
            taken.add(ticket.id)
    return tables


def _one_per_user(wanted: Iterable[Wanted]) -> list[Wanted]:
    # The filing rules allow one waiting ticket per player and game; should two slip in,
    # the older one counts and the other waits.
    kept: dict[int, Wanted] = {}
    for ticket in sorted(wanted, key=lambda w: (-w.waited, w.id)):
        kept.setdefault(ticket.user, ticket)
    return list(kept.values())


def _together(a: Wanted, b: Wanted, pairs: Pairs) -> bool:
    return frozenset((a.user, b.user)) in pairs


def _nearest(
    seed: Wanted,
    by_rating: list[Wanted],
    ratings: list[float],
    widest: float,
    taken: set[int],
    apart: Pairs,
) -> list[Wanted]:
    """Up to :data:`CANDIDATES` free tickets for a big table with ``seed``, nearest in
    rating first (never beyond the widest gap any ticket accepts)."""
    at = bisect.bisect_left(ratings, seed.rating)
    below, above = at - 1, at
    found: list[Wanted] = []
    while len(found) < CANDIDATES:
        down = seed.rating - ratings[below] if below >= 0 else math.inf
        up = ratings[above] - seed.rating if above < len(ratings) else math.inf
        if min(down, up) > widest:
            break
        if down <= up:
            other, below = by_rating[below], below - 1
        else:
            other, above = by_rating[above], above + 1
        if (
            other.id != seed.id
            and other.id not in taken
            and other.user != seed.user
            and other.high >= 3
            and not _together(seed, other, apart)
        ):
            found.append(other)
    return found


def _big_table(
    seed: Wanted, near: list[Wanted], apart: Pairs, recent: Pairs
) -> list[Wanted] | None:
    """The largest table of 3+ for ``seed`` from ``near`` (nearest first), first without a
    pair that met last time, then with; None when there is none yet."""
    top = min(seed.high, len(near) + 1)
    for avoid_repeats in (True, False):
        for size in range(top, max(3, seed.low) - 1, -1):
            members = _fill(seed, near, size, apart, recent if avoid_repeats else set())
            if members is not None and _ready(members, size):
                return members
    return None


def _fill(
    seed: Wanted, near: list[Wanted], size: int, apart: Pairs, avoid: Pairs
) -> list[Wanted] | None:
    members = [seed]
    low = high = seed.rating
    limit = seed.gap
    for other in near:
        if not other.low <= size <= other.high:
            continue
        if any(_together(m, other, apart) or _together(m, other, avoid) for m in members):
            continue
        if any(m.user == other.user for m in members):
            continue
        new_limit = max(limit, other.gap)
        if max(high, other.rating) - min(low, other.rating) > new_limit:
            continue
        members.append(other)
        low, high, limit = min(low, other.rating), max(high, other.rating), new_limit
        if len(members) == size:
            return members
    return None


def _ready(members: Sequence[Wanted], size: int) -> bool:
    """A table forms when no member would take a bigger one, or once its longest-waiting
    member has waited :data:`GROW_SECONDS` for more players."""
    full = size >= min(m.high for m in members)
    return full or max(m.waited for m in members) >= GROW_SECONDS


def _pairs(
    twos: list[Wanted], widest: float, apart: Pairs, recent: Pairs
) -> list[tuple[Wanted, Wanted]]:
    """The two-seat tables: a maximum-weight matching of ``twos`` (sorted by rating)."""
    import networkx as nx  # a tenth of a second to import: only when pairing

    graph: nx.Graph[int] = nx.Graph()
    for index, first in enumerate(twos):
        linked = 0
        for second in twos[index + 1 :]:
            gap = second.rating - first.rating
            if gap > widest or linked >= NEIGHBOURS:
                break
            if first.user == second.user or _together(first, second, apart):
                continue
            if gap > max(first.gap, second.gap) or not _ready((first, second), 2):
                continue
            weight = PAIR_BASE - min(GAP_CAP, round(gap))
            if _together(first, second, recent):
                weight -= REPEAT_PENALTY
            graph.add_edge(first.id, second.id, weight=weight)
            linked += 1
    if graph.number_of_edges() == 0:
        return []
    by_id = {w.id: w for w in twos}
    matched = nx.max_weight_matching(graph, maxcardinality=True)
    pairs = []
    for a, b in matched:
        first, second = sorted((by_id[a], by_id[b]), key=lambda w: (-w.waited, w.id))
        pairs.append((first, second))
    return sorted(pairs, key=lambda pair: (-pair[0].waited, pair[0].id))


def valid(wanted: Sequence[Wanted], tables: Sequence[Table], apart: Pairs) -> list[str]:
    """What is wrong with ``tables`` for ``wanted`` (empty: nothing): a size outside a
    member's range, a ticket or a player twice, two players across an ignore. For tests
    and the benchmark."""
    by_id = {w.id: w for w in wanted}
    problems: list[str] = []
    seen: set[int] = set()
    for table in tables:
        members = [by_id[i] for i in table.tickets]
        for member in members:
            if not member.low <= table.size <= member.high:
                problems.append(f"table {table} is outside ticket {member.id}'s range")
            if member.id in seen:
                problems.append(f"ticket {member.id} sits twice")
            seen.add(member.id)
        users = [m.user for m in members]
        if len(set(users)) != len(users):
            problems.append(f"table {table} seats a player twice")
        for index, first in enumerate(members):
            for second in members[index + 1 :]:
                if _together(first, second, apart):
                    problems.append(f"table {table} crosses an ignore")
        if table.bots and not all(m.bots_due for m in members):
            problems.append(f"table {table} has bots nobody asked for yet")
    return problems
