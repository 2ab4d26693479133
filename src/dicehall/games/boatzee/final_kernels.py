"""Numba kernels for the distribution of the points still to come under optimal play.

One-column Boatzee (boatzee ruleset), where a state at the start of a turn is ``(mask,
upper)``. A turn played by the solved table (the ``optimal`` bot's play: the best box for
each final hand, the best keep for each hand with a re-roll left) ends in one of at most
13 x 51 outcomes, (box, points). :func:`turn_outcomes` finds their chances by pushing the
first roll's chances forward through the chosen keeps. A state's distribution of what is
still to come is then the mixture, over those outcomes, of the next state's distribution
shifted by the points (and the upper bonus when it is reached).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit, prange

from dicehall.games.boatzee.dice_tables import FloatArray, IntArray
from dicehall.games.boatzee.solver_kernels import roll_down

Float32Array = npt.NDArray[np.float32]

BOXES = 13
CAP = 63
UPPER_BONUS = 35
HANDS = 252
FIRST_HAND = 210
KEEPS = 462
#: Outcome points run 0..50 (the Boatzee box's 50 is the most one box scores).
POINTS = 51
NEG = -1.0e300


@njit(cache=True)
def _next_upper(upper: int, box: int, points: int) -> tuple[int, int]:
    # The next upper total (capped) and the bonus earned by scoring ``points`` in ``box``.
    if box >= 6:
        return upper, 0
    reached = upper + points
    if reached >= CAP:
        return CAP, UPPER_BONUS if upper < CAP else 0
    return reached, 0


@njit(cache=True)
def _stop(
    mask: int, upper: int, values: FloatArray, points: FloatArray, stop: FloatArray, box: IntArray
) -> None:
    # The best box for each final hand (the first of equals, as the bots break ties).
    for h in range(HANDS):
        stop[h] = NEG
    for b in range(BOXES):
        if (mask >> b) & 1:
            continue
        after = mask | (1 << b)
        for h in range(HANDS):
            p = int(points[b, h])
            nu, bonus = _next_upper(upper, b, p)
            v = p + bonus + values[after, nu]
            if v > stop[h]:
                stop[h] = v
                box[h] = b


@njit(cache=True)
def _best_keeps(
    hand: FloatArray,
    grow: IntArray,
    shrink: IntArray,
    keep: FloatArray,
    best: FloatArray,
    chosen: IntArray,
) -> None:
    # With one more re-roll: hand[h] becomes the best keep's value, chosen[FIRST_HAND + h]
    # that keep (the hand itself when holding every die is best, so equals keep the dice).
    # The keeps are valued as the solver values them; only the choice of keep is new here.
    roll_down(hand, hand, keep, keep, grow, False)
    best[KEEPS] = NEG
    for k in range(KEEPS):
        v = keep[k]
        a = k
        for j in range(5):
            c = shrink[k, j]
            if c < KEEPS and best[c] > v:
                v = best[c]
                a = chosen[c]
        best[k] = v
        chosen[k] = a
    for h in range(HANDS):
        hand[h] = best[FIRST_HAND + h]


@njit(cache=True)
def _push(mass: FloatArray, chosen: IntArray, grow: IntArray, flow: FloatArray) -> None:
    # Hands with ``mass`` hold their chosen keeps and roll the rest: the hands that follow.
    for k in range(KEEPS):
        flow[k] = 0.0
    for h in range(HANDS):
        flow[chosen[FIRST_HAND + h]] += mass[h]
    for k in range(FIRST_HAND):
        m = flow[k]
        if m != 0.0:
            for f in range(6):
                flow[grow[k, f]] += m / 6.0
    for h in range(HANDS):
        mass[h] = flow[FIRST_HAND + h]


@njit(cache=True)
def turn_outcomes(
    mask: int,
    upper: int,
    values: FloatArray,
    points: FloatArray,
    grow: IntArray,
    shrink: IntArray,
    chance: FloatArray,
    out: FloatArray,
) -> None:
    """``out[box, points]``: the chance that a turn from ``(mask, upper)`` played by
    ``values[mask, upper]`` (the solved table) scores ``points`` in ``box``."""
    stop = np.empty(HANDS)
    box = np.zeros(HANDS, dtype=np.int64)
    hand = np.empty(HANDS)
    keep = np.empty(KEEPS)
    best = np.empty(KEEPS + 1)
    last = np.empty(KEEPS, dtype=np.int64)  # the keeps chosen with one re-roll left
    first = np.empty(KEEPS, dtype=np.int64)  # and with two
    flow = np.empty(KEEPS)
    _stop(mask, upper, values, points, stop, box)
    hand[:] = stop
    _best_keeps(hand, grow, shrink, keep, best, last)
    _best_keeps(hand, grow, shrink, keep, best, first)
    mass = chance.copy()
    _push(mass, first, grow, flow)
    _push(mass, last, grow, flow)
    out[:, :] = 0.0
    for h in range(HANDS):
        b = box[h]
        out[b, int(points[b, h])] += mass[h]


@njit(cache=True, parallel=True)
def fill_distributions(
    states: IntArray,
    values: FloatArray,
    points: FloatArray,
    grow: IntArray,
    shrink: IntArray,
    chance: FloatArray,
    offsets: IntArray,
    lengths: IntArray,
    flat: Float32Array,
) -> None:
    """Write the distribution of each of ``states`` (rows of mask, upper) into ``flat``:
    ``flat[offsets[mask, upper] + t]`` for t below ``lengths[mask]`` is the chance that the
    rest of the game adds exactly t points. Every next state must be filled already."""
    for i in prange(states.shape[0]):
        mask = states[i, 0]
        upper = states[i, 1]
        out = np.empty((BOXES, POINTS))
        turn_outcomes(mask, upper, values, points, grow, shrink, chance, out)
        length = lengths[mask]
        dist = np.zeros(length)
        for b in range(BOXES):
            if (mask >> b) & 1:
                continue
            after = mask | (1 << b)
            for p in range(POINTS):
                chance_here = out[b, p]
                if chance_here == 0.0:
                    continue
                nu, bonus = _next_upper(upper, b, p)
                shift = p + bonus
                start = offsets[after, nu]
                # A bonus earned now cannot come again, so the next state's last
                # slots (kept for it) are empty: stopping at this state's end drops no mass.
                for t in range(min(lengths[after], length - shift)):
                    dist[shift + t] += chance_here * flat[start + t]
        start = offsets[mask, upper]
        for t in range(length):
            flat[start + t] = dist[t]
