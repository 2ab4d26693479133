"""The public log's tree at size: a signed checkpoint, a consistency proof and an inclusion
proof read from the stored subtrees of a log of N records, and the append of one record (JSON).

    python bench/log_tree.py [--records 100000] [--rounds 20] [--db-url sqlite:///...]

Builds a log of N records in a fresh database (SQLite in a temporary folder by default),
fills its tree the way migration 0015 does, then times each operation over ``rounds`` runs
and prints the median and worst milliseconds.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, insert

from dicehall.fairness.chain import GENESIS, canonical, record_hash
from dicehall.fairness.note import ED25519, Signer
from dicehall.fairness.tlog import MemoryTree, leaf_of_bytes
from dicehall.server.core.db import migrate
from dicehall.server.domain.dice import checkpoints, fairlog, logtree


def _build(url: str, count: int) -> Any:
    engine = create_engine(url)
    migrate(engine)
    tree = MemoryTree()
    rows: list[dict[str, Any]] = []
    prev = GENESIS
    for seq in range(1, count + 1):
        record = {"seq": seq, "kind": "dice", "batch": seq, "first": 40 * seq - 39, "size": 40,
                  "root": f"{seq:064x}", "prev": prev,
                  "created_at": "2026-12-01T00:00:00+00:00"}  # fmt: skip
        body = canonical(record).decode()
        prev = record_hash(record)
        rows.append({"seq": seq, "kind": "dice", "batch_id": seq, "body": body, "hash": prev})
        tree.append(leaf_of_bytes(body.encode()))
    nodes = [
        {"level": level, "idx": index, "hash": node.hex()}
        for level, hashes in enumerate(tree.levels)
        for index, node in enumerate(hashes)
    ]
    with engine.begin() as conn:
        for start in range(0, len(rows), 5000):
            conn.execute(insert(fairlog.LOG), rows[start : start + 5000])
        for start in range(0, len(nodes), 5000):
            conn.execute(insert(logtree.TREE), nodes[start : start + 5000])
    return engine


def _time(run: Callable[[], object], rounds: int) -> dict[str, float]:
    spent = []
    for _ in range(rounds):
        start = time.perf_counter()
        run()
        spent.append((time.perf_counter() - start) * 1000)
    return {"median_ms": round(statistics.median(spent), 3), "max_ms": round(max(spent), 3)}


def main() -> None:
    """Build the log, time the operations, print JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--db-url", default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        url = args.db_url or f"sqlite:///{Path(folder) / 'bench.sqlite3'}"
        engine = _build(url, args.records)
        signer = Signer("bench.example/dicehall-log", ED25519, bytes(32))
        n = args.records
        seq = [n]

        def append() -> None:
            with engine.begin() as conn:
                seq[0] = fairlog.append(conn, "dice", seq[0] + 1, 1, 40, "ab" * 32)

        with engine.connect() as conn:
            results = {
                "records": n,
                "database": engine.dialect.name,
                "checkpoint": _time(
                    lambda: checkpoints.signed_checkpoint(conn, signer), args.rounds
                ),
                "consistency": _time(lambda: logtree.consistency(conn, n // 3, n), args.rounds),
                "inclusion": _time(lambda: logtree.inclusion(conn, n // 2, n), args.rounds),
            }
        results["append"] = _time(append, args.rounds)
        engine.dispose()
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
