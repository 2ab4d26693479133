"""Cup schedules: every player meets every other equally often, in tables of one size.

Only some (players, table) combinations have such a schedule (a resolvable design: rounds
that split everyone into whole tables, every pair together equally often). The ones built
here, each exact:

- tables of 2, any number of players: the circle method, one bye a round when the number is
  odd (everyone sits out once), every pair once;
- as many players as seats: one table;
- one player more than seats: each round one player sits out (a bye, once each), every pair
  meets ``table - 1`` times;
- ``q**n`` players in tables of ``q`` (q = 3, 4 or 5): the lines of the affine space
  AG(n, q), one round per direction, every pair once (9, 27 in threes; 16 in fours; 25 in
  fives);
- 15 in threes: Kirkman's schoolgirls (the lines of PG(3, 2) packed into seven spreads);
- 6 in threes: every split into two halves (every pair 4 times; no schedule meets 2);
- 8, 12, 16 in tables of half that: the rows of a Hadamard matrix (every pair ``table - 1``
  times).

Player indices run 0..size-1; a table of one is a bye.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from itertools import combinations

#: The bounds of a cup.
MIN_SIZE = 2
MAX_SIZE = 32
MIN_TABLE = 2
MAX_TABLE = 8

Plan = list[list[list[int]]]

#: Kirkman's fifteen schoolgirls, a day per line (letters A..O are players 0..14).
_KIRKMAN_15 = (
    "ABC DHL EJO FKM GIN",
    "ADE BHJ CMN FIO GKL",
    "AFG BIK CLO DJN EHM",
    "AHI BLN CEF DKO GJM",
    "AJK BMO CDG EIL FHN",
    "ALM BDF CIJ EKN GHO",
    "ANO BEG CHK DIM FJL",
)


def _circle(size: int, table: int) -> Plan:
    """The circle method: player 0 (or a bye when ``size`` is odd) stays, the rest rotate."""
    ring = list(range(size)) + ([-1] if size % 2 else [])
    n = len(ring)
    rounds: Plan = []
    for r in range(n - 1):
        order = [ring[0], *ring[1:][r:], *ring[1:][:r]]
        pairs = [[order[i], order[n - 1 - i]] for i in range(n // 2)]
        if r % 2:
            # The fixed player alternates between the first and the second seat.
            pairs[0].reverse()
        tables = [p for p in pairs if -1 not in p]
        byes = [[p for p in pair if p != -1] for pair in pairs if -1 in pair]
        rounds.append(tables + byes)
    return rounds


def _one_out(size: int, table: int) -> Plan:
    """``size - 1`` seats: round ``r`` seats everyone but player ``r``, who has a bye."""
    return [[[p for p in range(size) if p != r], [r]] for r in range(size)]


def _field(q: int) -> tuple[list[list[int]], list[list[int]]]:
    """Addition and multiplication tables of GF(q), q a prime or 4."""
    if q == 4:
        # GF(4) = GF(2)[x] / (x^2 + x + 1): elements 0, 1, x, x+1 as 0..3.
        exp, log = [1, 2, 3], {1: 0, 2: 1, 3: 2}
        add = [[a ^ b for b in range(4)] for a in range(4)]
        mul = [
            [0 if 0 in (a, b) else exp[(log[a] + log[b]) % 3] for b in range(4)] for a in range(4)
        ]
        return add, mul
    return (
        [[(a + b) % q for b in range(q)] for a in range(q)],
        [[(a * b) % q for b in range(q)] for a in range(q)],
    )


def _affine(q: int, n: int) -> Plan:
    """The lines of AG(n, q), one round per direction (a parallel class)."""
    add, mul = _field(q)
    points = [tuple((i // q**d) % q for d in range(n)) for i in range(q**n)]
    index = {p: i for i, p in enumerate(points)}
    directions = [p for p in points if any(p) and p[next(i for i, c in enumerate(p) if c)] == 1]
    rounds: Plan = []
    for d in directions:
        seen: set[int] = set()
        tables = []
        for p in points:
            if index[p] in seen:
                continue
            line = sorted(
                index[tuple(add[a][mul[c][b]] for a, b in zip(p, d, strict=True))] for c in range(q)
            )
            seen.update(line)
            tables.append(line)
        rounds.append(tables)
    return rounds


def _affine_cup(size: int, table: int) -> Plan:
    return _affine(table, next(n for n in range(2, 6) if table**n == size))


def _kirkman(size: int, table: int) -> Plan:
    return [[[ord(c) - ord("A") for c in word] for word in day.split()] for day in _KIRKMAN_15]


def _halves(size: int, table: int) -> Plan:
    """Every split of ``size`` players into two halves, once each."""
    rest = range(1, size)
    rounds: Plan = []
    for others in combinations(rest, size // 2 - 1):
        first = [0, *others]
        rounds.append([first, [p for p in rest if p not in first]])
    return rounds


def _hadamard(size: int, table: int) -> Plan:
    """Rows 2.. of a normalized Hadamard matrix of order ``size``: + against - columns."""
    if size == 12:
        # Paley: q = 11 (3 mod 4); H = I + S with S skew from the quadratic character.
        squares = {(x * x) % 11 for x in range(1, 11)}

        def chi(x: int) -> int:
            return 0 if x % 11 == 0 else (1 if x % 11 in squares else -1)

        s = [[0] + [1] * 11] + [[-1] + [chi(j - i) for j in range(11)] for i in range(11)]
        h = [[s[i][j] + (1 if i == j else 0) for j in range(12)] for i in range(12)]
    else:
        h = [[1]]
        while len(h) < size:
            h = [row + row for row in h] + [row + [-x for x in row] for row in h]
    signs = h[0]
    rows = [[x * signs[j] for j, x in enumerate(row)] for row in h]
    return [
        [[j for j in range(size) if row[j] > 0], [j for j in range(size) if row[j] < 0]]
        for row in rows[1:]
    ]


def _builder(size: int, table: int) -> Callable[[int, int], Plan] | None:
    """The construction for a cup of ``size`` in tables of ``table``, if there is one."""
    if table == 2:
        return _circle
    if size == table:
        return _one_table
    if size == table + 1:
        return _one_out
    if table in (3, 4, 5) and any(table**n == size for n in range(2, 6)):
        return _affine_cup
    if (size, table) == (15, 3):
        return _kirkman
    if (size, table) == (6, 3):
        return _halves
    if (size, table) in ((8, 4), (12, 6), (16, 8)):
        return _hadamard
    return None


def _one_table(size: int, table: int) -> Plan:
    return [[list(range(size))]]


def _in_bounds(size: int, table: int) -> str | None:
    if not MIN_TABLE <= table <= MAX_TABLE:
        return f"a cup's tables take {MIN_TABLE} to {MAX_TABLE} seats"
    if not MIN_SIZE <= size <= MAX_SIZE:
        return f"a cup takes {MIN_SIZE} to {MAX_SIZE} players"
    return None


def cup_sizes(table: int) -> list[int]:
    """The numbers of players that make an exact cup in tables of ``table``."""
    return [n for n in range(MIN_SIZE, MAX_SIZE + 1) if _builder(n, table) is not None]


def cup_problem(size: int, table: int) -> str | None:
    """None when a cup of ``size`` players in tables of ``table`` has an exact schedule; else a
    sentence saying why not and which sizes work."""
    bounds = _in_bounds(size, table)
    if bounds is not None:
        return bounds
    if _builder(size, table) is not None:
        return None
    sizes = [str(n) for n in cup_sizes(table)]
    listed = ", ".join(sizes[:-1]) + " or " + sizes[-1]
    return (
        f"no schedule lets every pair of {size} players meet equally often in tables of "
        f"{table}: a cup in tables of {table} takes {listed} players"
    )


@cache
def _plan(size: int, table: int) -> tuple[tuple[tuple[int, ...], ...], ...]:
    builder = _builder(size, table)
    if _in_bounds(size, table) is not None or builder is None:
        raise ValueError(cup_problem(size, table))
    return tuple(tuple(tuple(t) for t in rnd) for rnd in builder(size, table))


def cup_plan(size: int, table: int) -> list[list[list[int]]]:
    """The cup's rounds, each a list of tables of player indices 0..size-1 (a table of one
    is a bye, listed last); every pair meets exactly :func:`cup_meetings` times. ValueError
    when :func:`cup_problem` names a problem."""
    return [[list(t) for t in rnd] for rnd in _plan(size, table)]


def cup_meetings(size: int, table: int) -> int:
    """How many times every pair meets in the cup (1 for most; more where no schedule meets
    once: ``table - 1`` for one player more than seats and for the Hadamard cups, 4 for 6 in
    threes)."""
    return sum(1 for rnd in _plan(size, table) for t in rnd if 0 in t and 1 in t)
