"""The exact solver of single-column solitaire Boatzee (and Yahtzee): the optimal expectation.

The state at the start of a turn is ``(fifty, mask, upper)``: the set of filled boxes, the
upper total capped at 63 and, in the yahtzee ruleset, whether the Boatzee box holds 50
(the joker rule and the 100 bonus depend on it). States are solved backwards, a layer of
equally many filled boxes at a time, each state's turn exactly by the Numba kernel; upper
totals that the filled upper boxes cannot make are never visited. ``multiplier`` scales the
boxes but not the bonuses: the tables Double and Triple play use for their x2 and x3 columns.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

from dicehall.games.boatzee.card import JOKERS, Joker, Ruleset
from dicehall.games.boatzee.dice_tables import FloatArray, IntArray
from dicehall.games.boatzee.keeps import lattice
from dicehall.games.boatzee.rule_tables import first_roll as _first_roll
from dicehall.games.boatzee.rule_tables import rules as _rules
from dicehall.games.boatzee.scoring import BOXES
from dicehall.games.boatzee.solver_kernels import BOATZEE_BOX, CAP, FULL, solve_states

BoolArray = npt.NDArray[np.bool_]
Progress = Callable[[int, int], None]
"""Called with (states solved, states in all) as the solve goes."""

MASKS = FULL + 1
UPPERS = CAP + 1
BOATZEE_BIT = 1 << BOATZEE_BOX
_BATCH = 8192


@dataclass(frozen=True)
class Solution:
    """A solved table and its figures.

    ``values[fifty, mask, upper]``: the optimal expected points still to come from the start
    of a turn (NaN where the state cannot occur). ``fifty`` is 0 in the boatzee ruleset.
    ``joker`` is the yahtzee ruleset's joker rule (always ``forced`` in the boatzee ruleset).
    ``expected`` and ``std`` are those of the final score from the empty card; ``seconds``
    and ``cpu_seconds`` what the solve took (kernel compilation excluded).
    """

    ruleset: Ruleset
    multiplier: int
    values: FloatArray
    expected: float
    std: float
    seconds: float
    cpu_seconds: float
    states: int
    joker: Joker = "forced"


@cache
def reachable_uppers() -> BoolArray:
    """``reach[upper_mask, u]``: whether the filled upper boxes can add up to u (capped)."""
    reach = np.zeros((64, UPPERS), dtype=np.bool_)
    for upper_mask in range(64):
        totals = {0}
        for face in range(1, 7):
            if upper_mask >> (face - 1) & 1:
                totals = {min(CAP, t + face * n) for t in totals for n in range(6)}
        reach[upper_mask, sorted(totals)] = True
    reach.setflags(write=False)
    return reach


@dataclass(frozen=True)
class Layer:
    """The states of one layer to solve, as (mask, upper, fifty) rows, and the states whose
    value equals another's: ``copies`` rows (mask, upper, from_upper), for every fifty.
    """

    states: IntArray
    copies: IntArray


def _upper_room() -> IntArray:
    # The most the open upper boxes of each upper mask can still add.
    return np.array(
        [sum(5 * f for f in range(1, 7) if not m >> (f - 1) & 1) for m in range(64)],
        dtype=np.int64,
    )


def layers(ruleset: Ruleset, filled: int = 0) -> list[Layer]:
    """The states to solve, one layer per number of open boxes, fewest open first (the full
    card excluded).

    Upper totals the filled upper boxes cannot make are left out. Upper totals from which
    63 is out of reach are all worth the same (the upper total matters only for the bonus),
    so one of them per mask is solved and copied to the others. ``filled`` is a set of boxes
    filled before play starts (a reduced game, for tests); then every upper total is kept,
    since the pre-filled boxes may hold anything.
    """
    return list(iter_layers(ruleset, filled))


def _grids(filled: int) -> Iterator[tuple[IntArray, BoolArray, BoolArray, IntArray]]:
    # Per layer, fewest open boxes first: its masks, which (mask, upper) to solve, which
    # are dead (63 out of reach) and each mask's first dead upper total.
    masks = np.arange(MASKS, dtype=np.int64)
    masks = masks[(masks & filled) == filled]
    counts = np.array([bin(int(m)).count("1") for m in masks])
    reach = reachable_uppers()
    room = _upper_room()
    uppers = np.arange(UPPERS)
    for size in range(len(BOXES) - 1, -1, -1):
        layer = masks[counts == size]
        if layer.size == 0:
            continue
        ok = np.ones((layer.size, UPPERS), dtype=np.bool_) if filled else reach[layer & 63]
        dead = ok & (uppers[None, :] + room[layer & 63][:, None] < CAP)
        first_dead = np.argmax(dead, axis=1)
        solve_here = ok & ~dead
        solve_here[np.nonzero(dead.any(axis=1))[0], first_dead[dead.any(axis=1)]] = True
        yield layer, solve_here, dead, first_dead


def count_states(ruleset: Ruleset, filled: int = 0) -> int:
    """How many states :func:`layers` holds, without building them."""
    total = 0
    for layer, solve_here, _, _ in _grids(filled):
        total += int(solve_here.sum())
        if ruleset == "yahtzee":
            total += int(solve_here[(layer & BOATZEE_BIT) != 0].sum())
    return total


def iter_layers(ruleset: Ruleset, filled: int = 0) -> Iterator[Layer]:
    """:func:`layers` one at a time, so that only one layer's states are held at once."""
    for layer, solve_here, dead, first_dead in _grids(filled):
        # Straight into one (n, 3) array: the largest layer's temporaries stay small.
        rows, cols = np.nonzero(solve_here)
        masks = layer[rows]
        del rows
        fifty = (masks & BOATZEE_BIT) != 0 if ruleset == "yahtzee" else None
        n = len(masks)
        states = np.zeros((n + (0 if fifty is None else int(fifty.sum())), 3), dtype=np.int64)
        states[:n, 0] = masks
        states[:n, 1] = cols
        if fifty is not None:
            states[n:, 0] = masks[fifty]
            states[n:, 1] = cols[fifty]
            states[n:, 2] = 1
        del masks, cols, fifty
        copy_rows, copy_cols = np.nonzero(dead & ~solve_here)
        copies = np.stack([layer[copy_rows], copy_cols, first_dead[copy_rows]], axis=1)
        yield Layer(states, np.ascontiguousarray(copies, dtype=np.int64))


