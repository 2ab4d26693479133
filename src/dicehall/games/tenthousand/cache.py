"""The exact Ten Thousand tables, solved once and kept in the user data directory.

A :class:`Solution` holds the two-seat and the one-seat tables for one set of rules. It is
looked up in this process first, then on disk (``DICEHALL_DATA`` or the platform's user data
directory, under ``tenthousand/``), and solved only when missing or stale. A file is stale
when its solver version, its rules (a digest of the scoring transitions) or its parameters
differ from what is asked for; files are written atomically, and a directory that cannot be
written to only means the tables are solved again next time.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from dicehall.engine.storage import data_dir
from dicehall.games.tenthousand.duel import (
    DEFAULT_EPSILON,
    DuelTables,
    Progress,
    cap_for,
    solve_duel,
    steps_up,
)
from dicehall.games.tenthousand.rules import TenThousandOptions
from dicehall.games.tenthousand.solitaire import SolitaireTables, solve_solitaire
from dicehall.games.tenthousand.transitions import Transitions, transitions

#: Bump when the solver changes what it computes; older files are then solved again.
SOLVER_VERSION = 1

ProgressDisplay = Callable[[str], AbstractContextManager[Progress]]
"""Opens a progress display with a description; the display is called with (done, total)."""

_display: ProgressDisplay | None = None
_solved: dict[SolveKey, Solution] = {}


@dataclass(frozen=True)
class SolveKey:
    """What a solution depends on: the rules that change play, and the cap's error bound."""

    target: int = 10_000
    entry_threshold: int = 1000
    four_and_pair: bool = False
    epsilon: float = DEFAULT_EPSILON

    def __post_init__(self) -> None:
        if not 50 <= self.target <= 100_000 or not 0 <= self.entry_threshold <= self.target:
            raise ValueError("the target must be 50 to 100000 and the entry 0 to the target")
        if not 0 < self.epsilon < 0.5:
            raise ValueError(f"epsilon must be between 0 and 0.5, not {self.epsilon}")

    @classmethod
    def of(cls, options: TenThousandOptions, epsilon: float = DEFAULT_EPSILON) -> SolveKey:
        """The key for a game's options (totals are multiples of 50, so thresholds round up)."""
        return cls(
            steps_up(options.target) * 50,
            steps_up(options.entry_threshold) * 50,
            options.four_and_pair_is_three_pairs,
            epsilon,
        )

    @property
    def filename(self) -> str:
        """The cache file's name: the version and every parameter."""
        return (
            f"solution-v{SOLVER_VERSION}-target{self.target}-entry{self.entry_threshold}"
            f"-fp{int(self.four_and_pair)}-eps{self.epsilon:g}.npz"
        )


@dataclass(frozen=True, eq=False)
class Solution:
    """The exact tables for one set of rules, and how long solving them took."""

    key: SolveKey
    duel: DuelTables
    solitaire: SolitaireTables
    #: Wall and CPU seconds the solve took (when it was computed, perhaps in an earlier run).
    seconds: float
    cpu_seconds: float
    #: True when this process read the tables from the cache directory.
    cached: bool


def show_progress_with(display: ProgressDisplay | None) -> None:
    """Use ``display`` for solves that nobody passed a progress callback to (the CLI does)."""
    global _display
    _display = display


def report_progress(report: Callable[[float], None] | None) -> None:
    """Tell ``report`` the fraction done of every solve with no progress callback of its own
    (the site's bot workers); None stops."""
    if report is None:
        show_progress_with(None)
        return

    @contextlib.contextmanager
    def fractions(_description: str) -> Iterator[Progress]:
        yield lambda done, total: report(done / total if total else 0.0)

    show_progress_with(fractions)


def forget() -> None:
    """Drop the solutions this process holds (the next lookup reads the disk again)."""
    _solved.clear()


def rules_digest(rules: Transitions) -> str:
    """A digest of the scoring transitions: tables solved under other scoring are stale."""
    digest = hashlib.sha256()
    for array in (
        rules.group_start,
        rules.group_prob,
        rules.entry_start,
        rules.entry_hand,
        rules.entry_gain,
        rules.zero_prob,
    ):
        digest.update(np.ascontiguousarray(array).tobytes())
    return digest.hexdigest()


