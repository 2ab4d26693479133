"""The worked example of docs/site.md ("Fair dice: the scheme"), every hash printed.

Run ``python -m dicehall.fairness.example``: a batch of three dice sets and one bag shuffle,
with fixed salts so anyone can reproduce each line with their own code.
"""

from __future__ import annotations

from dicehall.fairness.chain import GENESIS, canonical, record_hash
from dicehall.fairness.leaves import dice_leaf, position_salt, shuffle_digests, shuffle_leaf
from dicehall.fairness.merkle import audit_paths, node_hash, root_from_path
from dicehall.fairness.seating import shuffle_by_dice

#: The example's dice sets, numbered 1, 2 and 3, each with the salt 0x11, 0x22, 0x33 x 32.
SETS = ("352116", "664321", "125346")
#: The example's shuffle of the bag (five of each colour), in drawing order.
SHUFFLE = "ywkrywkrywkrywkrywkr"


def lines() -> list[str]:
    """The example, one ``name = value`` line each."""
    out: list[str] = []
    salts = [bytes([0x11 * (i + 1)]) * 32 for i in range(len(SETS))]
    leaves = [
        dice_leaf(salt, i + 1, faces)
        for i, (salt, faces) in enumerate(zip(salts, SETS, strict=True))
    ]
    for i, leaf in enumerate(leaves):
        out.append(f"leaf[{i}] (set {i + 1}, faces {SETS[i]}) = {leaf.hex()}")
    left = node_hash(leaves[0], leaves[1])
    out.append(f"node(leaf[0], leaf[1]) = {left.hex()}")
    root, paths = audit_paths(leaves, [2])
    out.append(f"root = node(that, leaf[2]) = {node_hash(left, leaves[2]).hex()}")
    assert root == node_hash(left, leaves[2])
    out.append(f"path of set 3 (index 2 of 3) = {[p.hex() for p in paths[2]]}")
    assert root_from_path(leaves[2], 2, 3, paths[2]) == root
    record = {
        "seq": 1,
        "kind": "dice",
        "batch": 1,
        "first": 1,
        "size": 3,
        "root": root.hex(),
        "prev": GENESIS,
        "created_at": "2026-11-24T00:00:00+00:00",
    }
    out.append(f"record = {canonical(record).decode()}")
    out.append(f"record hash = {record_hash(record)}")
    secret = bytes([0x44]) * 32
    out.append(f"shuffle colours (number 1, secret 0x44 x 32, salt 0x55 x 32) = {SHUFFLE}")
    out.append(f"position salt 0 = {position_salt(secret, 0).hex()}")
    digests = shuffle_digests(secret, SHUFFLE)
    out.append(f"position digest 0 = {digests[0].hex()}")
    out.append(f"shuffle leaf = {shuffle_leaf(bytes([0x55]) * 32, 1, digests).hex()}")
    faces = [int(c) for c in SETS[0]]
    seated = shuffle_by_dice(["ann", "bob", "cy"], faces)
    out.append(f"seat draw of ['ann', 'bob', 'cy'] with set 1's faces = {seated}")
    return out


def main() -> None:
    """Print the example."""
    for line in lines():
        print(line)


if __name__ == "__main__":
    main()
