"""One turn of a one-column card valued from the solved table: the figures of a hint.

For a scorecard state, the dice and the re-rolls left, :func:`turn_values` gives the value
of every distinct keep of the dice and of every box they may go in (the points scored now
plus what the table expects afterwards), with their order best first. It evaluates the
state's turn the way the solver does (the few next states each open box leads to, the best
box for every final hand, then the keep lattice for each re-roll), so a hint is a few
thousand additions over small flat arrays, not a pass over a matrix of keeps and hands.

Two implementations give the same numbers to the last bit: a Numba kernel
(:mod:`turn_kernels`), used once a process has asked for more than one hint, and NumPy
(:func:`turn_values_numpy`), which answers the first hint of a process without loading
Numba (about half a second of start-up for a one-shot ``dicehall hint``).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from itertools import combinations

import numpy as np

from dicehall.games.boatzee.card import Joker, Ruleset
from dicehall.games.boatzee.dice_tables import KEEP_INDEX, KEEPS, FloatArray, IntArray
from dicehall.games.boatzee.keeps import FIRST_HAND, lattice
from dicehall.games.boatzee.rule_tables import Rules, rules
from dicehall.games.boatzee.scoring import BOATZEE, BOXES, HANDS, SCORES, Box

CAP = 63
UPPER_BONUS = 35
EXTRA_BONUS = 100
BOATZEE_POINTS = 50
NEG = -1.0e300
LOWER_BITS = ((1 << len(BOXES)) - 1) ^ 63
#: Values closer than this are the same value for ordering choices (see ties_in_index_order).
TIE = 1e-9

TurnValues = tuple[IntArray, FloatArray]
"""``(order, ranked)``: see :func:`turn_values`."""


Label = tuple[tuple[int, ...] | None, Box | None, int | None]
"""A choice as (keep, box, points): ``(keep, None, None)`` or ``(None, box, points)``."""


@cache
def hand_choices(hand: int, rolls_left: bool) -> tuple[IntArray, tuple[Label, ...]]:
    """The choices of a hand, as :func:`turn_values` numbers them: while re-rolls are left,
    its distinct keeps (fewer than five dice), most dice first, then in order; then the 13
    boxes with the hand's points there (no joker). Their keep indices and labels."""
    dice = HANDS[hand]
    keeps = sorted(
        {keep for size in range(len(dice)) for keep in combinations(dice, size)}
        if rolls_left
        else (),
        key=lambda keep: (-len(keep), keep),
    )
    ids = np.array([KEEP_INDEX[keep] for keep in keeps], dtype=np.int64)
    ids.setflags(write=False)
    labels: list[Label] = [(keep, None, None) for keep in keeps]
    labels += [(None, box, SCORES[hand][b]) for b, box in enumerate(BOXES)]
    return ids, tuple(labels)


def turn_values_numpy(
    values: FloatArray,
    state: tuple[int, int, int],
    hand: int,
    rolls_left: int,
    keep_ids: IntArray,
    ruleset: Ruleset,
    joker: Joker,
    now: float = 0.0,
) -> TurnValues:
    """:func:`turn_values` in NumPy (the kernel's operations, in the same order)."""
    fifty, mask, upper = state
    r = rules(ruleset, 1)
    yahtzee = ruleset == "yahtzee"
    stop = np.full(len(HANDS), NEG)
    box_values = np.full(len(BOXES), -np.inf)
    for b in range(len(BOXES)):
        if mask >> b & 1:
            continue
        after = mask | 1 << b
        classes = r.classes[b].astype(np.int64) if r.varied[b] else np.zeros(len(HANDS), np.int64)
        bonus = np.zeros(6)
        future = np.zeros(6)
        for c in range(6):
            next_upper, next_fifty, extra = upper, fifty, 0.0
            if b < 6:
                next_upper = upper + (b + 1) * c
                if next_upper >= CAP:
                    next_upper = CAP
                    if upper < CAP:
                        extra = float(UPPER_BONUS)
            elif yahtzee and b == BOATZEE:
                next_fifty = c
                if c > 1:
                    break
            elif c > 0:
                break
            bonus[c] = extra
            future[c] = values[next_fifty, after, next_upper]
        v = r.points[b] + bonus[classes] + future[classes]
        stop = np.where(v > stop, v, stop)
        box_values[b] = v[hand]
    if yahtzee:
        _five_hands(values, state, hand, r, joker == "free", stop, box_values)
    n_keeps = len(keep_ids)
    out = np.empty(n_keeps + len(BOXES))
    if rolls_left > 0:
        keep = _roll_down(stop)
        if rolls_left > 1:
            keep = _roll_down(_best_keep_up(keep)[FIRST_HAND:])
        out[:n_keeps] = keep[keep_ids]
    out[n_keeps:] = box_values
    order = np.argsort(-out, kind="stable")
    finite = int(np.isfinite(out).sum())
    ties_in_index_order(out, order, finite)
    order = order[:finite]
    return order, now + out[order]


def ties_in_index_order(out: FloatArray, order: IntArray, finite: int) -> None:
    """Within each run of ``order`` whose values are within :data:`TIE` of the run's first
    (the same value but for rounding, as equivalent keeps often are), put the entries back
    in index order, so that rounding never decides between equal choices."""
    i = 0
    while i < finite:
        j = i + 1
        while j < finite and out[order[i]] - out[order[j]] <= TIE:
            j += 1
        if j - i > 1:
            order[i:j] = np.sort(order[i:j])
        i = j


