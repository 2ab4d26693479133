"""The public log as an RFC 9162 tree: tree heads, inclusion and consistency proofs against
a naive transcription of the RFC, proofs that do not fit refused, signed notes and
cosignatures (a Go sumdb note checks; a changed byte does not), and the worked example of
docs/site.md as the code computes it."""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path
from typing import Any

import pytest

from dicehall.fairness.checkpoint import Checkpoint, open_checkpoint, origin_of
from dicehall.fairness.note import (
    COSIGNATURE_V1,
    ED25519,
    NoteError,
    Signer,
    VerifierKey,
    cosign,
    split_note,
    verify_cosignature,
    verify_note,
)
from dicehall.fairness.tlog import (
    MemoryTree,
    consistency_ranges,
    verify_consistency,
    verify_inclusion,
)
from dicehall.fairness.tlog_check import (
    CompactRange,
    check_against_checkpoint,
    check_extends,
    check_proof_in_checkpoint,
)
from dicehall.fairness.tlog_example import lines, records

DOCS = Path(__file__).resolve().parents[2] / "docs" / "site.md"
LEAVES = [hashlib.sha256(b"leaf %d" % i).digest() for i in range(40)]


def _mth(leaves: list[bytes]) -> bytes:
    """RFC 9162 2.1.1, word for word."""
    if len(leaves) == 1:
        return leaves[0]
    k = 1 << ((len(leaves) - 1).bit_length() - 1)
    return hashlib.sha256(b"\x01" + _mth(leaves[:k]) + _mth(leaves[k:])).digest()


def _subproof(m: int, leaves: list[bytes], whole: bool) -> list[bytes]:
    """RFC 9162 2.1.4.1, word for word."""
    n = len(leaves)
    if m == n:
        return [] if whole else [_mth(leaves)]
    k = 1 << ((n - 1).bit_length() - 1)
    if m <= k:
        return [*_subproof(m, leaves[:k], whole), _mth(leaves[k:])]
    return [*_subproof(m - k, leaves[k:], False), _mth(leaves[:k])]


def _path(m: int, leaves: list[bytes]) -> list[bytes]:
    """RFC 9162 2.1.3.1, word for word."""
    n = len(leaves)
    if n == 1:
        return []
    k = 1 << ((n - 1).bit_length() - 1)
    if m < k:
        return [*_path(m, leaves[:k]), _mth(leaves[k:])]
    return [*_path(m - k, leaves[k:]), _mth(leaves[:k])]


def test_heads_and_proofs_match_the_rfc_for_every_size_up_to_40() -> None:
    tree = MemoryTree(LEAVES)
    for n in range(1, 41):
        root = _mth(LEAVES[:n])
        assert tree.root(n) == root
        for i in range(n):
            path = tree.inclusion(i, n)
            assert path == _path(i, LEAVES[:n])
            assert verify_inclusion(LEAVES[i], i, n, path, root)
        for m in range(1, n + 1):
            proof = tree.consistency(m, n)
            assert proof == _subproof(m, LEAVES[:n], True), (m, n)
            assert verify_consistency(m, n, _mth(LEAVES[:m]), root, proof), (m, n)


def test_a_consistency_proof_that_does_not_fit_is_refused() -> None:
    tree = MemoryTree(LEAVES)
    forked = MemoryTree([*LEAVES[:5], hashlib.sha256(b"other").digest(), *LEAVES[6:]])
    for m, n in [(3, 7), (4, 8), (6, 13), (1, 2), (7, 40), (16, 33)]:
        proof = tree.consistency(m, n)
        old, new = tree.root(m), tree.root(n)
        assert verify_consistency(m, n, old, new, proof)
        if proof:
            for i in range(len(proof)):
                bent = list(proof)
                bent[i] = hashlib.sha256(bent[i]).digest()
                assert not verify_consistency(m, n, old, new, bent), (m, n, i)
            assert not verify_consistency(m, n, old, new, proof[:-1])
            assert not verify_consistency(m, n, old, new, [*proof, proof[0]])
        # The fork changed leaf 5: a tree of up to 5 leaves is a prefix of both.
        fits = verify_consistency(m, n, old, forked.root(n), forked.consistency(m, n))
        assert fits == (m <= 5), (m, n)
    # A fork before the old size: no proof links the two trees.
    assert not verify_consistency(8, 9, forked.root(8), tree.root(9), tree.consistency(8, 9))
    assert not verify_consistency(0, 3, tree.root(1), tree.root(3), [])
    with pytest.raises(ValueError):
        consistency_ranges(5, 4)


