"""The public log as one append-only Merkle tree (RFC 9162): leaves, tree heads, inclusion
and consistency proofs.

Leaf ``i`` is ``SHA-256(0x00 || canonical JSON of record i+1)`` (records are numbered from 1,
leaves from 0); inner nodes are :func:`dicehall.fairness.merkle.node_hash`. A tree of ``n``
leaves is cut into perfect subtrees, one per bit of ``n`` from the highest, each aligned on a
multiple of its size; its root folds them from the right. Every range a proof needs is such a
run of perfect subtrees, so a store that keeps each perfect subtree's hash (``node(level,
index)``: the root over leaves ``index * 2**level`` up to ``(index + 1) * 2**level``) answers
any tree head or proof from O(log² n) stored hashes, never recomputing the tree.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from dicehall.fairness.chain import canonical
from dicehall.fairness.merkle import node_hash, root_from_path

LEAF = b"\x00"
#: A perfect subtree: ``(level, index)``, covering leaves ``index << level`` up to
#: ``(index + 1) << level``.
Node = tuple[int, int]
#: The hash of a perfect subtree.
NodeSource = Callable[[int, int], bytes]


def leaf_of_bytes(body: bytes) -> bytes:
    """The leaf hash of a record's canonical bytes."""
    return hashlib.sha256(LEAF + body).digest()


def record_leaf(record: Mapping[str, Any]) -> bytes:
    """The leaf hash of a log record: ``SHA-256(0x00 || canonical(record))``."""
    return leaf_of_bytes(canonical(record))


def perfect_nodes(lo: int, hi: int) -> list[Node]:
    """The perfect subtrees whose fold is the root over leaves ``lo`` to ``hi`` (exclusive),
    largest first; ``lo`` must be aligned as every range in an RFC 9162 tree is."""
    if not 0 <= lo < hi:
        raise ValueError(f"no leaves from {lo} to {hi}")
    nodes: list[Node] = []
    size = hi - lo
    for level in range(size.bit_length() - 1, -1, -1):
        if size >> level & 1:
            if lo % (1 << level):
                raise ValueError(f"leaves {lo}..{hi} are not a subtree of an RFC 9162 tree")
            nodes.append((level, lo >> level))
            lo += 1 << level
    return nodes


def fold(hashes: Sequence[bytes]) -> bytes:
    """The root over runs of perfect subtrees, largest first (folded from the right)."""
    root = hashes[-1]
    for left in reversed(hashes[:-1]):
        root = node_hash(left, root)
    return root


def range_hash(lo: int, hi: int, node: NodeSource) -> bytes:
    """The root over leaves ``lo`` to ``hi`` from the store's perfect subtrees."""
    return fold([node(level, index) for level, index in perfect_nodes(lo, hi)])


def _split(n: int) -> int:
    return 1 << ((n - 1).bit_length() - 1)


def inclusion_ranges(index: int, size: int) -> list[tuple[int, int]]:
    """The leaf ranges whose roots make leaf ``index``'s audit path in a tree of ``size``
    leaves, from the leaf up (RFC 9162, section 2.1.3.1)."""
    if not 0 <= index < size:
        raise ValueError(f"leaf {index} is outside a tree of {size}")
    path: list[tuple[int, int]] = []
    lo, hi = 0, size
    while hi - lo > 1:
        k = _split(hi - lo)
        if index < lo + k:
            path.append((lo + k, hi))
            hi = lo + k
        else:
            path.append((lo, lo + k))
            lo += k
    path.reverse()
    return path


def consistency_ranges(old: int, new: int) -> list[tuple[int, int]]:
    """The leaf ranges whose roots prove that the tree of ``old`` leaves is a prefix of the
    tree of ``new`` leaves (RFC 9162, section 2.1.4.1), in proof order."""
    if not 0 < old <= new:
        raise ValueError(f"no consistency proof from {old} to {new} leaves")
    proof: list[tuple[int, int]] = []
    lo, hi, m, whole = 0, new, old, True
    while m != hi - lo:
        k = _split(hi - lo)
        if m <= k:
            proof.append((lo + k, hi))
            hi = lo + k
        else:
            proof.append((lo, lo + k))
            lo, m, whole = lo + k, m - k, False
    if not whole:
        proof.append((lo, hi))
    proof.reverse()
    return proof


