"""Counterfactual regret minimisation on the abstract heads-up game, and its exploitability.

The abstract game: a deal is drawn uniformly from a :class:`~.cfr_deals.DealPool`, each seat
sees the betting and the bucket of its current hand strength, and plays the tree of
:mod:`~.cfr_tree`. Training is chance-sampled CFR+ (one deal an iteration, the whole tree
walked once forwards for the reach probabilities and once backwards for the values, regrets
floored at zero, the average strategy weighted by iteration). Exploitability is measured
against a best response that sees the betting and its own current bucket.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from numba import njit

from dicehall.games.holdem.cfr_tree import DECISION, FOLD, TreeArrays

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
Progress = Callable[[int, int], None]


@njit(cache=True)
def _matched(regret: FloatArray, allowed: npt.NDArray[np.bool_], out: FloatArray) -> None:
    """Regret matching: positive regrets normalised, else uniform over allowed actions."""
    total = 0.0
    for a in range(3):
        out[a] = regret[a] if allowed[a] and regret[a] > 0.0 else 0.0
        total += out[a]
    if total > 0.0:
        for a in range(3):
            out[a] /= total
        return
    count = allowed.sum()
    for a in range(3):
        out[a] = 1.0 / count if allowed[a] else 0.0


@njit(cache=True)
def _train(
    kind: IntArray,
    seat: IntArray,
    stage: IntArray,
    key: IntArray,
    child: IntArray,
    won: FloatArray,
    roll: IntArray,
    buckets: IntArray,
    result: npt.NDArray[np.int8],
    deals: IntArray,
    regret: FloatArray,
    total: FloatArray,
    first: int,
    n_buckets: int,
) -> None:
    n = kind.shape[0]
    reach = np.zeros((n, 2), np.float64)
    sigma = np.zeros((n, 3), np.float64)
    value = np.zeros(n, np.float64)
    allowed = np.zeros(3, np.bool_)
    for i in range(deals.shape[0]):
        d = deals[i]
        weight = float(first + i + 1)
        reach[:] = 0.0
        reach[0, 0] = 1.0
        reach[0, 1] = 1.0
        for v in range(n):
            if kind[v] != DECISION:
                continue
            s = seat[v]
            info = key[v] * n_buckets + buckets[d, s, stage[v]]
            for a in range(3):
                allowed[a] = child[v, a] >= 0
            _matched(regret[info], allowed, sigma[v])
            for a in range(3):
                c = child[v, a]
                if c >= 0:
                    reach[c, s] += reach[v, s] * sigma[v, a]
                    reach[c, 1 - s] += reach[v, 1 - s]
        for v in range(n - 1, -1, -1):
            if kind[v] == FOLD:
                value[v] = won[v]
                continue
            if kind[v] != DECISION:
                value[v] = won[v] * result[d, roll[v]]
                continue
            s = seat[v]
            info = key[v] * n_buckets + buckets[d, s, stage[v]]
            here = 0.0
            for a in range(3):
                if child[v, a] >= 0:
                    here += sigma[v, a] * value[child[v, a]]
            value[v] = here
            sign = 1.0 if s == 0 else -1.0
            for a in range(3):
                c = child[v, a]
                if c >= 0:
                    gain = sign * reach[v, 1 - s] * (value[c] - here)
                    regret[info, a] = max(0.0, regret[info, a] + gain)
                    total[info, a] += weight * reach[v, s] * sigma[v, a]


@dataclass
class Trainer:
    """Regrets and strategy sums over ``n_keys * buckets`` information sets."""

    tree: TreeArrays
    buckets: IntArray
    result: npt.NDArray[np.int8]
    n_buckets: int
    seed: int = 0
    done: int = 0

    def __post_init__(self) -> None:
        size = self.tree.n_keys * self.n_buckets
        self.regret = np.zeros((size, 3), np.float64)
        self.total = np.zeros((size, 3), np.float64)
        self._rng = np.random.default_rng(self.seed)

    def run(self, iterations: int, progress: Progress | None = None, chunk: int = 5000) -> None:
        """``iterations`` more iterations, one sampled deal each."""
        left = iterations
        while left > 0:
            step = min(chunk, left)
            deals = self._rng.integers(0, self.buckets.shape[0], step).astype(np.int64)
            t = self.tree
            _train(
                t.kind, t.seat, t.stage, t.key, t.child, t.won, t.roll, self.buckets,
                self.result, deals, self.regret, self.total, self.done, self.n_buckets,
            )  # fmt: skip
            self.done += step
            left -= step
            if progress is not None:
                progress(iterations - left, iterations)

    def average(self) -> FloatArray:
        """The average strategy; an information set never reached checks or calls."""
        sums = self.total.sum(axis=1, keepdims=True)
        fallback = np.zeros_like(self.total)
        fallback[:, 1] = 1.0
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(sums > 0, self.total / np.where(sums > 0, sums, 1.0), fallback)
        average: FloatArray = mean
        return average


@njit(cache=True)
def _best_response(
    kind: IntArray,
    seat: IntArray,
    stage: IntArray,
    key: IntArray,
    child: IntArray,
    won: FloatArray,
    roll: IntArray,
    buckets: IntArray,
    result: npt.NDArray[np.int8],
    strategy: FloatArray,
    me: int,
    n_buckets: int,
) -> float:
    """The best value ``me`` can get against ``strategy`` (per hand, in chips)."""
    n = kind.shape[0]
    deals = buckets.shape[0]
    reach = np.zeros((n, deals), np.float32)
    value = np.zeros((n, deals), np.float32)
    reach[0, :] = 1.0
    for v in range(n):
        if kind[v] != DECISION:
            continue
        for d in range(deals):
            r = reach[v, d]
            if r == 0.0:
                continue
            s = seat[v]
            info = key[v] * n_buckets + buckets[d, s, stage[v]]
            for a in range(3):
                c = child[v, a]
                if c >= 0:
                    reach[c, d] += r if s == me else r * strategy[info, a]
    sign = 1.0 if me == 0 else -1.0
    q = np.zeros((n_buckets, 3), np.float64)
    for v in range(n - 1, -1, -1):
        if kind[v] == FOLD:
            value[v, :] = sign * won[v]
            continue
        if kind[v] != DECISION:
            for d in range(deals):
                value[v, d] = sign * won[v] * result[d, roll[v]]
            continue
        s = seat[v]
        if s != me:
            for d in range(deals):
                info = key[v] * n_buckets + buckets[d, s, stage[v]]
                here = 0.0
                for a in range(3):
                    if child[v, a] >= 0:
                        here += strategy[info, a] * value[child[v, a], d]
                value[v, d] = here
            continue
        q[:] = 0.0
        for d in range(deals):
            b = buckets[d, s, stage[v]]
            for a in range(3):
                if child[v, a] >= 0:
                    q[b, a] += reach[v, d] * value[child[v, a], d]
        best = np.zeros(n_buckets, np.int64)
        for b in range(n_buckets):
            best[b] = -1
            for a in range(3):
                if child[v, a] >= 0 and (best[b] < 0 or q[b, a] > q[b, best[b]]):
                    best[b] = a
        for d in range(deals):
            value[v, d] = value[child[v, best[buckets[d, s, stage[v]]]], d]
    return float(value[0, :].astype(np.float64).mean())


def best_response(
    tree: TreeArrays,
    buckets: IntArray,
    result: npt.NDArray[np.int8],
    strategy: FloatArray,
    seat: int,
    n_buckets: int,
) -> float:
    """What a best response in ``seat`` wins per hand against ``strategy`` in the other."""
    t = tree
    return _best_response(
        t.kind, t.seat, t.stage, t.key, t.child, t.won, t.roll, buckets, result,
        strategy, seat, n_buckets,
    )  # fmt: skip


def exploitability(
    tree: TreeArrays,
    buckets: IntArray,
    result: npt.NDArray[np.int8],
    strategy: FloatArray,
    n_buckets: int,
) -> float:
    """Chips per hand a best response wins on average over both seats (0 at equilibrium)."""
    first = best_response(tree, buckets, result, strategy, 0, n_buckets)
    second = best_response(tree, buckets, result, strategy, 1, n_buckets)
    return (first + second) / 2