def cache_path(key: SolveKey) -> Path:
    """Where the tables for ``key`` are kept."""
    return data_dir() / "tenthousand" / key.filename


def compute(key: SolveKey, progress: Progress | None = None) -> Solution:
    """Solve both tables now (minutes for the default rules; see the benchmark)."""
    rules = transitions(key.four_and_pair)
    wall, cpu = time.perf_counter(), time.process_time()
    solitaire = solve_solitaire(rules, key.target, key.entry_threshold)
    duel = solve_duel(rules, key.target, key.entry_threshold, key.epsilon, progress)
    return Solution(
        key, duel, solitaire, time.perf_counter() - wall, time.process_time() - cpu, False
    )


def save(solution: Solution, path: Path) -> None:
    """Write a solution atomically (a temporary file renamed into place)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    meta = {
        "version": SOLVER_VERSION,
        "key": asdict(solution.key),
        "rules": rules_digest(solution.duel.rules),
        "cap_steps": solution.duel.cap_steps,
        "seconds": solution.seconds,
        "cpu_seconds": solution.cpu_seconds,
    }
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".npz")
    try:
        with os.fdopen(fd, "wb") as out:
            np.savez(
                out,
                meta=np.array(json.dumps(meta)),
                win=solution.duel.win,
                last_roll=solution.duel.last_roll,
                last_after=solution.duel.last_after,
                expected_turns=solution.solitaire.expected_turns,
            )
        os.chmod(tmp, 0o644)  # mkstemp makes it private; the tables are not secret
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def load(key: SolveKey, path: Path) -> Solution | None:
    """The solution in ``path`` if it is there, readable and current; otherwise None."""
    try:
        with np.load(path, allow_pickle=False) as data:
            meta: dict[str, Any] = json.loads(str(data["meta"]))
            arrays = {name: np.array(data[name]) for name in _ARRAYS}
    except (OSError, ValueError, KeyError, json.JSONDecodeError):
        return None
    rules = transitions(key.four_and_pair)
    n_target = key.target // 50
    cap = int(meta.get("cap_steps", -1))
    if (
        meta.get("version") != SOLVER_VERSION
        or meta.get("key") != asdict(key)
        or meta.get("rules") != rules_digest(rules)
        or cap != cap_for(rules, key.epsilon)
        or arrays["win"].shape != (n_target, n_target)
        or arrays["expected_turns"].shape != (n_target,)
        or arrays["last_roll"].shape != arrays["last_after"].shape
        or arrays["last_roll"].shape[0] != 7
        or not all(np.all(np.isfinite(a)) for a in arrays.values())
    ):
        return None
    entry = key.entry_threshold // 50
    duel = DuelTables(
        rules,
        n_target,
        entry,
        cap,
        key.epsilon,
        arrays["win"],
        arrays["last_roll"],
        arrays["last_after"],
    )
    solitaire = SolitaireTables(rules, n_target, entry, arrays["expected_turns"])
    return Solution(key, duel, solitaire, float(meta["seconds"]), float(meta["cpu_seconds"]), True)


_ARRAYS = ("win", "last_roll", "last_after", "expected_turns")


@contextlib.contextmanager
def _quiet(description: str) -> Iterator[Progress]:
    yield lambda done, total: None


def solution(
    key: SolveKey, progress: Progress | None = None, *, recompute: bool = False
) -> Solution:
    """The tables for ``key``: from this process, else from disk, else solved (and saved).

    ``progress`` is told how the solve goes; without it the display set by
    :func:`show_progress_with` is used, if any. ``recompute`` solves again regardless.
    """
    if not recompute:
        known = _solved.get(key)
        if known is not None:
            return known
        path = cache_path(key)
        found = load(key, path)
        if found is not None:
            _solved[key] = found
            return found
    if progress is not None:
        solved = compute(key, progress)
    else:
        display = _display or _quiet
        with display(f"Solving Ten Thousand (target {key.target:,})") as report:
            solved = compute(key, report)
    with contextlib.suppress(OSError):
        save(solved, cache_path(key))
    _solved[key] = solved
    return solved