def test_a_compact_range_from_a_frontier_gives_every_later_root() -> None:
    tree = MemoryTree(LEAVES)
    for k in range(1, 40):
        grown = CompactRange(k, [LEAVES[k - 1], *tree.inclusion(k - 1, k)])
        assert grown.root() == tree.root(k)
        for j in range(k, 40):
            grown.append(LEAVES[j])
        assert grown.root() == tree.root(40)
    with pytest.raises(ValueError):
        CompactRange(6, [LEAVES[5]])


def test_the_docs_show_the_worked_example_as_the_code_computes_it() -> None:
    text = DOCS.read_text()
    for line in lines():
        assert line in text, line


def test_a_leaf_and_a_root_rebuilt_from_the_docs_words() -> None:
    logged = records()
    import json

    body = json.dumps(logged[0], sort_keys=True, separators=(",", ":")).encode()
    leaf = hashlib.sha256(b"\x00" + body).digest()
    assert leaf.hex() in "\n".join(lines())
    assert MemoryTree.of_records(logged).root(1) == leaf


# -- signed notes ----------------------------------------------------------------------------

#: A note signed with Go's golang.org/x/mod/sumdb/note (its documentation's example).
GO_KEY = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
GO_NOTE = (
    "If you think cryptography is the answer to your problem,\n"
    "then you don't know what your problem is.\n"
    "\n"
    "\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdn"
    "gotpRZb6KE6RyyBwJnAM=\n"
)


def test_a_note_signed_by_go_checks_and_any_changed_byte_is_refused() -> None:
    key = VerifierKey.parse(GO_KEY)
    assert key.text() == GO_KEY
    assert verify_note(GO_NOTE, key).startswith("If you think")
    changed = GO_NOTE.replace("problem,", "problem;")
    with pytest.raises(NoteError, match="does not verify"):
        verify_note(changed, key)
    text, [line] = split_note(GO_NOTE)
    flipped = bytearray(line.signature)
    flipped[10] ^= 1
    forged = text + "\n" + line.__class__(line.name, line.id, bytes(flipped)).text()
    with pytest.raises(NoteError, match="does not verify"):
        verify_note(forged, key)
    with pytest.raises(NoteError, match="does not match its name"):
        VerifierKey.parse(GO_KEY.replace("c74f20a3", "c74f20a4"))
    for bad in ("", "a+b", "no spaces+c74f20a3+AAAA", "x\n\n\u2014 y z\n", "x\n"):
        with pytest.raises(NoteError):
            (VerifierKey.parse if "+" in bad and "\n" not in bad else split_note)(bad)


def _site() -> Signer:
    return Signer(origin_of("https://Dice.Example/"), ED25519, bytes([0x66]) * 32)


def test_a_checkpoint_signed_by_the_site_opens_only_with_its_key() -> None:
    site = _site()
    assert site.name == "dice.example/dicehall-log"
    checkpoint = Checkpoint(site.name, 40, MemoryTree(LEAVES).root())
    note = checkpoint.sign(site)
    assert open_checkpoint(note, site.verifier) == checkpoint
    assert Signer.parse(site.text()) == site
    other = Signer(site.name, ED25519, bytes([0x67]) * 32)
    with pytest.raises(NoteError, match="no signature by"):
        open_checkpoint(note, other.verifier)
    tampered = note.replace("\n40\n", "\n39\n")
    with pytest.raises(NoteError, match="does not verify"):
        open_checkpoint(tampered, site.verifier)
    stranger = Checkpoint("evil.example/dicehall-log", 1, LEAVES[0]).sign(
        Signer(site.name, ED25519, site.seed)
    )
    with pytest.raises(NoteError, match="origin"):
        open_checkpoint(stranger, site.verifier)
    for text in ("a\n01\nAAAA\n", "a\nx\n" + base64.b64encode(bytes(32)).decode() + "\n"):
        with pytest.raises(NoteError):
            Checkpoint.parse(text)


