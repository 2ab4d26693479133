"""The public log's Merkle tree in the database: each record's leaf and every perfect subtree
it completes are stored with the record, so a tree head or a proof reads O(log² n) rows and
never recomputes the tree (:mod:`dicehall.fairness.tlog` says which).

Leaves are added only where records are (in :func:`fairlog.append_record`, under the dice
pool's cursor lock), so the tree always covers exactly the records; :func:`catch_up` adds
what is missing for records written some other way (an import of saved records).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import cast

from sqlalchemy import Connection, Table, and_, func, insert, or_, select

from dicehall.fairness.merkle import node_hash
from dicehall.fairness.tlog import (
    Node,
    consistency_ranges,
    fold,
    inclusion_ranges,
    leaf_of_bytes,
    needed_nodes,
    perfect_nodes,
)
from dicehall.server.core.models import FairnessRecord, LogTreeNode

TREE = cast(Table, LogTreeNode.__table__)
LOG = cast(Table, FairnessRecord.__table__)


class NoSuchTree(ValueError):
    """A size or index the log does not have."""


def add_leaf(conn: Connection, seq: int, body: str) -> None:
    """Store record ``seq``'s leaf (its canonical JSON ``body``) and the subtrees it completes."""
    index = seq - 1
    levels = (index + 1 ^ index).bit_length() - 1  # the subtrees leaf ``index`` completes
    lefts = _fetch(conn, {(level, ((index + 1) >> level) - 2) for level in range(levels)})
    node = leaf_of_bytes(body.encode("ascii"))
    rows = [{"level": 0, "idx": index, "hash": node.hex()}]
    for level in range(levels):
        node = node_hash(lefts[(level, ((index + 1) >> level) - 2)], node)
        rows.append(
            {"level": level + 1, "idx": ((index + 1) >> (level + 1)) - 1, "hash": node.hex()}
        )
    conn.execute(insert(TREE), rows)


def catch_up(conn: Connection) -> int:
    """Add the leaves of records the tree lacks (in order); return how many."""
    have = tree_size(conn)
    rows = conn.execute(select(LOG.c.seq, LOG.c.body).where(LOG.c.seq > have).order_by(LOG.c.seq))
    added = 0
    for row in rows.all():
        if row.seq != have + added + 1:
            raise NoSuchTree(f"the log has no record {have + added + 1}")
        add_leaf(conn, row.seq, row.body)
        added += 1
    return added


def tree_size(conn: Connection) -> int:
    """How many leaves the tree has (records it covers)."""
    last = conn.execute(select(func.max(TREE.c.idx)).where(TREE.c.level == 0)).scalar()
    return 0 if last is None else int(last) + 1


def _fetch(conn: Connection, nodes: Iterable[Node]) -> dict[Node, bytes]:
    wanted = sorted(set(nodes))
    if not wanted:
        return {}
    by_level: dict[int, list[int]] = {}
    for level, index in wanted:
        by_level.setdefault(level, []).append(index)
    # One (level, idx IN ...) term per level: both databases answer it from the primary key
    # (a row-value IN over the pair is a full scan on SQLite).
    terms = [and_(TREE.c.level == level, TREE.c.idx.in_(idx)) for level, idx in by_level.items()]
    rows = conn.execute(select(TREE.c.level, TREE.c.idx, TREE.c.hash).where(or_(*terms)))
    found = {(row.level, row.idx): bytes.fromhex(row.hash) for row in rows}
    missing = [node for node in wanted if node not in found]
    if missing:
        raise NoSuchTree(f"the tree lacks node {missing[0]}")
    return found


def _check(conn: Connection, size: int) -> None:
    have = tree_size(conn)
    if not 0 < size <= have:
        raise NoSuchTree(f"the log has {have} records, so no tree of {size}")


def root(conn: Connection, size: int) -> bytes:
    """The root over the first ``size`` records."""
    _check(conn, size)
    nodes = perfect_nodes(0, size)
    hashes = _fetch(conn, nodes)
    return fold([hashes[node] for node in nodes])


def _ranges_hashes(conn: Connection, ranges: list[tuple[int, int]]) -> list[bytes]:
    hashes = _fetch(conn, needed_nodes(ranges))
    return [fold([hashes[node] for node in perfect_nodes(lo, hi)]) for lo, hi in ranges]


def inclusion(conn: Connection, seq: int, size: int) -> tuple[bytes, list[bytes]]:
    """Record ``seq``'s leaf and its audit path in the tree of the first ``size`` records."""
    _check(conn, size)
    if not 1 <= seq <= size:
        raise NoSuchTree(f"record {seq} is not among the first {size}")
    leaf = _fetch(conn, [(0, seq - 1)])[(0, seq - 1)]
    return leaf, _ranges_hashes(conn, inclusion_ranges(seq - 1, size))


def consistency(conn: Connection, old: int, new: int) -> list[bytes]:
    """The proof that the tree of the first ``old`` records is a prefix of the first ``new``'s."""
    _check(conn, new)
    if not 0 < old <= new:
        raise NoSuchTree(f"no consistency proof from {old} to {new} records")
    return _ranges_hashes(conn, consistency_ranges(old, new))