def needed_nodes(ranges: Iterable[tuple[int, int]]) -> set[Node]:
    """Every perfect subtree the roots of ``ranges`` are folded from."""
    return {node for lo, hi in ranges for node in perfect_nodes(lo, hi)}


def verify_inclusion(
    leaf: bytes, index: int, size: int, path: Sequence[bytes], root: bytes
) -> bool:
    """Whether ``path`` proves ``leaf`` at ``index`` in the tree of ``size`` leaves with
    ``root`` (RFC 9162, section 2.1.3.2)."""
    return root_from_path(leaf, index, size, path) == root


def verify_consistency(
    old: int, new: int, old_root: bytes, new_root: bytes, proof: Sequence[bytes]
) -> bool:
    """Whether ``proof`` shows that the tree of ``old`` leaves with ``old_root`` is a prefix
    of the tree of ``new`` leaves with ``new_root`` (RFC 9162, section 2.1.4.2)."""
    if not 0 < old <= new:
        return False
    if old == new:
        return not proof and old_root == new_root
    path = list(proof)
    if old & (old - 1) == 0:  # a power of two: the old root is a node of the new tree
        path.insert(0, old_root)
    if not path:
        return False
    fn, sn = old - 1, new - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr, sr = node_hash(c, fr), node_hash(c, sr)
            if not fn & 1:
                while fn and not fn & 1:
                    fn, sn = fn >> 1, sn >> 1
        else:
            sr = node_hash(sr, c)
        fn, sn = fn >> 1, sn >> 1
    return fr == old_root and sr == new_root and sn == 0


class MemoryTree:
    """A whole tree in memory, over leaf hashes: what a verifier builds from a saved copy
    of the log (the site keeps its perfect subtrees in the database instead)."""

    def __init__(self, leaves: Iterable[bytes] = ()) -> None:
        #: ``levels[L][j]``: the perfect subtree ``(L, j)``.
        self.levels: list[list[bytes]] = [[]]
        for leaf in leaves:
            self.append(leaf)

    @classmethod
    def of_records(cls, records: Iterable[Mapping[str, Any]]) -> MemoryTree:
        """The tree over log records, in order."""
        return cls(record_leaf(record) for record in records)

    def __len__(self) -> int:
        return len(self.levels[0])

    def append(self, leaf: bytes) -> None:
        """Add a leaf and every perfect subtree it completes."""
        self.levels[0].append(leaf)
        level = 0
        while len(self.levels[level]) % 2 == 0:
            pair = self.levels[level][-2:]
            if len(self.levels) == level + 1:
                self.levels.append([])
            self.levels[level + 1].append(node_hash(pair[0], pair[1]))
            level += 1

    def node(self, level: int, index: int) -> bytes:
        """A perfect subtree's hash."""
        return self.levels[level][index]

    def root(self, size: int | None = None) -> bytes:
        """The tree head of the first ``size`` leaves (all by default; at least one)."""
        size = len(self) if size is None else size
        if not 0 < size <= len(self):
            raise ValueError(f"a tree of {len(self)} leaves has no head of size {size}")
        return range_hash(0, size, self.node)

    def inclusion(self, index: int, size: int) -> list[bytes]:
        """Leaf ``index``'s audit path in the tree of the first ``size`` leaves."""
        self._within(size)
        return [range_hash(lo, hi, self.node) for lo, hi in inclusion_ranges(index, size)]

    def consistency(self, old: int, new: int) -> list[bytes]:
        """The proof that the first ``old`` leaves' tree is a prefix of the first ``new``'s."""
        self._within(new)
        return [range_hash(lo, hi, self.node) for lo, hi in consistency_ranges(old, new)]

    def _within(self, size: int) -> None:
        if size > len(self):
            raise ValueError(f"a tree of {len(self)} leaves has no head of size {size}")
