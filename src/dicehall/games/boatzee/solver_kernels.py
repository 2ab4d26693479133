"""Numba kernels of the exact solver: one whole turn of one scorecard state, exactly.

A state is ``(mask, upper, fifty)``: the 13-bit set of filled boxes, the upper total capped
at 63, and (yahtzee ruleset) whether the Boatzee box holds 50. ``values[fifty, mask, upper]``
is the optimal expected sum of what the rest of the game adds from the start of a turn in
that state, ``moments`` the expected square of it under the same play. A turn is evaluated
backwards: the best box for each final hand, then twice the best keep for each hand, then
the first roll, with keeps valued through the keep lattice (see :mod:`keeps`).

Scoring a hand in a box leads to one of at most six next states (an upper box: by how many
dice show its face; the yahtzee Boatzee box: 50 or 0), so each state first gathers those
few futures, and the 252 hands then read small tables instead of the whole value table.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit, prange

from dicehall.games.boatzee.dice_tables import FloatArray, IntArray

ClassArray = npt.NDArray[np.int8]

BOXES = 13
FULL = (1 << BOXES) - 1
CAP = 63
UPPER_BONUS = 35.0
EXTRA_BONUS = 100.0
BOATZEE_BOX = 11
LOWER_BITS = FULL ^ 63
HANDS = 252
FIRST_HAND = 210
KEEPS = 462
CLASSES = 6
NEG = -1.0e300


@njit(cache=True)
def _gather(
    mask: int,
    upper: int,
    fifty: int,
    values: FloatArray,
    moments: FloatArray,
    yahtzee: bool,
    with_moments: bool,
    open_boxes: IntArray,
    bonus: FloatArray,
    future: FloatArray,
    future2: FloatArray,
) -> int:
    # bonus/future[j, c]: what scoring open box j with outcome class c adds beyond its points.
    n = 0
    for b in range(BOXES):
        if (mask >> b) & 1:
            continue
        open_boxes[n] = b
        after = mask | (1 << b)
        for c in range(CLASSES):
            next_upper = upper
            next_fifty = fifty
            extra = 0.0
            if b < 6:
                next_upper = upper + (b + 1) * c
                if next_upper >= CAP:
                    next_upper = CAP
                    if upper < CAP:
                        extra = UPPER_BONUS
            elif yahtzee and b == BOATZEE_BOX:
                next_fifty = c
                if c > 1:
                    break
            elif c > 0:
                break
            bonus[n, c] = extra
            future[n, c] = values[next_fifty, after, next_upper]
            if with_moments:
                future2[n, c] = moments[next_fifty, after, next_upper]
        n += 1
    return n


@njit(cache=True)
def _joker_hands(
    mask: int,
    upper: int,
    fifty: int,
    values: FloatArray,
    moments: FloatArray,
    joker: IntArray,
    plain: IntArray,
    five_hands: IntArray,
    free_joker: bool,
    multiplier: int,
    with_moments: bool,
    stop: FloatArray,
    stop2: FloatArray,
) -> None:
    # Yahtzee ruleset, Boatzee box filled: a five of a kind is a joker (+100 on 50). The
    # forced rule sends it to its upper box, else a lower box; the free rule anywhere. Joker
    # values only once its upper box is filled (under the forced rule, the same thing).
    lower_open = (mask & LOWER_BITS) != LOWER_BITS
    extra = EXTRA_BONUS if fifty == 1 else 0.0
    for face in range(1, 7):
        h = five_hands[face - 1]
        face_open = (mask >> (face - 1)) & 1 == 0
        best = NEG
        best2 = 0.0
        for b in range(BOXES):
            if (mask >> b) & 1:
                continue
            if not free_joker:
                if face_open:
                    if b != face - 1:
                        continue
                elif lower_open and b < 6:
                    continue
            points = plain[h, b] if face_open else joker[h, b]
            reward = multiplier * points + extra
            next_upper = upper
            if b < 6:
                next_upper = upper + points
                if next_upper >= CAP:
                    next_upper = CAP
                    if upper < CAP:
                        reward += UPPER_BONUS
            after = mask | (1 << b)
            ahead = values[fifty, after, next_upper]
            if reward + ahead > best:
                best = reward + ahead
                if with_moments:
                    best2 = reward * reward + 2.0 * reward * ahead
                    best2 += moments[fifty, after, next_upper]
        stop[h] = best
        stop2[h] = best2


@njit(cache=True)
def _stop_values(
    n_open: int,
    open_boxes: IntArray,
    bonus: FloatArray,
    future: FloatArray,
    future2: FloatArray,
    points: FloatArray,
    classes: ClassArray,
    varied: IntArray,
    with_moments: bool,
    stop: FloatArray,
    stop2: FloatArray,
) -> None:
    # stop[h]: the best box for a final hand h, counting everything that follows.
    for h in range(HANDS):
        stop[h] = NEG
    for j in range(n_open):
        b = open_boxes[j]
        if varied[b]:
            for h in range(HANDS):
                c = classes[b, h]
                reward = points[b, h] + bonus[j, c]
                v = reward + future[j, c]
                if with_moments:
                    m2 = reward * (reward + 2.0 * future[j, c]) + future2[j, c]
                    stop2[h] = m2 if v > stop[h] else stop2[h]
                stop[h] = v if v > stop[h] else stop[h]
        else:
            ahead = future[j, 0]
            for h in range(HANDS):
                reward = points[b, h] + bonus[j, 0]
                v = reward + ahead
                if with_moments:
                    m2 = reward * (reward + 2.0 * ahead) + future2[j, 0]
                    stop2[h] = m2 if v > stop[h] else stop2[h]
                stop[h] = v if v > stop[h] else stop[h]


@njit(cache=True)
def roll_down(
    hand: FloatArray,
    hand2: FloatArray,
    keep: FloatArray,
    keep2: FloatArray,
    grow: IntArray,
    with_moments: bool,
) -> None:
    """``keep[k]``: holding keep k and rolling the rest, the new hand valued by ``hand``
    (``keep2`` from ``hand2`` likewise when ``with_moments``)."""
    for h in range(HANDS):
        keep[FIRST_HAND + h] = hand[h]
    for k in range(FIRST_HAND - 1, -1, -1):
        s = 0.0
        for f in range(6):
            s += keep[grow[k, f]]
        keep[k] = s / 6.0
    if with_moments:
        for h in range(HANDS):
            keep2[FIRST_HAND + h] = hand2[h]
        for k in range(FIRST_HAND - 1, -1, -1):
            s = 0.0
            for f in range(6):
                s += keep2[grow[k, f]]
            keep2[k] = s / 6.0


@njit(cache=True)
def _best_keep_level(
    keep: FloatArray,
    keep2: FloatArray,
    best: FloatArray,
    best2: FloatArray,
    shrink: IntArray,
    lo: int,
    hi: int,
    width: int,
    with_moments: bool,
) -> None:
    # The keeps lo..hi hold ``width`` dice, so at most ``width`` smaller keeps (unrolled).
    for k in range(lo, hi):
        v = keep[k]
        v2 = keep2[k]
        for j in range(5):
            if j < width:
                c = shrink[k, j]
                w = best[c]
                if with_moments:
                    v2 = best2[c] if w > v else v2
                v = w if w > v else v
        best[k] = v
        best2[k] = v2


@njit(cache=True)
def _best_keep_up(
    keep: FloatArray,
    keep2: FloatArray,
    best: FloatArray,
    best2: FloatArray,
    shrink: IntArray,
    hand: FloatArray,
    hand2: FloatArray,
    with_moments: bool,
) -> None:
    # best[k]: the best keep inside keep k; for a hand that is its value with a roll left.
    best[0] = keep[0]
    best2[0] = keep2[0]
    best[KEEPS] = NEG
    _best_keep_level(keep, keep2, best, best2, shrink, 1, 7, 1, with_moments)
    _best_keep_level(keep, keep2, best, best2, shrink, 7, 28, 2, with_moments)
    _best_keep_level(keep, keep2, best, best2, shrink, 28, 84, 3, with_moments)
    _best_keep_level(keep, keep2, best, best2, shrink, 84, FIRST_HAND, 4, with_moments)
    _best_keep_level(keep, keep2, best, best2, shrink, FIRST_HAND, KEEPS, 5, with_moments)
    for h in range(HANDS):
        hand[h] = best[FIRST_HAND + h]
        hand2[h] = best2[FIRST_HAND + h]


@njit(cache=True, parallel=True)
def solve_states(
    states: IntArray,
    values: FloatArray,
    moments: FloatArray,
    points: FloatArray,
    classes: ClassArray,
    varied: IntArray,
    joker: IntArray,
    plain: IntArray,
    five_hands: IntArray,
    grow: IntArray,
    shrink: IntArray,
    chance: FloatArray,
    yahtzee: bool,
    free_joker: bool,
    multiplier: int,
    with_moments: bool,
    out: FloatArray,
    may_pass: bool,
    fill_cost: float,
) -> None:
    """Fill ``out`` (and ``moments``) for ``states`` (rows of mask, upper, fifty).

    ``points[b, h]`` and ``classes[b, h]`` are what hand h scores in box b (times the
    multiplier) and its outcome class (always 0 in box b unless ``varied[b]``); ``chance[h]``
    the chance of rolling hand h with five dice. ``joker[h, b]`` and ``plain[h, b]`` are the
    unmultiplied points of hand h in box b as a joker and without one; ``free_joker`` picks
    the yahtzee ruleset's free joker rule over the forced one. Every state reached from
    these by filling one box must be solved already.

    ``out`` is ``values`` for the game itself. The relaxed games of :mod:`relaxed` read the
    next turn's layer from ``values`` and write this turn's to ``out``: a turn may end
    without filling a box (``may_pass``: the state's own value in ``values``), and filling
    one costs ``fill_cost``.
    """
    n = states.shape[0]
    chunk = 32
    for c in prange((n + chunk - 1) // chunk):
        open_boxes = np.empty(BOXES, dtype=np.int64)
        bonus = np.zeros((BOXES, CLASSES))
        future = np.zeros((BOXES, CLASSES))
        future2 = np.zeros((BOXES, CLASSES))
        hand = np.empty(HANDS)
        hand2 = np.zeros(HANDS)
        keep = np.empty(KEEPS)
        keep2 = np.zeros(KEEPS)
        best = np.empty(KEEPS + 1)
        best2 = np.zeros(KEEPS + 1)
        for i in range(c * chunk, min(n, (c + 1) * chunk)):
            mask = states[i, 0]
            upper = states[i, 1]
            fifty = states[i, 2]
            n_open = _gather(
                mask,
                upper,
                fifty,
                values,
                moments,
                yahtzee,
                with_moments,
                open_boxes,
                bonus,
                future,
                future2,
            )
            _stop_values(
                n_open,
                open_boxes,
                bonus,
                future,
                future2,
                points,
                classes,
                varied,
                with_moments,
                hand,
                hand2,
            )
            if yahtzee and (mask >> BOATZEE_BOX) & 1:
                _joker_hands(
                    mask,
                    upper,
                    fifty,
                    values,
                    moments,
                    joker,
                    plain,
                    five_hands,
                    free_joker,
                    multiplier,
                    with_moments,
                    hand,
                    hand2,
                )
            if may_pass or fill_cost != 0.0:
                stay = values[fifty, mask, upper] if may_pass else NEG
                for h in range(HANDS):
                    hand[h] = max(hand[h] - fill_cost, stay)
            for _ in range(2):
                roll_down(hand, hand2, keep, keep2, grow, with_moments)
                _best_keep_up(keep, keep2, best, best2, shrink, hand, hand2, with_moments)
            first = 0.0
            first2 = 0.0
            for h in range(HANDS):
                first += chance[h] * hand[h]
                if with_moments:
                    first2 += chance[h] * hand2[h]
            out[fifty, mask, upper] = first
            moments[fifty, mask, upper] = first2
