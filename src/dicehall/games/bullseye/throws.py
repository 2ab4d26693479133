"""The exact distribution of a counted throw, found by solving the matching rule's re-rolls.

A throw of ``k`` dice is a Markov chain over the multiset of faces on the table: while a face
repeats, the dice showing it are re-rolled (:func:`~dicehall.games.bullseye.scoring.
shared_positions`, the game's own rule). The throw counts when all faces differ. The
absorption probabilities solve ``(I - Q) X = R`` exactly over fractions.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from functools import cache
from itertools import combinations, product

from dicehall.games.bullseye.scoring import shared_positions

Faces = tuple[int, ...]
"""Faces of a counted throw, ascending and all different."""

_FACES = range(1, 7)


def _rolls(count: int) -> list[tuple[int, ...]]:
    return list(product(_FACES, repeat=count))


@cache
def counted_distribution(dice: int) -> dict[Faces, Fraction]:
    """P(a counted throw of ``dice`` dice shows exactly these faces), for 1 to 3 dice."""
    if not 1 <= dice <= 3:
        raise ValueError("a Bull's Eye throw uses 1 to 3 dice")
    transient = sorted({tuple(sorted(r)) for r in _rolls(dice) if shared_positions(r)})
    row = {s: i for i, s in enumerate(transient)}
    finals: list[Faces] = list(combinations(_FACES, dice))
    column = {f: j for j, f in enumerate(finals)}
    n = len(transient)
    lhs = [[Fraction(int(i == j)) for j in range(n)] for i in range(n)]
    rhs = [[Fraction(0)] * len(finals) for _ in range(n)]
    for state in transient:
        i = row[state]
        shared = shared_positions(state)
        kept = [f for p, f in enumerate(state) if p not in shared]
        p = Fraction(1, 6 ** len(shared))
        for roll in _rolls(len(shared)):
            after = tuple(sorted((*kept, *roll)))
            if after in row:
                lhs[i][row[after]] -= p
            else:
                rhs[i][column[after]] += p
    absorbed = _solve(lhs, rhs)
    result = dict.fromkeys(finals, Fraction(0))
    p = Fraction(1, 6**dice)
    for roll in _rolls(dice):
        after = tuple(sorted(roll))
        if after in row:
            for j, final in enumerate(finals):
                result[final] += p * absorbed[row[after]][j]
        else:
            result[after] += p
    return result


@cache
def expected_rolls(dice: int) -> Fraction:
    """The expected number of chance requests (first roll plus re-rolls) for one counted throw."""
    if not 1 <= dice <= 3:
        raise ValueError("a Bull's Eye throw uses 1 to 3 dice")
    transient = sorted({tuple(sorted(r)) for r in _rolls(dice) if shared_positions(r)})
    row = {s: i for i, s in enumerate(transient)}
    n = len(transient)
    lhs = [[Fraction(int(i == j)) for j in range(n)] for i in range(n)]
    rhs = [[Fraction(1)] for _ in range(n)]
    for state in transient:
        shared = shared_positions(state)
        kept = [f for p, f in enumerate(state) if p not in shared]
        p = Fraction(1, 6 ** len(shared))
        for roll in _rolls(len(shared)):
            after = tuple(sorted((*kept, *roll)))
            if after in row:
                lhs[row[state]][row[after]] -= p
    more = _solve(lhs, rhs)
    first = Fraction(1, 6**dice)
    return 1 + sum(
        (first * more[row[tuple(sorted(r))]][0] for r in _rolls(dice) if shared_positions(r)),
        Fraction(0),
    )


@cache
def sum_distribution(dice: int) -> dict[int, Fraction]:
    """P(the dice of a counted throw of ``dice`` dice add up to each total)."""
    out: dict[int, Fraction] = {}
    for faces, p in counted_distribution(dice).items():
        out[sum(faces)] = out.get(sum(faces), Fraction(0)) + p
    return dict(sorted(out.items()))


def _solve(
    lhs: Sequence[Sequence[Fraction]], rhs: Sequence[Sequence[Fraction]]
) -> list[list[Fraction]]:
    """Solve ``lhs @ X = rhs`` exactly by Gauss-Jordan elimination."""
    n = len(lhs)
    a = [list(r) + list(b) for r, b in zip(lhs, rhs, strict=True)]
    for col in range(n):
        pivot = next(r for r in range(col, n) if a[r][col] != 0)
        a[col], a[pivot] = a[pivot], a[col]
        inv = 1 / a[col][col]
        a[col] = [x * inv for x in a[col]]
        # The rows are sparse: only the pivot row's non-zero entries change the others.
        entries = [(j, y) for j, y in enumerate(a[col]) if y]
        for r in range(n):
            factor = a[r][col]
            if r != col and factor:
                row = a[r]
                for j, y in entries:
                    row[j] -= factor * y
    return [r[n:] for r in a]
