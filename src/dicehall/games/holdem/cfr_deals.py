"""Sampled heads-up deals for the ``cfr`` bot: each seat's hand strength at every stage.

A hand's strength is its share of the pot against one unknown pocket, from that seat's view
(its pocket and the board so far). A deal fixes both pockets, the board and the faces of two
flop re-rolls (the colours stay); the stages are the Open, the flop as first rolled and as
re-rolled once and twice, and the turn and the river after each of those three flops. The
pool of deals is the chance model of the abstract game the strategy is trained on.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from numba import njit

from dicehall.games.holdem.dice import PER_COLOUR
from dicehall.games.holdem.equity import _exact_equity, _monte_carlo, _rows
from dicehall.games.holdem.tables import BINOM, IntArray, RankArray, tables

FloatArray = npt.NDArray[np.float64]

#: Flop rolls modelled: the first and two re-rolls (a third all-check flop goes on).
FLOPS = 3
#: Stages: the Open, then flop, turn and river for each flop roll.
STAGES = 1 + 3 * FLOPS
#: The street of each stage (0 open, 1 flop, 2 turn, 3 river) and its flop roll.
STAGE_STREET = (0, 1, 1, 1, 2, 2, 2, 3, 3, 3)
STAGE_ROLL = (0, 0, 1, 2, 0, 1, 2, 0, 1, 2)
#: Monte Carlo deals per strength on the flop and turn while building the pool.
POOL_SAMPLES = 300
#: Monte Carlo deals per pocket for the Open's table of strengths.
PREFLOP_SAMPLES = 20_000


def stage_of(street: int, roll: int) -> int:
    """The stage index of a street (0 to 3) after flop roll ``roll``."""
    return 0 if street == 0 else 1 + (street - 1) * FLOPS + roll


@dataclass(frozen=True)
class DealPool:
    """``strength[d, seat, stage]``: seat 0 acts first (not the dealer), seat 1 deals;
    ``result[d, roll]``: +1 when seat 0 wins the showdown after flop roll ``roll``, -1 when
    seat 1 does, 0 for a split."""

    strength: npt.NDArray[np.float32]
    result: npt.NDArray[np.int8]


@njit(cache=True)
def _deal_dice(n: int, seed: int) -> IntArray:
    """Per deal: two pockets, the flop's colours, turn, river, and 3 x 3 flop faces.

    Row layout: kinds of pocket 0 (2), pocket 1 (2), turn, river, then the three flop
    rolls' kinds (3 each).
    """
    np.random.seed(seed)
    out = np.zeros((n, 6 + 3 * FLOPS), np.int64)
    bag = np.zeros(4 * PER_COLOUR, np.int64)
    for c in range(4):
        for i in range(PER_COLOUR):
            bag[c * PER_COLOUR + i] = c
    for d in range(n):
        for i in range(9):
            j = i + np.random.randint(0, bag.shape[0] - i)
            bag[i], bag[j] = bag[j], bag[i]
        for i in range(6):
            out[d, i] = np.random.randint(0, 6) * 4 + bag[i]
        for r in range(FLOPS):
            for i in range(3):
                out[d, 6 + 3 * r + i] = np.random.randint(0, 6) * 4 + bag[6 + i]
    return out


@njit(cache=True)
def _bag_without(known: IntArray) -> IntArray:
    counts = np.full(4, PER_COLOUR, np.int64)
    for k in known:
        counts[k % 4] -= 1
    bag = np.zeros(counts.sum(), np.int64)
    at = 0
    for c in range(4):
        for _ in range(counts[c]):
            bag[at] = c
            at += 1
    return bag


@njit(cache=True)
def _rank7(hand: IntArray, rank7: RankArray, binom: IntArray) -> int:
    a = np.sort(hand)
    total = 0
    for i in range(7):
        total += binom[a[i] + i, i + 1]
    return int(rank7[total])


@njit(cache=True)
def _strengths(
    dice: IntArray,
    preflop: FloatArray,
    samples: int,
    seed: int,
    rank7: RankArray,
    binom: IntArray,
    boards: IntArray,
    board_ord: FloatArray,
    board_col: IntArray,
    pairs: IntArray,
    pair_ord: FloatArray,
    pair_col: IntArray,
    fall: FloatArray,
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8]]:
    n = dice.shape[0]
    strength = np.zeros((n, 2, STAGES), np.float32)
    result = np.zeros((n, FLOPS), np.int8)
    for d in range(n):
        for seat in range(2):
            pocket = dice[d, 2 * seat : 2 * seat + 2].copy()
            strength[d, seat, 0] = preflop[min(pocket[0], pocket[1]) * 24 + max(pocket)]
            for r in range(FLOPS):
                flop = dice[d, 6 + 3 * r : 9 + 3 * r].copy()
                board = flop
                for street in range(1, 4):
                    if street == 2:
                        board = np.append(flop, dice[d, 4])
                    elif street == 3:
                        board = np.append(board, dice[d, 5])
                    bag = _bag_without(np.concatenate((pocket, board)))
                    stage = 1 + (street - 1) * FLOPS + r
                    if street < 3:
                        token = seed + ((d * 2 + seat) * STAGES + stage) * 7919
                        sums = _monte_carlo(
                            pocket, board, 1, bag, samples, token % 2**32, rank7, binom
                        )
                        strength[d, seat, stage] = sums[2] / samples
                    else:
                        counts = np.zeros(4, np.int64)
                        for c in bag:
                            counts[c] += 1
                        totals = _exact_equity(
                            pocket, board, boards, board_ord, board_col, pairs, pair_ord,
                            pair_col, 1, counts, fall, rank7, binom,
                        )  # fmt: skip
                        strength[d, seat, stage] = totals[2] / totals[3]
        for r in range(FLOPS):
            board = np.concatenate((dice[d, 6 + 3 * r : 9 + 3 * r], dice[d, 4:6]))
            first = _rank7(np.concatenate((dice[d, 0:2], board)), rank7, binom)
            second = _rank7(np.concatenate((dice[d, 2:4], board)), rank7, binom)
            result[d, r] = 1 if first > second else (-1 if second > first else 0)
    return strength, result


def preflop_strengths(samples: int = PREFLOP_SAMPLES, seed: int = 0) -> FloatArray:
    """``table[a * 24 + b]`` (a <= b): the Open's strength of a pocket of kinds a and b."""
    t = tables()
    table = np.zeros(24 * 24, np.float64)
    for a in range(24):
        for b in range(a, 24):
            pocket = np.array([a, b], np.int64)
            bag = _bag_without(pocket)
            sums = _monte_carlo(
                pocket, pocket[:0], 1, bag, samples, seed + a * 24 + b, t.rank7, BINOM
            )
            table[a * 24 + b] = sums[2] / samples
    return table


