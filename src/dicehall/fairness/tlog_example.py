"""The worked example of docs/site.md ("The log as a Merkle tree, checkpoints and
witnesses"), every hash, key and signature printed.

Run ``python -m dicehall.fairness.tlog_example``: three log records, their leaves and tree,
a consistency proof from two records to three, a checkpoint signed with a fixed key, and a
witness's cosignature at a fixed time, so anyone can reproduce each line with their own code
(Ed25519 signatures are deterministic).
"""

from __future__ import annotations

import base64
from typing import Any

from dicehall.fairness.chain import GENESIS, canonical, record_hash
from dicehall.fairness.checkpoint import Checkpoint
from dicehall.fairness.merkle import node_hash
from dicehall.fairness.note import COSIGNATURE_V1, ED25519, Signer, cosign
from dicehall.fairness.tlog import MemoryTree, record_leaf, verify_consistency

ORIGIN = "dice.example/dicehall-log"
#: The log key's seed (0x66 x 32) and the witness's (0x77 x 32), and the cosignature's time.
LOG_SEED = bytes([0x66]) * 32
WITNESS_SEED = bytes([0x77]) * 32
WITNESS = "witness.example/w1"
TIME = 1764547200


def records() -> list[dict[str, Any]]:
    """Three records as the log would hold them (two dice batches and a bag batch)."""
    out: list[dict[str, Any]] = []
    prev = GENESIS
    for seq, (kind, batch, first, size) in enumerate(
        [("dice", 1, 1, 40), ("bags", 1, 1, 10), ("dice", 2, 41, 40)], start=1
    ):
        record = {
            "seq": seq,
            "kind": kind,
            "batch": batch,
            "first": first,
            "size": size,
            "root": f"{seq:02x}" * 32,
            "prev": prev,
            "created_at": f"2026-12-0{seq}T00:00:00+00:00",
        }
        prev = record_hash(record)
        out.append(record)
    return out


def lines() -> list[str]:
    """The example, one ``name = value`` line each."""
    out: list[str] = []
    logged = records()
    leaves = [record_leaf(r) for r in logged]
    out.append(f"record 3 = {canonical(logged[2]).decode()}")
    for i, leaf in enumerate(leaves):
        out.append(f"leaf[{i}] (record {i + 1}) = {leaf.hex()}")
    tree = MemoryTree(leaves)
    two = node_hash(leaves[0], leaves[1])
    out.append(f"root of 2 = node(leaf[0], leaf[1]) = {two.hex()}")
    assert tree.root(2) == two
    three = node_hash(two, leaves[2])
    out.append(f"root of 3 = node(root of 2, leaf[2]) = {three.hex()}")
    assert tree.root(3) == three
    proof = tree.consistency(2, 3)
    out.append(f"consistency proof 2 -> 3 = {[h.hex() for h in proof]}")
    assert verify_consistency(2, 3, two, three, proof)
    out.append(f"audit path of record 1 in 3 = {[h.hex() for h in tree.inclusion(0, 3)]}")
    log_key = Signer(ORIGIN, ED25519, LOG_SEED)
    out.append(f"log vkey = {log_key.verifier.text()}")
    checkpoint = Checkpoint(ORIGIN, 3, three)
    out.append(f"checkpoint text = {checkpoint.text()!r}")
    note = checkpoint.sign(log_key)
    out.append(f"signed checkpoint = {note!r}")
    witness = Signer(WITNESS, COSIGNATURE_V1, WITNESS_SEED)
    out.append(f"witness vkey = {witness.verifier.text()}")
    line = cosign(checkpoint.text(), witness, TIME)
    out.append(f"cosignature line (time {TIME}) = {line.text()!r}")
    blob = base64.b64decode(line.text().split(" ")[-1])
    out.append(f"cosignature bytes = key id {blob[:4].hex()}, time {blob[4:12].hex()}, ...")
    return out


def main() -> None:
    """Print the example."""
    for line in lines():
        print(line)


if __name__ == "__main__":
    main()
