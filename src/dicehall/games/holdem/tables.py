"""Fast hand ranking for odds and bots: precomputed rank tables and Numba kernels.

A die is a kind 0..23 (``(face - 1) * 4 + colour``). A hand of n dice is a multiset of
kinds; sorted ascending it has a unique index in the combinatorial number system, so the
best five of any seven dice is one table look-up. The tables are built once per process
(about a second) from the same three keys as :mod:`dicehall.games.holdem.ranking`, and the
tests check the two agree. Importing this module imports Numba, so only odds and bots do.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt
from numba import njit

KINDS = 24
#: The most dice a table index covers.
_MAX_N = 7

IntArray = npt.NDArray[np.int64]
RankArray = npt.NDArray[np.uint16]


def _binomials() -> IntArray:
    table = np.zeros((KINDS + _MAX_N + 1, _MAX_N + 2), dtype=np.int64)
    for n in range(table.shape[0]):
        table[n, 0] = 1
        for k in range(1, min(n, _MAX_N + 1) + 1):
            table[n, k] = table[n - 1, k - 1] + (table[n - 1, k] if k <= n - 1 else 0)
    return table


BINOM = _binomials()


def multisets(n: int) -> int:
    """How many multisets of ``n`` dice kinds there are."""
    return int(BINOM[KINDS - 1 + n, n])


@njit(cache=True)
def _index(sorted_kinds: IntArray, binom: IntArray) -> int:
    total = 0
    for i in range(sorted_kinds.shape[0]):
        total += binom[sorted_kinds[i] + i, i + 1]
    return total


@njit(cache=True)
def _key5(kinds: IntArray) -> int:
    """The rank code of five dice: the same integer as ``HandRank.code``."""
    counts = np.zeros(7, np.int64)
    colours = np.zeros(4, np.int64)
    for i in range(5):
        counts[kinds[i] // 4 + 1] += 1
        colours[kinds[i] % 4] += 1
    most_colour = colours.max()
    biggest = 0
    pairs = 0
    threes = 0
    for f in range(1, 7):
        biggest = max(biggest, counts[f])
        if counts[f] == 2:
            pairs += 1
        elif counts[f] == 3:
            threes += 1
    flush = most_colour == 5
    straight = False
    if biggest == 1:
        straight = (counts[1] == 0) or (counts[6] == 0)
    if biggest == 5:
        category = 10 if flush else 8
    elif straight:
        category = 9 if flush else 5
    elif flush:
        category = 7
    elif biggest == 4:
        category = 6
    elif threes == 1 and pairs == 1:
        category = 4
    elif threes == 1:
        category = 3
    elif pairs == 2:
        category = 2
    elif pairs == 1:
        category = 1
    else:
        category = 0
    value = category
    for size in range(5, 0, -1):
        for f in range(6, 0, -1):
            if counts[f] == size:
                for _ in range(size):
                    value = value * 6 + (f - 1)
    return int(value * 8 + most_colour)


@njit(cache=True)
def _next_multiset(kinds: IntArray) -> bool:
    """Advance a sorted multiset to the next in lexicographic order; False at the end."""
    n = kinds.shape[0]
    i = n - 1
    while i >= 0 and kinds[i] == KINDS - 1:
        i -= 1
    if i < 0:
        return False
    kinds[i] += 1
    for j in range(i + 1, n):
        kinds[j] = kinds[i]
    return True


@njit(cache=True)
def _build_key5(binom: IntArray) -> IntArray:
    size = binom[KINDS - 1 + 5, 5]
    keys = np.zeros(size, np.int64)
    kinds = np.zeros(5, np.int64)
    while True:
        keys[_index(kinds, binom)] = _key5(kinds)
        if not _next_multiset(kinds):
            break
    return keys


@njit(cache=True)
def _build_up(smaller: IntArray, n: int, binom: IntArray) -> IntArray:
    """Best keys of n dice: the best of the n ways to leave one die out."""
    size = binom[KINDS - 1 + n, n]
    keys = np.zeros(size, np.int64)
    kinds = np.zeros(n, np.int64)
    rest = np.zeros(n - 1, np.int64)
    while True:
        best = -1
        for skip in range(n):
            if skip > 0 and kinds[skip] == kinds[skip - 1]:
                continue
            j = 0
            for i in range(n):
                if i != skip:
                    rest[j] = kinds[i]
                    j += 1
            value = smaller[_index(rest, binom)]
            if value > best:
                best = value
        keys[_index(kinds, binom)] = best
        if not _next_multiset(kinds):
            break
    return keys


@dataclass(frozen=True)
class Tables:
    """Rank tables: dense ranks of every 5- and 7-dice multiset, and each rank's category."""

    keys: IntArray
    rank5: RankArray
    rank7: RankArray
    category: npt.NDArray[np.int8]


@cache
def tables() -> Tables:
    """The rank tables, built on first use."""
    key5 = _build_key5(BINOM)
    key6 = _build_up(key5, 6, BINOM)
    key7 = _build_up(key6, 7, BINOM)
    keys = np.unique(key5)
    rank5 = np.searchsorted(keys, key5).astype(np.uint16)
    rank7 = np.searchsorted(keys, key7).astype(np.uint16)
    category = (keys // (7776 * 8)).astype(np.int8)
    return Tables(keys, rank5, rank7, category)


@njit(cache=True)
def _rank_batch(hands: IntArray, rank7: RankArray, binom: IntArray) -> RankArray:
    n = hands.shape[0]
    out = np.empty(n, np.uint16)
    a = np.empty(7, np.int64)
    for row in range(n):
        for i in range(7):
            v = hands[row, i]
            j = i - 1
            while j >= 0 and a[j] > v:
                a[j + 1] = a[j]
                j -= 1
            a[j + 1] = v
        total = 0
        for i in range(7):
            total += binom[a[i] + i, i + 1]
        out[row] = rank7[total]
    return out


def rank_batch(hands: npt.ArrayLike) -> RankArray:
    """Dense ranks of the best five of each row of seven kinds (shape ``(n, 7)``)."""
    array = np.ascontiguousarray(hands, dtype=np.int64)
    if array.ndim != 2 or array.shape[1] != 7:
        raise ValueError("hands must have shape (n, 7)")
    if array.size and (array.min() < 0 or array.max() >= KINDS):
        raise ValueError("a die kind is 0 to 23")
    result: RankArray = _rank_batch(array, tables().rank7, BINOM)
    return result


def code_of_rank(rank: int) -> int:
    """The rank code (as ``HandRank.code``) of a dense rank."""
    return int(tables().keys[rank])