def _five_hands(
    values: FloatArray,
    state: tuple[int, int, int],
    hand: int,
    r: Rules,
    free_joker: bool,
    stop: FloatArray,
    box_values: FloatArray,
) -> None:
    # turn_kernels._five_hands, one number at a time.
    fifty, mask, upper = state
    boatzee_filled = mask >> BOATZEE & 1 == 1
    lower_open = (mask & LOWER_BITS) != LOWER_BITS
    extra = EXTRA_BONUS if fifty == 1 else 0
    now = float(values[fifty, mask, upper])
    if hand in r.five_hands:
        box_values[:] = -np.inf
    for face in range(1, 7):
        h = int(r.five_hands[face - 1])
        face_open = mask >> (face - 1) & 1 == 0
        best = NEG
        for b in range(len(BOXES)):
            if mask >> b & 1:
                continue
            if boatzee_filled and not free_joker:
                if face_open:
                    if b != face - 1:
                        continue
                elif lower_open and b < 6:
                    continue
            points = int(r.plain[h, b] if face_open or not boatzee_filled else r.joker[h, b])
            gained = points + extra
            next_upper, next_fifty = upper, fifty
            if b < 6:
                if upper < CAP <= upper + points:
                    gained += UPPER_BONUS
                next_upper = min(CAP, upper + points)
            elif b == BOATZEE:
                next_fifty = 1 if points == BOATZEE_POINTS else 0
            ahead = float(values[next_fifty, mask | 1 << b, next_upper])
            v = gained + ahead + now - now
            if h == hand:
                box_values[b] = v
            if v > best:
                best = v
        stop[h] = best


def _roll_down(hand_values: FloatArray) -> FloatArray:
    # solver_kernels.roll_down, a level of the keep lattice at a time.
    keep = np.empty(len(KEEPS))
    keep[FIRST_HAND:] = hand_values
    grow, starts = lattice().grow, lattice().level_start
    for size in range(4, -1, -1):
        lo, hi = int(starts[size]), int(starts[size + 1])
        g = grow[lo:hi]
        s = 0.0 + keep[g[:, 0]]
        for f in range(1, 6):
            s = s + keep[g[:, f]]
        keep[lo:hi] = s / 6.0
    return keep


def _best_keep_up(keep: FloatArray) -> FloatArray:
    # solver_kernels._best_keep_up: the best keep inside each keep, a level at a time.
    shrink, starts = lattice().shrink, lattice().level_start
    best = np.empty(len(KEEPS) + 1)
    best[: len(KEEPS)] = keep
    best[len(KEEPS)] = NEG
    for size in range(1, 6):
        lo, hi = int(starts[size]), int(starts[size + 1])
        v = best[lo:hi]
        for j in range(size):
            w = best[shrink[lo:hi, j]]
            v = np.where(w > v, w, v)
        best[lo:hi] = v
    return best[: len(KEEPS)]


_turn_choices: Callable[..., TurnValues] | None = None


def turn_values_compiled(
    values: FloatArray,
    state: tuple[int, int, int],
    hand: int,
    rolls_left: int,
    keep_ids: IntArray,
    ruleset: Ruleset,
    joker: Joker,
    now: float = 0.0,
) -> TurnValues:
    """:func:`turn_values` by the Numba kernel (loads Numba and the compiled kernel)."""
    global _turn_choices
    if _turn_choices is None:
        from dicehall.games.boatzee.turn_kernels import turn_choices

        _turn_choices = turn_choices
    fifty, mask, upper = state
    r = rules(ruleset, 1)
    keep = lattice()
    found: TurnValues = _turn_choices(
        values,
        fifty,
        mask,
        upper,
        hand,
        rolls_left,
        keep_ids,
        now,
        r.points,
        r.classes,
        r.varied,
        r.joker,
        r.plain,
        r.five_hands,
        keep.grow,
        keep.shrink,
        ruleset == "yahtzee",
        joker == "free",
    )
    return found


#: How many turns this process has valued: the first by NumPy, the rest compiled.
_asked = 0


def turn_values(
    values: FloatArray,
    state: tuple[int, int, int],
    hand: int,
    rolls_left: int,
    ruleset: Ruleset,
    joker: Joker = "forced",
    now: float = 0.0,
) -> tuple[IntArray, FloatArray, tuple[Label, ...]]:
    """Every choice of ``hand`` (a :data:`scoring.HANDS` index) in ``state`` (fifty, mask,
    upper) of the one-column table ``values``, with ``rolls_left`` re-rolls left.

    Returns ``order``, ``ranked`` and ``labels``: the choices best first, as indices into
    ``labels`` (see :func:`hand_choices`: each distinct keep while re-rolls are left, then
    each box the dice may go in now), and their values plus ``now``. A keep's value is what
    holding it and re-rolling the rest is worth, a box's the points it adds now plus what
    the table expects afterwards. Values within :data:`TIE` of each other are equal choices
    listed in label order (keeps before boxes, more dice first).

    The first call in a process computes with NumPy, the later ones with the compiled
    kernel: the same numbers, without loading Numba for a one-shot hint.
    """
    global _asked
    ids, labels = hand_choices(hand, rolls_left > 0)
    _asked += 1
    evaluate = turn_values_numpy if _asked == 1 else turn_values_compiled
    order, ranked = evaluate(values, state, hand, rolls_left, ids, ruleset, joker, now)
    return order, ranked, labels