def deal_pool(n: int, seed: int, preflop: FloatArray, samples: int = POOL_SAMPLES) -> DealPool:
    """``n`` deals from ``seed``, with every seat's strength at every stage."""
    from dicehall.games.holdem.equity import FALL

    t = tables()
    dice = _deal_dice(n, seed % 2**32)
    strength, result = _strengths(
        dice, preflop, samples, seed, t.rank7, BINOM, *_rows(0), *_rows(2), FALL
    )
    return DealPool(strength, result)


def bucket_edges(pool: DealPool, buckets: int) -> FloatArray:
    """``edges[street]``: inner edges that cut each street's strengths into equal shares."""
    edges = np.zeros((4, buckets - 1), np.float64)
    levels = np.arange(1, buckets) / buckets
    for street in range(4):
        stages = [s for s in range(STAGES) if STAGE_STREET[s] == street]
        values = pool.strength[:, :, stages].ravel()
        edges[street] = np.quantile(values, levels)
    return edges


def bucket_of(strength: float, edges: FloatArray) -> int:
    """The bucket of one strength on one street (``edges``: that street's inner edges)."""
    return int(np.searchsorted(edges, strength, side="right"))


def pool_buckets(pool: DealPool, edges: FloatArray) -> npt.NDArray[np.int64]:
    """``buckets[d, seat, stage]`` for every deal of the pool."""
    out = np.zeros(pool.strength.shape, np.int64)
    for stage in range(STAGES):
        street_edges = edges[STAGE_STREET[stage]]
        out[:, :, stage] = np.searchsorted(street_edges, pool.strength[:, :, stage], "right")
    return out
