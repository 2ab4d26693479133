"""Numba kernels of the exact Ten Thousand solvers (see ``solitaire`` and ``duel``).

Every kernel takes the merged roll outcomes of :mod:`.transitions` as plain arrays (``gs``,
``gp``, ``es``: group starts, group probabilities, entry starts; ``eh``, ``eg``: each entry's
dice in hand and gain, or ``off``: each entry's offset in a flat table; ``zp``: zero-out
probabilities) and works in steps of 50 points.

The one idea they share is the *turn sweep*. Within one turn the banked totals are fixed, so
a turn is a stopping problem over (dice in hand, turn total) whose only inputs are what
banking is worth at each turn total and what a zero-out is worth. Every set-aside adds at
least 50, so one pass from the largest turn total down to 0 solves it. The value of a
zero-out, ``z``, is itself unknown (it is the value of the opponent's turn, or of this same
turn again); the sweep also returns the derivative of the turn's value in ``z`` (the chance
of zeroing out under the chosen policy), which drives a safeguarded Newton iteration for the
fixed point. The values are piecewise linear in ``z``, so Newton lands exactly once it is on
the right piece.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit, prange

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: Stop a fixed-point iteration when its residual is this small.
TOLERANCE = 1e-13
_MAX_ITERATIONS = 200
#: The largest single set-aside (six 1s, 4000) in steps of 50.
MAX_GAIN = 80


@njit(cache=True)
def turn_sweep(
    gs: IntArray,
    gp: FloatArray,
    es: IntArray,
    off: IntArray,
    zp: FloatArray,
    bank: FloatArray,
    tcap: int,
    z: float,
    d: FloatArray,
    dd: FloatArray,
    w: FloatArray,
) -> tuple[float, float]:
    """Solve one turn; return its value from a fresh roll of six and the value's slope in z.

    ``bank[t]`` is what banking turn total ``t`` is worth (``-inf`` where it is not allowed);
    at ``t >= tcap`` the seat banks. ``d``, ``dd`` and ``w`` are flat ``[dice * stride + t]``
    with ``stride = len(d) // 7`` at least ``tcap + 81``, and ``off[j]`` is entry ``j``'s
    ``hand * stride + gain``. Fills ``d`` (the value after a set-aside left that many dice in
    hand at that turn total), ``dd`` (its slope in ``z``) and ``w`` (the value of rolling).
    ``tcap`` must be at least 1, and ``bank[0]`` must be ``-inf``: a turn cannot be banked
    before its first roll. The slope returned is the one of the last row computed, rolling
    six dice at turn total 0.
    """
    stride = d.shape[0] // 7
    slope = 0.0
    for t in range(tcap, tcap + MAX_GAIN + 1):
        for n in range(1, 7):
            d[n * stride + t] = bank[t]
            dd[n * stride + t] = 0.0
            w[n * stride + t] = bank[t]
    for t in range(tcap - 1, -1, -1):
        for n in range(1, 7):
            value = zp[n] * z
            slope = zp[n]
            for k in range(gs[n], gs[n + 1]):
                first = es[k]
                best_at = off[first] + t
                best = d[best_at]
                for j in range(first + 1, es[k + 1]):
                    at = off[j] + t
                    v = d[at]
                    if v > best:
                        best = v
                        best_at = at
                value += gp[k] * best
                slope += gp[k] * dd[best_at]
            i = n * stride + t
            w[i] = value
            if bank[t] >= value:
                d[i] = bank[t]
                dd[i] = 0.0
            else:
                d[i] = value
                dd[i] = slope
    return w[6 * stride], slope


def entry_offsets(hand: IntArray, gain: IntArray, stride: int) -> IntArray:
    """The flat offsets ``turn_sweep`` reads for each entry, for arrays of this stride."""
    return (hand * stride + gain).astype(np.int64)


@njit(cache=True)
def last_turn(
    gs: IntArray,
    gp: FloatArray,
    es: IntArray,
    eh: IntArray,
    eg: IntArray,
    dmax: int,
) -> tuple[FloatArray, FloatArray]:
    """A last turn in the final round: the chance to finish above a total, ties counting half.

    Returns ``(r, lt)`` indexed ``[dice in hand, deficit]`` for deficits 0 to ``dmax`` (in
    steps of 50; the deficit is the total to beat minus banked total and turn total): ``r`` is
    the value of rolling, ``lt`` the value after a set-aside (bank on a tie if that is worth
    more). A negative deficit is worth 1: the seat banks and wins.
    """
    r = np.zeros((7, dmax + 1))
    lt = np.zeros((7, dmax + 1))
    for deficit in range(dmax + 1):
        for n in range(1, 7):
            value = 0.0
            for k in range(gs[n], gs[n + 1]):
                best = 0.0
                for j in range(es[k], es[k + 1]):
                    left = deficit - eg[j]
                    v = 1.0 if left < 0 else lt[eh[j], left]
                    best = max(best, v)
                value += gp[k] * best
            r[n, deficit] = value
            lt[n, deficit] = max(0.5, value) if deficit == 0 else value
    return r, lt


@njit(cache=True)
def duel_bank_values(
    p: FloatArray, r6: FloatArray, a: int, b: int, entry: int, size: int
) -> FloatArray:
    """What banking each turn total is worth to a seat with ``a`` against ``b`` banked.

    Below the target (``p.shape[0]`` steps) the opponent then moves at (``b``, the new
    total); at or above it the opponent has one last turn to beat the new total. Banking at
    0 is impossible, and a seat with nothing banked may bank only ``entry`` or more.
    """
    n_target = p.shape[0]
    bank = np.empty(size)
    for t in range(size):
        total = a + t
        if total < n_target:
            bank[t] = 1.0 - p[b, total]
        elif total - b < r6.shape[0]:
            bank[t] = 1.0 - r6[total - b]
        else:
            bank[t] = 1.0  # past the table the opponent's chance is below its last entry
    _refuse_unbankable(bank, a, entry)
    return bank


@njit(cache=True)
def _refuse_unbankable(bank: FloatArray, banked: int, entry: int) -> None:
    """A turn total of 0 never banks; below the entry threshold, nor does a seat not in yet."""
    bank[0] = -np.inf
    if banked == 0:
        for t in range(min(entry, bank.shape[0])):
            bank[t] = -np.inf


@njit(cache=True)
def last_turn_bank_values(banked: int, deficit: int, entry: int, size: int) -> FloatArray:
    """Banking each turn total on a last turn ``deficit`` steps behind: 1 ahead, 1/2 level."""
    bank = np.zeros(size)
    for t in range(size):
        if t > deficit:
            bank[t] = 1.0
        elif t == deficit:
            bank[t] = 0.5
    _refuse_unbankable(bank, banked, entry)
    return bank


@njit(cache=True)
def duel_cap(n_target: int, d_cap: int, a: int, b: int) -> int:
    """The turn total at which a seat with ``a`` against ``b`` banked always banks."""
    return max(n_target, b + d_cap) - a


@njit(cache=True)
def _solve_pair(
    gs: IntArray,
    gp: FloatArray,
    es: IntArray,
    off: IntArray,
    zp: FloatArray,
    p: FloatArray,
    r6: FloatArray,
    entry: int,
    d_cap: int,
    a: int,
    b: int,
    guess: float,
) -> int:
    """Solve ``p[a, b]`` and ``p[b, a]`` together; return the number of Newton steps.

    A zero-out of the seat with ``a`` hands the turn to the seat with ``b`` at the same
    totals and the other way round, so the two values are one fixed point:
    ``x = F(1 - G(1 - x))``, where ``F`` and ``G`` are the two turns' values as functions of
    what a zero-out is worth. Everything else they need has a larger sum of totals and is
    already solved. ``off`` holds the entry offsets for stride ``duel_stride``.
    """
    n_target = p.shape[0]
    stride = duel_stride(n_target, d_cap)
    tcap_ab = duel_cap(n_target, d_cap, a, b)
    tcap_ba = duel_cap(n_target, d_cap, b, a)
    bank_ab = duel_bank_values(p, r6, a, b, entry, tcap_ab + MAX_GAIN + 1)
    bank_ba = duel_bank_values(p, r6, b, a, entry, tcap_ba + MAX_GAIN + 1)
    d = np.empty(7 * stride)
    dd = np.empty_like(d)
    w = np.empty_like(d)
    lo = 0.0
    hi = 1.0
    x = guess
    y = 0.5
    for step in range(1, _MAX_ITERATIONS + 1):
        if a == b:
            fx, gx = turn_sweep(gs, gp, es, off, zp, bank_ab, tcap_ab, 1.0 - x, d, dd, w)
            y = fx
            slope = -gx - 1.0
        else:
            y, gy = turn_sweep(gs, gp, es, off, zp, bank_ba, tcap_ba, 1.0 - x, d, dd, w)
            fx, gx = turn_sweep(gs, gp, es, off, zp, bank_ab, tcap_ab, 1.0 - y, d, dd, w)
            slope = gx * gy - 1.0
        phi = fx - x
        if abs(phi) <= TOLERANCE or hi - lo <= TOLERANCE:
            p[a, b] = fx
            p[b, a] = y
            return step
        if phi > 0:
            lo = x
        else:
            hi = x
        nxt = x - phi / slope
        if not lo < nxt < hi:
            nxt = 0.5 * (lo + hi)
        x = nxt
    p[a, b] = x
    p[b, a] = y
    return _MAX_ITERATIONS


@njit(cache=True)
def duel_stride(n_target: int, d_cap: int) -> int:
    """The row length that holds every turn of a duel with this target and cap."""
    return max(n_target, n_target - 1 + d_cap) + MAX_GAIN + 1


@njit(cache=True, parallel=True)
def duel_diagonal(
    gs: IntArray,
    gp: FloatArray,
    es: IntArray,
    off: IntArray,
    zp: FloatArray,
    p: FloatArray,
    r6: FloatArray,
    entry: int,
    d_cap: int,
    total: int,
) -> int:
    """Solve every pair of banked totals (in steps) that adds up to ``total``; return steps.

    Banked totals only grow, and a bank moves to a larger sum, so the pairs of one sum depend
    only on larger sums and on each other's mirror image: they are solved in parallel.
    """
    n_target = p.shape[0]
    first = max(0, total - (n_target - 1))
    last = total // 2
    count = max(last - first + 1, 0)
    steps = np.zeros(count, dtype=np.int64)
    for i in prange(count):
        a = first + i
        b = total - a
        guess = 0.5
        if b + 1 < n_target:
            guess = p[a, b + 1]
            if a + 1 < n_target:
                # The opponent a step further on, corrected by how this seat's own step
                # changed that figure one step further on.
                guess = p[a, b + 1] + p[a + 1, b] - p[a + 1, b + 1]
        steps[i] = _solve_pair(gs, gp, es, off, zp, p, r6, entry, d_cap, a, b, guess)
    return int(steps.sum())


@njit(cache=True)
def solitaire_bank_values(e: FloatArray, banked: int, entry: int, size: int) -> FloatArray:
    """Banking each turn total, as minus the expected turns still needed afterwards."""
    n_target = e.shape[0]
    bank = np.empty(size)
    for t in range(size):
        total = banked + t
        bank[t] = -e[total] if total < n_target else 0.0
    _refuse_unbankable(bank, banked, entry)
    return bank


@njit(cache=True)
def solitaire_solve(
    gs: IntArray,
    gp: FloatArray,
    es: IntArray,
    off: IntArray,
    zp: FloatArray,
    n_target: int,
    entry: int,
) -> FloatArray:
    """The least expected number of turns to reach the target, from every banked total.

    From banked ``B`` a turn either banks (the turn total is added) or zeroes out (back to
    ``B``), so ``E(B) = 1 + best expected E after the turn``, a fixed point in ``E(B)`` given
    the larger totals. Banking a total that reaches the target is always best (nothing can
    beat 0 further turns), so a turn never needs totals past the target. Values are handled
    as minus turns, so that the sweep maximises; ``off`` is for stride ``n_target + 81``.
    The turn's value is convex in ``E(B)``, so plain Newton steps converge.
    """
    e = np.zeros(n_target)
    stride = n_target + MAX_GAIN + 1
    d = np.empty(7 * stride)
    dd = np.empty_like(d)
    w = np.empty_like(d)
    for banked in range(n_target - 1, -1, -1):
        tcap = n_target - banked
        bank = solitaire_bank_values(e, banked, entry, tcap + MAX_GAIN + 1)
        v = -1.0 if banked == n_target - 1 else -e[banked + 1] - 1.0
        for _ in range(_MAX_ITERATIONS):
            fv, gv = turn_sweep(gs, gp, es, off, zp, bank, tcap, v, d, dd, w)
            phi = fv - 1.0 - v
            if abs(phi) <= TOLERANCE * max(1.0, abs(v)):
                v = fv - 1.0
                break
            v = v - phi / (gv - 1.0)
        e[banked] = -v
    return e
