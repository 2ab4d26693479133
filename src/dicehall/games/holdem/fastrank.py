"""Ranking one hand fast, in plain Python: the best five of up to seven dice by one look-up.

A die's kind is ``(face - 1) * 4 + colour`` (0..23, as in :mod:`~dicehall.games.holdem.tables`);
a hand of n dice, sorted, has a unique index in the combinatorial number system, and the rank
tables give every index its dense rank (higher is better, equal is a split). Those tables take
Numba and about a second to build, so they are kept in the data directory
(``holdem/ranks-v1.bin``, rebuilt when missing, damaged or of another version) and read into
``array`` objects: a look-up is a sort of seven small integers and eight list reads, with no
NumPy scalar in the way. :func:`warm` builds or reads them ahead (the site does at start-up).
:mod:`~dicehall.games.holdem.ranking` stays the readable reference the tests compare with.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import threading
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations
from pathlib import Path

from dicehall.engine.storage import data_dir
from dicehall.games.holdem.dice import COLOURS, KINDS, Die, face
from dicehall.games.holdem.ranking import BestHand, HandRank

#: Bump when the tables' layout or meaning changes; old files are then built again.
RANK_VERSION = 1
_KINDS = 24
_MAX_N = 7
#: Distinct five-dice ranks, multisets of five and of seven of the 24 kinds.
_SIZES = (1008, 98280, 2035800)
_LOCK = threading.Lock()
_COLOUR_INDEX = {c: i for i, c in enumerate(COLOURS)}
_KIND_OF = {die: k for k, die in enumerate(KINDS)}


@dataclass(frozen=True)
class RankTables:
    """``rank5``/``rank7``: the dense rank of each sorted multiset's index; ``codes``: each
    dense rank's :meth:`HandRank.code`; ``columns[i][k]``: what kind ``k`` at sorted place
    ``i`` adds to an index."""

    rank5: array[int]
    rank7: array[int]
    codes: tuple[int, ...]
    columns: tuple[tuple[int, ...], ...]


def _columns() -> tuple[tuple[int, ...], ...]:
    binom = [[0] * (_MAX_N + 2) for _ in range(_KINDS + _MAX_N + 1)]
    for n in range(len(binom)):
        binom[n][0] = 1
        for k in range(1, min(n, _MAX_N + 1) + 1):
            binom[n][k] = binom[n - 1][k - 1] + (binom[n - 1][k] if k <= n - 1 else 0)
    return tuple(tuple(binom[k + i][i + 1] for k in range(_KINDS)) for i in range(_MAX_N))


def _path() -> Path:
    return data_dir() / "holdem" / f"ranks-v{RANK_VERSION}.bin"


def _digest(payload: bytes) -> bytes:
    return hashlib.sha256(payload).digest()


def _read(path: Path, columns: tuple[tuple[int, ...], ...]) -> RankTables | None:
    """The tables from ``path``: codes (int64), rank5, rank7 (uint16), then their SHA-256."""
    try:
        blob = path.read_bytes()
    except OSError:
        return None
    payload, check = blob[:-32], blob[-32:]
    codes_bytes = _SIZES[0] * 8
    if len(payload) != codes_bytes + 2 * (_SIZES[1] + _SIZES[2]) or _digest(payload) != check:
        return None
    codes = array("q")
    codes.frombytes(payload[:codes_bytes])
    rank5, rank7 = array("H"), array("H")
    rank5.frombytes(payload[codes_bytes : codes_bytes + 2 * _SIZES[1]])
    rank7.frombytes(payload[codes_bytes + 2 * _SIZES[1] :])
    return RankTables(rank5, rank7, tuple(codes), columns)


def _build(columns: tuple[tuple[int, ...], ...]) -> RankTables:
    from dicehall.games.holdem.tables import tables  # Numba: only to build

    built = tables()
    codes = array("q", (int(k) for k in built.keys))
    rank5, rank7 = array("H"), array("H")
    rank5.frombytes(built.rank5.astype("<u2").tobytes())
    rank7.frombytes(built.rank7.astype("<u2").tobytes())
    return RankTables(rank5, rank7, tuple(codes), columns)


def _store(path: Path, found: RankTables) -> None:
    payload = array("q", found.codes).tobytes() + found.rank5.tobytes() + found.rank7.tobytes()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload + _digest(payload))
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only data directory: the next process builds them again


@cache
def rank_tables() -> RankTables:
    """The tables: read from the data directory, or built (and stored) on first use."""
    with _LOCK:
        columns = _columns()
        path = _path()
        found = _read(path, columns)
        if found is None:
            found = _build(columns)
            _store(path, found)
        return found


def warm() -> None:
    """Read or build the tables now, so that no showdown waits for them."""
    rank_tables()


def kind_of(die: Die) -> int:
    """A die's kind, 0..23."""
    return _KIND_OF[die]


def dense_rank(kinds: Sequence[int]) -> int:
    """The dense rank of the best five of five or seven dice kinds (higher wins)."""
    t = rank_tables()
    ordered = sorted(kinds)
    columns = t.columns
    index = 0
    for place, k in enumerate(ordered):
        index += columns[place][k]
    if len(ordered) == 7:
        return t.rank7[index]
    if len(ordered) == 5:
        return t.rank5[index]
    raise ValueError(f"a fast rank takes 5 or 7 dice, not {len(ordered)}")


def hand_rank(dense: int) -> HandRank:
    """The three keys of a dense rank."""
    code = rank_tables().codes[dense]
    colour = code % 8
    code //= 8
    faces: list[int] = []
    for _ in range(5):
        faces.append(code % 6 + 1)
        code //= 6
    return HandRank(code, tuple(reversed(faces)), colour)


def best_hand(dice: Sequence[Die]) -> BestHand:
    """The best five of five to seven dice, as :func:`ranking.best_hand` gives it."""
    if not 5 <= len(dice) <= 7:
        raise ValueError(f"a best hand needs 5 to 7 dice, not {len(dice)}")
    kinds = [_KIND_OF[d] for d in dice]
    fives = combinations(range(len(dice)), 5)
    if len(dice) == 7:
        best = dense_rank(kinds)
        # The first five (in combinations' order) that make it, as the reference picks.
        first = next(f for f in fives if dense_rank([kinds[i] for i in f]) == best)
    else:
        ranked = [(dense_rank([kinds[i] for i in f]), f) for f in fives]
        best = max(rank for rank, _ in ranked)
        first = next(f for rank, f in ranked if rank == best)
    chosen = [dice[i] for i in first]
    counts: dict[int, int] = {}
    for die in chosen:
        counts[face(die)] = counts.get(face(die), 0) + 1
    shown = sorted(chosen, key=lambda d: (-counts[face(d)], -face(d), _COLOUR_INDEX[d[1]]))
    return BestHand(hand_rank(best), tuple(shown))
