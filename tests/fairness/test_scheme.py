"""The scheme as docs/site.md states it: the worked example's lines are in the docs, a leaf
and a record hash rebuilt with hashlib from the docs' words, Merkle paths against a naive
RFC 9162 tree, the chain's tamper checks, and seat draws."""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections import Counter
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from dicehall.fairness.chain import GENESIS, record_hash, verify_chain
from dicehall.fairness.example import lines
from dicehall.fairness.leaves import dice_leaf
from dicehall.fairness.merkle import audit_paths, node_hash, root_from_path
from dicehall.fairness.seating import NotEnoughDice, shuffle_by_dice

DOCS = Path(__file__).resolve().parents[2] / "docs" / "site.md"


def test_the_docs_show_the_worked_example_as_the_code_computes_it() -> None:
    text = DOCS.read_text()
    for line in lines():
        assert line in text, line


def test_a_leaf_and_a_record_rebuilt_from_the_docs_words() -> None:
    salt = bytes([0x11]) * 32
    by_hand = hashlib.sha256(b"\x00" + salt + (1).to_bytes(8, "big") + b"352116").digest()
    assert dice_leaf(salt, 1, "352116") == by_hand
    record = {"seq": 1, "kind": "dice", "batch": 1, "first": 1, "size": 3, "root": "ab" * 32,
              "prev": GENESIS, "created_at": "2026-11-24T00:00:00+00:00"}  # fmt: skip
    text = json.dumps(record, sort_keys=True, separators=(",", ":"))
    assert record_hash(record) == hashlib.sha256(text.encode()).hexdigest()


def _naive_root(leaves: list[bytes]) -> bytes:
    if len(leaves) == 1:
        return leaves[0]
    k = 1
    while k * 2 < len(leaves):
        k *= 2
    return node_hash(_naive_root(leaves[:k]), _naive_root(leaves[k:]))


@settings(max_examples=20, deadline=None)
@given(size=st.integers(1, 70), data=st.data())
def test_every_path_leads_to_the_naive_root_and_only_from_its_own_place(
    size: int, data: st.DataObject
) -> None:
    leaves = [hashlib.sha256(bytes([i % 256, i // 256])).digest() for i in range(size)]
    index = data.draw(st.integers(0, size - 1))
    root, paths = audit_paths(leaves, [index])
    assert root == _naive_root(leaves)
    assert root_from_path(leaves[index], index, size, paths[index]) == root
    if size > 1:
        other = (index + 1) % size
        assert root_from_path(leaves[index], other, size, paths[index]) != root
        assert root_from_path(leaves[other], index, size, paths[index]) != root


def _chain(n: int) -> list[dict[str, object]]:
    records: list[dict[str, object]] = []
    prev = GENESIS
    for seq in range(1, n + 1):
        record: dict[str, object] = {"seq": seq, "kind": "dice", "batch": seq, "first": seq,
                                     "size": 1, "root": f"{seq:064x}", "prev": prev,
                                     "created_at": "2026-11-24T00:00:00+00:00"}  # fmt: skip
        record["hash"] = prev = record_hash(record)
        records.append(record)
    return records


@settings(max_examples=20, deadline=None)
@given(seq=st.integers(1, 6), key=st.sampled_from(["kind", "batch", "first", "size", "root",
                                                   "prev", "created_at", "hash"]))  # fmt: skip
def test_changing_any_field_of_any_record_breaks_the_chain_there(seq: int, key: str) -> None:
    records = _chain(6)
    assert verify_chain(records) is None
    value = records[seq - 1][key]
    records[seq - 1][key] = value + 1 if isinstance(value, int) else f"x{value}"[:-1] + "x"
    broken = verify_chain(records)
    assert broken is not None and broken.seq == seq
    dropped = _chain(6)
    del dropped[seq - 1]
    # A log may be a later page (from=N): only a record dropped inside it shows.
    assert verify_chain(dropped) is not None or seq in (1, 6)


def test_seat_draws_are_uniform_and_need_enough_dice() -> None:
    seen: Counter[tuple[str, ...]] = Counter()
    for a in range(1, 7):
        for b in range(1, 7):
            for c in range(1, 7):
                for d in range(1, 7):
                    # Every two-face pick is kept for 3 seats once its value is below 36.
                    with contextlib.suppress(NotEnoughDice):
                        seen[tuple(shuffle_by_dice("xyz", [a, b, c, d]))] += 1
    assert len(seen) == 6 and len(set(seen.values())) == 1
