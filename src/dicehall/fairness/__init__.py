"""Fair dice anyone can check: Merkle commitments over salted leaves, a hash-chained log of
batch records, and the checks a verifier runs offline (pure Python, standard library only).

The scheme, byte for byte, is in ``docs/site.md`` ("Fair dice"); these modules are its
reference implementation and ``dicehall verify-game`` / ``dicehall verify-log`` use them.
"""

from dicehall.fairness.chain import GENESIS, ChainBreak, LogRecord, record_hash, verify_chain
from dicehall.fairness.leaves import (
    dice_leaf,
    position_digest,
    position_salt,
    shuffle_digests,
    shuffle_leaf,
)
from dicehall.fairness.merkle import audit_paths, merkle_root, node_hash, root_from_path

__all__ = [
    "GENESIS",
    "ChainBreak",
    "LogRecord",
    "audit_paths",
    "dice_leaf",
    "merkle_root",
    "node_hash",
    "position_digest",
    "position_salt",
    "record_hash",
    "root_from_path",
    "shuffle_digests",
    "shuffle_leaf",
    "verify_chain",
]
