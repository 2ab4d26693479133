"""Merkle trees as RFC 9162 (Certificate Transparency 2.0) builds them, over leaf hashes.

The tree over ``n`` leaves splits at ``k``, the largest power of two below ``n``; an inner
node is ``SHA-256(0x01 || left || right)``. Leaf hashes come from :mod:`.leaves` (they carry
their own ``0x00`` prefix). An audit path lists the sibling hashes from the leaf up.
"""

from __future__ import annotations

import hashlib
from bisect import bisect_left
from collections.abc import Iterable, Sequence

NODE = b"\x01"


def node_hash(left: bytes, right: bytes) -> bytes:
    """An inner node: ``SHA-256(0x01 || left || right)``."""
    return hashlib.sha256(NODE + left + right).digest()


def _split(n: int) -> int:
    """The largest power of two strictly below ``n`` (``n >= 2``)."""
    return 1 << ((n - 1).bit_length() - 1)


def merkle_root(leaves: Sequence[bytes]) -> bytes:
    """The root over ``leaves`` (at least one)."""
    root, _ = audit_paths(leaves, ())
    return root


def audit_paths(
    leaves: Sequence[bytes], wanted: Iterable[int]
) -> tuple[bytes, dict[int, list[bytes]]]:
    """The root over ``leaves`` and the audit path of each index in ``wanted``, in one pass."""
    if not leaves:
        raise ValueError("a Merkle tree needs at least one leaf")
    targets = sorted(set(wanted))
    for index in targets:
        if not 0 <= index < len(leaves):
            raise ValueError(f"leaf {index} is outside a tree of {len(leaves)}")
    paths: dict[int, list[bytes]] = {index: [] for index in targets}

    def within(lo: int, hi: int) -> list[int]:
        return targets[bisect_left(targets, lo) : bisect_left(targets, hi)]

    def subtree(lo: int, hi: int) -> bytes:
        if hi - lo == 1:
            return leaves[lo]
        mid = lo + _split(hi - lo)
        left, right = subtree(lo, mid), subtree(mid, hi)
        for index in within(lo, mid):
            paths[index].append(right)
        for index in within(mid, hi):
            paths[index].append(left)
        return node_hash(left, right)

    return subtree(0, len(leaves)), paths


def root_from_path(leaf: bytes, index: int, size: int, path: Sequence[bytes]) -> bytes | None:
    """The root that ``path`` proves for ``leaf`` at ``index`` of ``size`` leaves, or None
    when the path cannot belong to such a tree (RFC 9162, section 2.1.3.2)."""
    if not 0 <= index < size:
        return None
    fn, sn, node = index, size - 1, leaf
    for sibling in path:
        if sn == 0:
            return None
        if fn & 1 or fn == sn:
            node = node_hash(sibling, node)
            if not fn & 1:
                while fn and not fn & 1:
                    fn, sn = fn >> 1, sn >> 1
        else:
            node = node_hash(node, sibling)
        fn, sn = fn >> 1, sn >> 1
    return node if sn == 0 else None