def run_states(
    states: IntArray,
    values: FloatArray,
    moments: FloatArray,
    ruleset: Ruleset,
    multiplier: int,
    with_moments: bool,
    joker: Joker = "forced",
    *,
    out: FloatArray | None = None,
    may_pass: bool = False,
    fill_cost: float = 0.0,
) -> None:
    """Solve ``states`` through the kernel (see :func:`solver_kernels.solve_states`)."""
    rules = _rules(ruleset, multiplier)
    keep = lattice()
    solve_states(
        states,
        values,
        moments,
        rules.points,
        rules.classes,
        rules.varied,
        rules.joker,
        rules.plain,
        rules.five_hands,
        keep.grow,
        keep.shrink,
        _first_roll(),
        ruleset == "yahtzee",
        joker == "free",
        multiplier,
        with_moments,
        values if out is None else out,
        may_pass,
        fill_cost,
    )


def compile_kernels() -> float:
    """Compile (or load the compiled) kernels; returns the seconds it took."""
    start = time.perf_counter()
    empty = np.zeros((0, 3), dtype=np.int64)
    table = np.zeros((1, 1, 1))
    run_states(empty, table, table, "boatzee", 1, True)
    return time.perf_counter() - start


def solve(
    ruleset: Ruleset = "boatzee",
    multiplier: int = 1,
    *,
    joker: Joker = "forced",
    with_moments: bool = True,
    filled: int = 0,
    progress: Progress | None = None,
) -> Solution:
    """Solve every state of the game exactly; see :class:`Solution`.

    ``joker`` is the yahtzee ruleset's joker rule. ``with_moments`` also computes the
    standard deviation (NaN without). ``filled`` solves a reduced game in which those boxes
    are filled from the start (for tests).
    """
    if ruleset not in ("boatzee", "yahtzee"):
        raise ValueError(f"ruleset must be boatzee or yahtzee, not {ruleset!r}")
    if multiplier not in (1, 2, 3):
        raise ValueError(f"multiplier must be 1, 2 or 3, not {multiplier!r}")
    if joker not in JOKERS or (joker != "forced" and ruleset != "yahtzee"):
        raise ValueError(f"joker must be forced, or free in the yahtzee ruleset, not {joker!r}")
    compile_kernels()
    wall, cpu = time.perf_counter(), time.process_time()
    fifties = 2 if ruleset == "yahtzee" else 1
    values = np.full((fifties, MASKS, UPPERS), np.nan)
    moments = np.full((fifties, MASKS, UPPERS), np.nan)
    values[:, FULL, :] = 0.0
    moments[:, FULL, :] = 0.0
    total = count_states(ruleset, filled)
    done = 0
    for layer in iter_layers(ruleset, filled):
        states = layer.states
        for start in range(0, len(states), _BATCH):
            batch = states[start : start + _BATCH]
            run_states(batch, values, moments, ruleset, multiplier, with_moments, joker)
            done += len(batch)
            if progress is not None:
                progress(done, total)
        mask, upper, source = layer.copies.T
        values[:, mask, upper] = values[:, mask, source]
        moments[:, mask, upper] = moments[:, mask, source]
    expected = float(values[0, filled, 0])
    second = float(moments[0, filled, 0])
    std = math.sqrt(max(0.0, second - expected * expected)) if with_moments else math.nan
    values.setflags(write=False)
    return Solution(
        ruleset,
        multiplier,
        values,
        expected,
        std,
        time.perf_counter() - wall,
        time.process_time() - cpu,
        total,
        joker,
    )
