"""Fair dice anyone can check: decks of keys committed before a game and mixed with its
players' seeds (:mod:`.decks`), Merkle commitments over salted leaves, a hash-chained log
that is also an RFC 9162 tree with signed checkpoints (:mod:`.tlog`, :mod:`.note`), and the
checks a verifier runs offline (pure Python: the standard library, and ``cryptography`` for
Ed25519 signatures only).

The scheme, byte for byte, is in ``docs/site.md`` ("Fair dice", "Scheme 3: decks and
seeds", "The log as a Merkle tree"); these modules are its reference implementation and
``dicehall verify-game`` / ``dicehall verify-log`` / ``dicehall witness`` use them.
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
