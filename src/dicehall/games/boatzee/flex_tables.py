"""The relaxed column tables the ``strong`` bot plays Double and Triple by, cached like the
solved tables (``<data dir>/boatzee/flex-x<k>.npy`` and ``.json`` with a version key).

``bands[d, mask, upper]`` is a column's value (multiplier k) in its relaxed game with ``d``
turns to spare (see :func:`relaxed.spare_turns`); ``d`` runs to :data:`SPARE`, enough for the
spare turns :mod:`flexible` asks for in Triple. Solving one takes about 25 CPU-seconds.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from dicehall.engine.storage import data_dir
from dicehall.games.boatzee.table_cache import Progress, version_key, write_atomically

Float32Array = npt.NDArray[np.float32]

#: Bump when the tables change meaning; old ones are then solved again.
FLEX_VERSION = 1
#: The most spare turns kept per column.
SPARE = 6


def flex_key(multiplier: int) -> str:
    """What a cached table must carry to be used: the solver's key, this module's version."""
    return f"flex{FLEX_VERSION}-s{SPARE}-{version_key('boatzee', multiplier)}"


@dataclass(frozen=True)
class FlexTable:
    """One multiplier's bands and the seconds its solve took."""

    multiplier: int
    bands: Float32Array
    seconds: float


def _paths(multiplier: int) -> tuple[Path, Path]:
    base = data_dir() / "boatzee" / f"flex-x{multiplier}"
    return base.with_suffix(".npy"), base.with_suffix(".json")


def load(multiplier: int) -> FlexTable | None:
    """The cached table, or None when it is missing, unreadable or stale."""
    npy, meta_path = _paths(multiplier)
    try:
        meta: dict[str, Any] = json.loads(meta_path.read_text())
        if meta.get("version") != flex_key(multiplier):
            return None
        bands = np.load(npy, mmap_mode="r", allow_pickle=False)
        if bands.shape != (SPARE + 1, 1 << 13, 64) or bands.dtype != np.float32:
            return None
        return FlexTable(multiplier, np.asarray(bands), float(meta["seconds"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def solve_and_store(multiplier: int, progress: Progress | None = None) -> FlexTable:
    """Solve the bands now, cache them and return them."""
    import time

    from dicehall.games.boatzee.relaxed import spare_turns  # Numba loads only when solving

    started = time.perf_counter()
    bands = spare_turns(multiplier, SPARE, progress)
    found = FlexTable(multiplier, bands, time.perf_counter() - started)
    npy, meta_path = _paths(multiplier)
    write_atomically(npy, lambda f: np.save(f, np.asarray(bands)), "wb")
    meta = {"version": flex_key(multiplier), "multiplier": multiplier, "seconds": found.seconds}
    write_atomically(meta_path, lambda f: f.write(json.dumps(meta, indent=2)), "w")
    _MEMO[(str(data_dir()), multiplier)] = found
    return found


_MEMO: dict[tuple[str, int], FlexTable] = {}


def flex_table(multiplier: int, progress: Progress | None = None) -> FlexTable:
    """The table from this process's memory, else the cache, else solved (and cached)."""
    key = (str(data_dir()), multiplier)
    found = _MEMO.get(key)
    if found is None:
        found = load(multiplier) or solve_and_store(multiplier, progress)
        _MEMO[key] = found
    return found
