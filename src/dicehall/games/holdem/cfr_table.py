"""The ``cfr`` bot's strategy table: built from a seed, shipped with the package, checked.

The table (``cfr_strategy.npz`` next to this module) holds the bucket edges, the Open's
strengths of every pocket, the decision keys and the average strategy, with a version key
and how it was built. A file of another version, or one that does not fit the current
betting tree, is refused with a message saying how to build it again::

    python -m dicehall.games.holdem.cfr_table [--deals N] [--iterations N] [--seed N]

Building is deterministic for a seed and takes a few minutes on one core.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import numpy.typing as npt

from dicehall.games.holdem.cfr_tree import build_tree

#: Bump when the abstraction, the tree or the training changes what a table means.
TABLE_VERSION = 1
#: Hand-strength buckets per street.
BUCKETS = 10
DEFAULT_DEALS = 40_000
DEFAULT_ITERATIONS = 3_000_000
DEFAULT_SEED = 23
#: The bot drops moves its average strategy plays less often than this and renormalises
#: ("thresholding": the rarest moves are mostly what is left of the regrets' noise; against
#: the equity bot it won about 1.5 chips a hand more than the plain average).
THRESHOLD = 0.2
PATH = Path(__file__).with_name("cfr_strategy.npz")
REBUILD = "python -m dicehall.games.holdem.cfr_table"

FloatArray = npt.NDArray[np.float64]


class TableNotReady(RuntimeError):
    """The strategy table is missing, damaged, or of another version."""


@dataclass(frozen=True)
class CfrTable:
    """``edges[street]``: inner bucket edges; ``preflop[a * 24 + b]``: the Open's strength;
    ``keys``: each decision key (street, pot, bets, checked) by index; ``strategy[key *
    buckets + bucket]``: fold, check-or-call, bet-or-raise probabilities."""

    edges: FloatArray
    preflop: FloatArray
    keys: npt.NDArray[np.int64]
    strategy: FloatArray
    info: dict[str, float]

    @property
    def buckets(self) -> int:
        """Buckets per street."""
        return int(self.edges.shape[1]) + 1


def thresholded(strategy: FloatArray, threshold: float = THRESHOLD) -> FloatArray:
    """``strategy`` without the moves below ``threshold`` (a row's most likely move stays)."""
    kept = np.where(strategy >= threshold, strategy, 0.0)
    best = strategy.argmax(axis=1)
    kept[np.arange(len(kept)), best] = strategy[np.arange(len(kept)), best]
    played: FloatArray = kept / kept.sum(axis=1, keepdims=True)
    return played


def _tree_keys() -> npt.NDArray[np.int64]:
    keys = build_tree().keys
    rows = sorted(keys.items(), key=lambda item: item[1])
    return np.array([[s, p, b, int(c)] for (s, p, b, c), _ in rows], np.int64).reshape(-1, 4)


def build(
    deals: int = DEFAULT_DEALS,
    iterations: int = DEFAULT_ITERATIONS,
    seed: int = DEFAULT_SEED,
    buckets: int = BUCKETS,
    progress: Callable[[str, int, int], None] | None = None,
) -> CfrTable:
    """Sample the deal pool, train, and measure the exploitability of the result."""
    from dicehall.games.holdem.cfr_deals import (
        bucket_edges,
        deal_pool,
        pool_buckets,
        preflop_strengths,
    )
    from dicehall.games.holdem.cfr_solve import Trainer, best_response

    started = time.process_time()
    preflop = preflop_strengths(seed=seed)
    pool = deal_pool(deals, seed, preflop)
    edges = bucket_edges(pool, buckets)
    held = pool_buckets(pool, edges)
    tree = build_tree().arrays()
    trainer = Trainer(tree, held, pool.result, buckets, seed=seed)
    report = None if progress is None else (lambda d, t: progress("training", d, t))
    trainer.run(iterations, report, chunk=max(1000, iterations // 100))
    strategy = trainer.average()
    played = thresholded(strategy)
    first, second = (best_response(tree, held, pool.result, strategy, s, buckets) for s in (0, 1))
    info = {
        "deals": float(deals),
        "iterations": float(iterations),
        "seed": float(seed),
        "buckets": float(buckets),
        "best_response_first": first,
        "best_response_dealer": second,
        "exploitability": (first + second) / 2,
        "threshold": THRESHOLD,
        "exploitability_played": sum(
            best_response(tree, held, pool.result, played, s, buckets) for s in (0, 1)
        )
        / 2,
        "cpu_seconds": time.process_time() - started,
    }
    return CfrTable(edges, preflop, _tree_keys(), strategy, info)


def save(table: CfrTable, path: Path = PATH) -> None:
    """Write the table atomically (a half-written file is never read)."""
    with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".tmp", delete=False) as handle:
        np.savez_compressed(
            handle,
            version=np.array(TABLE_VERSION),
            edges=table.edges,
            preflop=table.preflop.astype(np.float32),
            keys=table.keys,
            strategy=table.strategy.astype(np.float32),
            info=np.array(json.dumps(table.info)),
        )
    os.chmod(handle.name, 0o644)  # package data: readable by everyone, as a plain file is
    os.replace(handle.name, path)


def load(path: Path = PATH) -> CfrTable:
    """The table at ``path``; raises :class:`TableNotReady` saying why and what to run."""
    try:
        with np.load(path, allow_pickle=False) as data:
            version = int(data["version"])
            if version != TABLE_VERSION:
                raise TableNotReady(
                    f"the cfr table {path} is version {version}, this dicehall needs "
                    f"version {TABLE_VERSION}: build it again with `{REBUILD}`"
                )
            table = CfrTable(
                np.array(data["edges"], np.float64),
                np.array(data["preflop"], np.float64),
                np.array(data["keys"], np.int64),
                np.array(data["strategy"], np.float64),
                json.loads(str(data["info"])),
            )
    except (OSError, KeyError, ValueError) as error:
        raise TableNotReady(
            f"the cfr table {path} cannot be read ({error}): run `{REBUILD}`"
        ) from error
    if not np.array_equal(table.keys, _tree_keys()) or table.strategy.shape != (
        len(table.keys) * table.buckets,
        3,
    ):
        raise TableNotReady(f"the cfr table {path} does not fit the betting tree: run `{REBUILD}`")
    return table


@cache
def shipped() -> CfrTable:
    """The table shipped with the package (read once a process)."""
    return load()


def main(argv: list[str] | None = None) -> None:
    """Build the table and write it next to this module (or to ``--out``)."""
    parser = argparse.ArgumentParser(description="Build the Hold'em Dice cfr strategy table.")
    parser.add_argument("--deals", type=int, default=DEFAULT_DEALS)
    parser.add_argument("--iterations", type=int, default=DEFAULT_ITERATIONS)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--buckets", type=int, default=BUCKETS)
    parser.add_argument("--out", type=Path, default=PATH)
    args = parser.parse_args(argv)

    def show(what: str, done: int, total: int) -> None:
        bar = "#" * (30 * done // total)
        print(f"\r{what} [{bar:<30}] {done}/{total}", end="", flush=True)

    table = build(args.deals, args.iterations, args.seed, args.buckets, show)
    print()
    save(table, args.out)
    print(json.dumps({"path": str(args.out), **table.info}, indent=2))


if __name__ == "__main__":
    main()
