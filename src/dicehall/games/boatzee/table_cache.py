"""The solved tables, cached in the user data directory with a version key.

A table is two files in ``<data dir>/boatzee``, named by ruleset, joker rule (when free)
and multiplier (``yahtzee-x1``, ``yahtzee-free-x1``): ``<name>.npy`` (the values, memory-mapped
when read, so a hint reads only the few numbers it needs) and ``<name>.json`` (the version
key and the solve's figures). A table whose key differs from this code's (another solver
version, other scoring rules) or whose files are missing or unreadable is solved again.
The data directory is ``$DICEHALL_DATA`` when set, else the platform's user data directory.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from dicehall.engine.storage import data_dir
from dicehall.games.boatzee.card import Joker, Ruleset
from dicehall.games.boatzee.dice_tables import FloatArray
from dicehall.games.boatzee.keeps import lattice
from dicehall.games.boatzee.scoring import SCORES

#: Bump when the solver's output changes meaning; old tables are then solved again.
SOLVER_VERSION = 1

Progress = Callable[[int, int], None]


def version_key(ruleset: Ruleset, multiplier: int, joker: Joker = "forced") -> str:
    """What a cached table must carry to be used: solver version, rules and scoring."""
    digest = hashlib.sha256()
    rules: tuple[object, ...] = (SOLVER_VERSION, ruleset, multiplier, SCORES)
    if joker != "forced":  # forced tables keep the key they had before the option existed
        rules = (*rules, joker)
    digest.update(repr(rules).encode())
    digest.update(lattice().grow.tobytes())
    return f"{SOLVER_VERSION}-{digest.hexdigest()[:16]}"


@dataclass(frozen=True)
class Table:
    """A solved table (see :class:`solver.Solution`) and the figures of the solve that made it.

    ``values[fifty, mask, upper]`` is the optimal expectation of the points still to come
    from the start of a turn. ``expected``, ``std`` concern the final score from an empty
    card; ``seconds`` is the wall time the solve took; ``joker`` the yahtzee joker rule.
    """

    ruleset: Ruleset
    multiplier: int
    values: FloatArray
    expected: float
    std: float
    seconds: float
    joker: Joker = "forced"


def _paths(ruleset: Ruleset, multiplier: int, joker: Joker) -> tuple[Path, Path]:
    rules = ruleset if joker == "forced" else f"{ruleset}-{joker}"
    base = data_dir() / "boatzee" / f"{rules}-x{multiplier}"
    return base.with_suffix(".npy"), base.with_suffix(".json")


def _shape(ruleset: Ruleset) -> tuple[int, int, int]:
    return (2 if ruleset == "yahtzee" else 1, 1 << 13, 64)


def load(ruleset: Ruleset, multiplier: int = 1, joker: Joker = "forced") -> Table | None:
    """The cached table, or None when it is missing, unreadable or stale."""
    npy, meta_path = _paths(ruleset, multiplier, joker)
    try:
        meta: dict[str, Any] = json.loads(meta_path.read_text())
        if meta.get("version") != version_key(ruleset, multiplier, joker):
            return None
        values = np.load(npy, mmap_mode="r", allow_pickle=False)
        if values.shape != _shape(ruleset) or values.dtype != np.float64:
            return None
        return Table(
            ruleset,
            multiplier,
            values,
            float(meta["expected"]),
            math.nan if meta["std"] is None else float(meta["std"]),
            float(meta["seconds"]),
            joker,
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def write_atomically(path: Path, write: Callable[[Any], None], mode: str) -> None:
    """Write ``path`` through a temporary file, so a reader never sees half of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, mode) as handle:
            write(handle)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def store(table: Table) -> None:
    """Write a table to the cache (each file replaced atomically, values first)."""
    npy, meta_path = _paths(table.ruleset, table.multiplier, table.joker)
    write_atomically(npy, lambda f: np.save(f, np.asarray(table.values)), "wb")
    meta = {
        "version": version_key(table.ruleset, table.multiplier, table.joker),
        "ruleset": table.ruleset,
        "joker": table.joker,
        "multiplier": table.multiplier,
        "expected": table.expected,
        "std": None if math.isnan(table.std) else table.std,
        "seconds": table.seconds,
    }
    write_atomically(meta_path, lambda f: f.write(json.dumps(meta, indent=2)), "w")


def solve_and_store(
    ruleset: Ruleset,
    multiplier: int = 1,
    progress: Progress | None = None,
    *,
    joker: Joker = "forced",
) -> Table:
    """Solve the table now (whatever the cache holds), cache it and return it."""
    from dicehall.games.boatzee.solver import solve  # Numba loads only when solving

    solution = solve(
        ruleset, multiplier, joker=joker, progress=progress, with_moments=multiplier == 1
    )
    table = Table(
        ruleset,
        multiplier,
        solution.values,
        solution.expected,
        solution.std,
        solution.seconds,
        joker,
    )
    store(table)
    _MEMO[(str(data_dir()), ruleset, multiplier, joker)] = table
    return table


_MEMO: dict[tuple[str, str, int, str], Table] = {}


def forget() -> None:
    """Drop the tables this process holds in memory (the files stay)."""
    _MEMO.clear()


def table(
    ruleset: Ruleset,
    multiplier: int = 1,
    progress: Progress | None = None,
    *,
    joker: Joker = "forced",
) -> Table:
    """The table from this process's memory, else the cache, else solved (and cached)."""
    key = (str(data_dir()), ruleset, multiplier, joker)
    found = _MEMO.get(key)
    if found is None:
        found = load(ruleset, multiplier, joker)
        if found is None:
            return solve_and_store(ruleset, multiplier, progress, joker=joker)
        _MEMO[key] = found
    return found