def test_a_cosignature_covers_its_time_and_the_checkpoint() -> None:
    text = Checkpoint(_site().name, 3, LEAVES[0]).text()
    witness = Signer("witness.example/w1", COSIGNATURE_V1, bytes([0x77]) * 32)
    line = cosign(text, witness, 1764547200)
    assert verify_cosignature(text, line, witness.verifier) == 1764547200
    assert line.signature[:8] == (1764547200).to_bytes(8, "big")
    later = line.__class__(line.name, line.id, (1764547201).to_bytes(8, "big") + line.signature[8:])
    with pytest.raises(NoteError, match="does not verify"):
        verify_cosignature(text, later, witness.verifier)
    with pytest.raises(NoteError, match="does not verify"):
        verify_cosignature(text.replace("\n3\n", "\n4\n"), line, witness.verifier)
    with pytest.raises(NoteError, match="not by"):
        verify_cosignature(text, line, _site().verifier)
    with pytest.raises(NoteError):
        cosign(text, _site(), 1)  # a log key (type 0x01) does not cosign


# -- saved copies against each other and against checkpoints ---------------------------------


def _log(n: int, tag: str = "") -> list[dict[str, Any]]:
    from dicehall.fairness.chain import GENESIS, record_hash

    out: list[dict[str, Any]] = []
    prev = GENESIS
    for seq in range(1, n + 1):
        record = {"seq": seq, "kind": "dice", "batch": seq, "first": 40 * seq - 39, "size": 40,
                  "root": hashlib.sha256(f"{tag}{seq}".encode()).hexdigest(), "prev": prev,
                  "created_at": "2026-12-01T00:00:00+00:00"}  # fmt: skip
        prev = record_hash(record)
        out.append({**record, "hash": prev})
    return out


def test_a_later_copy_must_hold_the_older_copy_unchanged() -> None:
    old, new = _log(5), _log(9)
    assert check_extends(old, new) is None
    assert check_extends(old, old) is None
    truncated = check_extends(new, old)
    assert truncated is not None and "truncated" in truncated
    forked = _log(9, tag="x")
    failure = check_extends(old, forked)
    assert failure is not None and failure.startswith("record 1 differs")
    late = [*new[:3], *_log(9, tag="y")[3:]]
    failure = check_extends(old, late)
    assert failure is not None and failure.startswith("record 4 differs")


def test_a_copy_is_checked_against_a_checkpoint_even_from_a_later_record() -> None:
    log = _log(13)
    tree = MemoryTree.of_records(log)
    checkpoint = Checkpoint("dice.example/dicehall-log", 11, tree.root(11))
    assert check_against_checkpoint(log, checkpoint) is None
    short = check_against_checkpoint(log[:10], checkpoint)
    assert short is not None and "truncated" in short
    forked = check_against_checkpoint(_log(13, tag="x"), checkpoint)
    assert forked is not None and "fork" in forked
    # From record 6 on: the frontier is record 6's audit path in the tree of 6.
    frontier = tree.inclusion(5, 6)
    assert check_against_checkpoint(log[5:], checkpoint, frontier) is None
    wrong = check_against_checkpoint(log[5:], checkpoint, tree.inclusion(4, 6))
    assert wrong is not None and "fork" in wrong
    missing = check_against_checkpoint(log[5:], checkpoint, [])
    assert missing is not None and "frontier" in missing


def test_a_proofs_records_must_lie_in_the_checkpointed_tree() -> None:
    site = _site()
    log = _log(9)
    tree = MemoryTree.of_records(log)
    signed = Checkpoint(site.name, 7, tree.root(7))
    proof = {
        "log": log[2:5],
        "tree": {
            "checkpoint": signed.sign(site),
            "inclusion": {str(s): [h.hex() for h in tree.inclusion(s - 1, 7)] for s in (3, 4, 5)},
        },
    }
    assert check_proof_in_checkpoint(proof, site.verifier) is None
    later = Checkpoint(site.name, 9, tree.root(9))
    assert check_proof_in_checkpoint(proof, site.verifier, later) is not None
    assert check_proof_in_checkpoint(proof, site.verifier, later, tree.consistency(7, 9)) is None
    forked = MemoryTree.of_records(_log(9, tag="x"))
    fork = Checkpoint(site.name, 9, forked.root(9))
    failure = check_proof_in_checkpoint(proof, site.verifier, fork, forked.consistency(7, 9))
    assert failure is not None and "fork" in failure
    changed = {**proof, "log": [{**log[2], "size": 41}, *log[3:5]]}
    failure = check_proof_in_checkpoint(changed, site.verifier)
    assert failure is not None and "record 3 is not in the tree" in failure
    other = Signer(site.name, ED25519, bytes([0x01]) * 32)
    failure = check_proof_in_checkpoint(proof, other.verifier)
    assert failure is not None and "signature" in failure
    assert check_proof_in_checkpoint({"log": log[2:5]}, site.verifier) is not None
