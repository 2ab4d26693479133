"""The exact distribution of a one-column Boatzee card's final score under optimal play.

For every state at the start of a turn (filled boxes, upper total) the table holds the
chance of each number of points the rest of the game adds when it is played by the solved
table (the ``optimal`` bot: the highest expected score). It is exact: each turn's outcomes
come from the solver's own keeps and boxes (:mod:`final_kernels`), and states are filled
fewest open boxes first. Boatzee ruleset only (the yahtzee ruleset's jokers and 100
bonuses would need the Boatzee box's state too).

Cached beside the solved tables as ``<data dir>/boatzee/finals-x1.npy`` (the distributions,
float32, memory-mapped), ``finals-x1-offsets.npy`` and ``finals-x1.json`` (version key).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from dicehall.engine.storage import data_dir
from dicehall.games.boatzee.dice_tables import FloatArray, IntArray
from dicehall.games.boatzee.scoring import BOXES, SCORES
from dicehall.games.boatzee.table_cache import Progress, table, version_key, write_atomically

Float32Array = npt.NDArray[np.float32]

#: Bump when the table changes meaning; old ones are then built again.
FINALS_VERSION = 1
MASKS = 1 << len(BOXES)
FULL = MASKS - 1
UPPERS = 64
UPPER_BONUS = 35


def finals_key() -> str:
    """What a cached table must carry to be used: the solver's key and this module's."""
    return f"finals{FINALS_VERSION}-{version_key('boatzee', 1)}"


@cache
def lengths() -> IntArray:
    """``lengths[mask]``: one more than the most the open boxes (and the bonus) can add."""
    most = np.array(SCORES, dtype=np.int64).max(axis=0)
    out = np.ones(MASKS, dtype=np.int64)
    for mask in range(MASKS):
        open_boxes = [b for b in range(len(BOXES)) if not mask >> b & 1]
        bonus = UPPER_BONUS if any(b < 6 for b in open_boxes) else 0
        out[mask] = 1 + bonus + int(most[open_boxes].sum())
    out.setflags(write=False)
    return out


@dataclass(frozen=True)
class FinalScores:
    """``flat[offsets[mask, upper]:][:lengths[mask]]`` is the distribution of the points
    still to come from state (mask, upper); ``offsets`` is -1 where no card gets."""

    offsets: IntArray
    lengths: IntArray
    flat: Float32Array
    seconds: float

    def remaining(self, mask: int, upper: int) -> Float32Array:
        """The chance of each number of points still to come from the state."""
        start = int(self.offsets[mask, min(upper, UPPERS - 1)])
        if start < 0:
            raise ValueError(f"no card reaches boxes {mask:#x} with upper total {upper}")
        return self.flat[start : start + int(self.lengths[mask])]


def _layout(filled: int) -> tuple[list[IntArray], IntArray, IntArray, int]:
    # The states to fill, a layer at a time, and where each one's distribution goes. Upper
    # totals from which 63 is out of reach share the first such total's distribution.
    from dicehall.games.boatzee.solver import layers

    size = lengths()
    offsets = np.full((MASKS, UPPERS), -1, dtype=np.int64)
    offsets[FULL, :] = 0
    used = 1
    todo: list[IntArray] = []
    for layer in layers("boatzee", filled):
        states = np.ascontiguousarray(layer.states[:, :2])
        for mask, upper in states:
            offsets[mask, upper] = used
            used += int(size[mask])
        mask, upper, source = layer.copies.T
        offsets[mask, upper] = offsets[mask, source]
        todo.append(states)
    return todo, offsets, size, used


def build(values: FloatArray, progress: Progress | None = None, filled: int = 0) -> FinalScores:
    """Every state's distribution under play by ``values`` (the solved one-column table).

    ``filled``: the reduced game of :func:`solver.solve` with those boxes filled from the
    start (for tests), whose ``values`` must come from the same reduced solve.
    """
    from dicehall.games.boatzee.final_kernels import fill_distributions
    from dicehall.games.boatzee.keeps import lattice
    from dicehall.games.boatzee.rule_tables import first_roll
    from dicehall.games.boatzee.rule_tables import rules as rule_arrays

    started = time.perf_counter()
    todo, offsets, size, used = _layout(filled)
    flat = np.zeros(used, dtype=np.float32)
    flat[0] = 1.0  # the full card: nothing more to come
    rules, keep = rule_arrays("boatzee", 1), lattice()
    plain = np.ascontiguousarray(values[0])
    total, done = sum(len(states) for states in todo), 0
    for states in todo:
        fill_distributions(
            states, plain, rules.points, keep.grow, keep.shrink, first_roll(), offsets, size, flat
        )
        done += len(states)
        if progress is not None:
            progress(done, total)
    return FinalScores(offsets, size, flat, time.perf_counter() - started)


def _paths() -> tuple[Path, Path, Path]:
    base = data_dir() / "boatzee"
    return base / "finals-x1.npy", base / "finals-x1-offsets.npy", base / "finals-x1.json"


def load() -> FinalScores | None:
    """The cached table, or None when it is missing, unreadable or stale."""
    flat_path, offsets_path, meta_path = _paths()
    try:
        meta: dict[str, Any] = json.loads(meta_path.read_text())
        if meta.get("version") != finals_key():
            return None
        flat = np.load(flat_path, mmap_mode="r", allow_pickle=False)
        offsets = np.asarray(np.load(offsets_path, mmap_mode="r", allow_pickle=False))
        if flat.dtype != np.float32 or offsets.shape != (MASKS, UPPERS):
            return None
        if flat.shape != (int(meta["size"]),):
            return None
        return FinalScores(offsets, lengths(), np.asarray(flat), float(meta["seconds"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def build_and_store(progress: Progress | None = None) -> FinalScores:
    """Build the table now (solving the one-column table first if needed) and cache it."""
    found = build(table("boatzee", 1, progress).values, progress)
    flat_path, offsets_path, meta_path = _paths()
    write_atomically(flat_path, lambda f: np.save(f, found.flat), "wb")
    write_atomically(offsets_path, lambda f: np.save(f, found.offsets), "wb")
    meta = {"version": finals_key(), "size": int(found.flat.size), "seconds": found.seconds}
    write_atomically(meta_path, lambda f: f.write(json.dumps(meta, indent=2)), "w")
    _MEMO[str(data_dir())] = found
    return found


_MEMO: dict[str, FinalScores] = {}


def final_scores(progress: Progress | None = None) -> FinalScores:
    """The table from this process's memory, else the cache, else built (and cached)."""
    key = str(data_dir())
    found = _MEMO.get(key)
    if found is None:
        found = load() or build_and_store(progress)
        _MEMO[key] = found
    return found


def cached() -> FinalScores | None:
    """The table from this process's memory or the cache, never built (for requests)."""
    key = str(data_dir())
    found = _MEMO.get(key) or load()
    if found is not None:
        _MEMO[key] = found
    return found
