"""The Numba kernel of a hint: one scorecard state's turn, valued from the solved table.

:func:`turn_choices` is :func:`turn.turn_values_numpy` compiled: the same operations in the
same order, so both give the same numbers to the last bit (the tests compare them). It
reuses the solver's own steps (:mod:`solver_kernels`): the few next states each open box
leads to, the best box for every final hand, and the keep lattice for the re-rolls.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from dicehall.games.boatzee.dice_tables import FloatArray, IntArray
from dicehall.games.boatzee.rule_tables import ClassArray
from dicehall.games.boatzee.solver_kernels import (
    BOATZEE_BOX,
    BOXES,
    CAP,
    CLASSES,
    HANDS,
    KEEPS,
    LOWER_BITS,
    NEG,
    _best_keep_up,
    _gather,
    _stop_values,
    roll_down,
)

UPPER_BONUS = 35
EXTRA_BONUS = 100
BOATZEE_POINTS = 50
TIE = 1e-9


@njit(cache=True)
def _five_hands(
    values: FloatArray,
    fifty: int,
    mask: int,
    upper: int,
    hand: int,
    joker: IntArray,
    plain: IntArray,
    five_hands: IntArray,
    free_joker: bool,
    stop: FloatArray,
    box_values: FloatArray,
) -> None:
    # Yahtzee ruleset: the six five-of-a-kind hands, valued as the card rules fill them
    # (joker, 100 bonus), in the operations of ``valuation.TableValuation._play_fives``.
    boatzee_filled = (mask >> BOATZEE_BOX) & 1 == 1
    lower_open = (mask & LOWER_BITS) != LOWER_BITS
    extra = EXTRA_BONUS if fifty == 1 else 0
    now = values[fifty, mask, upper]
    for face in range(1, 7):
        h = five_hands[face - 1]
        face_open = (mask >> (face - 1)) & 1 == 0
        best = NEG
        for b in range(BOXES):
            if (mask >> b) & 1:
                continue
            if boatzee_filled and not free_joker:
                if face_open:
                    if b != face - 1:
                        continue
                elif lower_open and b < 6:
                    continue
            points = plain[h, b] if face_open or not boatzee_filled else joker[h, b]
            gained = points + extra
            next_upper = upper
            next_fifty = fifty
            if b < 6:
                if upper < CAP <= upper + points:
                    gained += UPPER_BONUS
                next_upper = min(CAP, upper + points)
            elif b == BOATZEE_BOX:
                next_fifty = 1 if points == BOATZEE_POINTS else 0
            ahead = values[next_fifty, mask | (1 << b), next_upper]
            v = gained + ahead + now - now
            if h == hand:
                box_values[b] = v
            if v > best:
                best = v
        stop[h] = best


@njit(cache=True)
def turn_choices(
    values: FloatArray,
    fifty: int,
    mask: int,
    upper: int,
    hand: int,
    rolls_left: int,
    keep_ids: IntArray,
    now: float,
    points: FloatArray,
    classes: ClassArray,
    varied: IntArray,
    joker: IntArray,
    plain: IntArray,
    five_hands: IntArray,
    grow: IntArray,
    shrink: IntArray,
    yahtzee: bool,
    free_joker: bool,
) -> tuple[IntArray, FloatArray]:
    """The choices of ``hand`` in state (fifty, mask, upper) with ``rolls_left`` re-rolls,
    best first: see :func:`turn.turn_values`."""
    open_boxes = np.empty(BOXES, dtype=np.int64)
    bonus = np.zeros((BOXES, CLASSES))
    future = np.zeros((BOXES, CLASSES))
    stop = np.empty(HANDS)
    box_values = np.full(BOXES, -np.inf)
    n_open = _gather(
        mask, upper, fifty, values, values, yahtzee, False, open_boxes, bonus, future, future
    )
    unused_hand = np.zeros(HANDS)
    if rolls_left > 0:
        _stop_values(
            n_open,
            open_boxes,
            bonus,
            future,
            future,
            points,
            classes,
            varied,
            False,
            stop,
            unused_hand,
        )
    for j in range(n_open):
        b = open_boxes[j]
        c = classes[b, hand] if varied[b] else 0
        box_values[b] = points[b, hand] + bonus[j, c] + future[j, c]
    if yahtzee:
        for face in range(6):
            if five_hands[face] == hand:
                for b in range(BOXES):
                    box_values[b] = -np.inf
        _five_hands(
            values, fifty, mask, upper, hand, joker, plain, five_hands, free_joker, stop, box_values
        )
    n_keeps = keep_ids.shape[0]
    out = np.empty(n_keeps + BOXES)
    if rolls_left > 0:
        keep = np.empty(KEEPS)
        unused_keep = np.zeros(KEEPS)
        roll_down(stop, unused_hand, keep, unused_keep, grow, False)
        if rolls_left > 1:
            best = np.empty(KEEPS + 1)
            unused_best = np.zeros(KEEPS + 1)
            _best_keep_up(keep, unused_keep, best, unused_best, shrink, stop, unused_hand, False)
            roll_down(stop, unused_hand, keep, unused_keep, grow, False)
        for i in range(n_keeps):
            out[i] = keep[keep_ids[i]]
    for b in range(BOXES):
        out[n_keeps + b] = box_values[b]
    order = np.argsort(-out, kind="mergesort")
    finite = 0
    for i in range(out.shape[0]):
        if np.isfinite(out[i]):
            finite += 1
    _ties_in_index_order(out, order, finite)
    ranked = np.empty(finite)
    for i in range(finite):
        ranked[i] = now + out[order[i]]
    return order[:finite], ranked


@njit(cache=True)
def _ties_in_index_order(out: FloatArray, order: IntArray, finite: int) -> None:
    # turn.ties_in_index_order, compiled.
    i = 0
    while i < finite:
        j = i + 1
        while j < finite and out[order[i]] - out[order[j]] <= TIE:
            j += 1
        if j - i > 1:
            order[i:j] = np.sort(order[i:j])
        i = j
