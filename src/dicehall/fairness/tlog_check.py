"""Checks of saved copies of the public log against each other and against signed
checkpoints, for ``dicehall verify-log``, ``dicehall verify-game`` and ``dicehall witness``.

Each check returns ``None`` when it holds, else a sentence naming the first thing wrong.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from typing import Any

from dicehall.fairness.chain import canonical, record_hash
from dicehall.fairness.checkpoint import Checkpoint, open_checkpoint
from dicehall.fairness.merkle import node_hash
from dicehall.fairness.note import NoteError, VerifierKey, split_note, verify_cosignature
from dicehall.fairness.tlog import (
    fold,
    inclusion_ranges,
    record_leaf,
    verify_consistency,
    verify_inclusion,
)


class CompactRange:
    """The perfect subtrees of the leaves ``0`` to ``size`` (exclusive), largest first: all a
    tree needs to take more leaves and give its root (a log checked in one pass)."""

    def __init__(self, size: int = 0, frontier: Sequence[bytes] = ()) -> None:
        """Start with ``size`` leaves: ``frontier`` is the last one's leaf, then its audit
        path in the tree of ``size`` leaves (smallest first), which is exactly the perfect
        subtrees to its left."""
        self.size = 0
        self.nodes: list[tuple[int, bytes]] = []
        if size:
            levels = [level for level in range(size.bit_length()) if (size - 1) >> level & 1]
            if len(frontier) != len(levels) + 1:
                raise ValueError(f"a tree of {size} needs {len(levels) + 1} frontier hashes")
            self.nodes = list(zip(reversed(levels), reversed(frontier[1:]), strict=True))
            self.size = size - 1
            self.append(frontier[0])

    def append(self, leaf: bytes) -> None:
        """Add the next leaf."""
        node, level = leaf, 0
        while self.nodes and self.nodes[-1][0] == level:
            node = node_hash(self.nodes.pop()[1], node)
            level += 1
        self.nodes.append((level, node))
        self.size += 1

    def root(self) -> bytes:
        """The root over every leaf so far (at least one)."""
        return fold([h for _, h in self.nodes])


def _records(data: Any) -> list[Mapping[str, Any]] | None:
    records = data.get("records") if isinstance(data, Mapping) else data
    if not isinstance(records, list) or not all(isinstance(r, Mapping) for r in records):
        return None
    return records


def check_extends(old: Sequence[Mapping[str, Any]], new: Sequence[Mapping[str, Any]]) -> str | None:
    """Whether ``new`` holds every record of ``old`` unchanged (and may add more after)."""
    if not old:
        return None
    by_seq = {r.get("seq"): r for r in new}
    for record in old:
        seq = record.get("seq")
        found = by_seq.get(seq)
        if found is None:
            last = new[-1].get("seq") if new else None
            if isinstance(seq, int) and isinstance(last, int) and seq > last:
                return (
                    f"the new copy ends at record {last} but the old one reaches "
                    f"{old[-1].get('seq')}: the log was truncated"
                )
            return f"record {seq} of the old copy is missing from the new copy"
        if canonical(found) != canonical(record) or record_hash(found) != record_hash(record):
            return f"record {seq} differs from the old copy's: the log was rewritten (a fork)"
    return None


def read_checkpoint(note: str, key: VerifierKey | None) -> Checkpoint:
    """A signed checkpoint, its signature checked with ``key`` (NoteError if it fails)."""
    if key is None:
        raise NoteError("a checkpoint is trusted only with the log's key (--key)")
    return open_checkpoint(note, key)


def check_cosigned(note: str, witnesses: Sequence[VerifierKey]) -> None:
    """Every key of ``witnesses`` cosigned the checkpoint ``note`` (NoteError if one did
    not): a checkpoint witnessed by whom the caller trusts, not only signed by the site."""
    text, lines = split_note(note)
    for key in witnesses:
        theirs = [line for line in lines if (line.name, line.id) == (key.name, key.id)]
        if not theirs:
            raise NoteError(f"the checkpoint has no cosignature by the witness {key.name}")
        verify_cosignature(text, theirs[0], key)


def check_against_checkpoint(
    records: Sequence[Mapping[str, Any]],
    checkpoint: Checkpoint,
    frontier: Sequence[bytes] = (),
) -> str | None:
    """Whether the log's first ``checkpoint.size`` records, of which ``records`` are the
    copy from its first ``seq`` on, have the checkpoint's root. A copy that does not start at
    record 1 needs ``frontier``: record ``first``'s audit path in the tree of ``first``
    records, led by its leaf (``GET /fairness/inclusion?seq=first&size=first``)."""
    if not records:
        return "the copy has no records"
    first = records[0].get("seq")
    if not isinstance(first, int) or first < 1:
        return "the copy's first record has no valid seq"
    last = first + len(records) - 1
    if checkpoint.size > last:
        return (
            f"the checkpoint covers {checkpoint.size} records but the copy ends at record "
            f"{last}: the log was truncated"
        )
    if checkpoint.size < first:
        return f"the checkpoint covers {checkpoint.size} records; the copy starts at {first}"
    try:
        tree = CompactRange(first, [record_leaf(records[0]), *frontier]) if first > 1 else None
    except ValueError as exc:
        return f"the frontier does not fit: {exc}"
    if tree is None:
        tree = CompactRange()
        tree.append(record_leaf(records[0]))
    for record in records[1 : checkpoint.size - first + 1]:
        tree.append(record_leaf(record))
    if tree.root() != checkpoint.root:
        return (
            f"the first {checkpoint.size} records do not have the checkpoint's root "
            f"{base64.b64encode(checkpoint.root).decode()}: the log was rewritten (a fork)"
        )
    return None


def check_records_in_checkpoint(
    records: Mapping[int, Mapping[str, Any]],
    tree: Any,
    key: VerifierKey,
    checkpoint: Checkpoint | None = None,
    consistency: Sequence[bytes] | None = None,
) -> str | None:
    """Whether a proof's log records lie in a checkpointed tree.

    ``tree`` is the proof's ``"tree"`` (made by the site: the checkpoint it signed when the
    proof was made, and each record's audit path in it); its checkpoint must carry ``key``'s
    signature. When the verifier brings its own (e.g. witnessed) ``checkpoint`` of a larger
    tree, ``consistency`` must prove the proof's tree a prefix of it."""
    if not isinstance(tree, Mapping) or not isinstance(tree.get("checkpoint"), str):
        return "the proof has no tree part (a checkpoint and audit paths)"
    try:
        signed = read_checkpoint(tree["checkpoint"], key)
    except NoteError as exc:
        return f"the proof's checkpoint: {exc}"
    paths = tree.get("inclusion")
    if not isinstance(paths, Mapping):
        return "the proof's tree part has no audit paths"
    for seq, record in sorted(records.items()):
        path = paths.get(str(seq))
        try:
            hashes = [bytes.fromhex(h) for h in path] if isinstance(path, list) else None
        except (TypeError, ValueError):
            hashes = None
        if hashes is None or len(hashes) != len(_path_shape(seq, signed.size)):
            return f"the proof has no valid audit path for log record {seq}"
        if not verify_inclusion(record_leaf(record), seq - 1, signed.size, hashes, signed.root):
            return f"log record {seq} is not in the tree of the proof's checkpoint"
    if checkpoint is not None and checkpoint != signed:
        if checkpoint.origin != signed.origin:
            return f"the checkpoint is of {checkpoint.origin}, not {signed.origin}"
        if checkpoint.size < signed.size:
            return (
                f"the checkpoint given covers {checkpoint.size} records, fewer than the "
                f"proof's {signed.size}: use a newer one"
            )
        if consistency is None:
            return "the checkpoint given is another tree's: a consistency proof is needed"
        if not verify_consistency(
            signed.size, checkpoint.size, signed.root, checkpoint.root, consistency
        ):
            return "the proof's tree is not a prefix of the checkpoint given's (a fork)"
    return None


def _path_shape(seq: int, size: int) -> list[tuple[int, int]]:
    try:
        return inclusion_ranges(seq - 1, size)
    except ValueError:
        return []


def check_proof_in_checkpoint(
    proof: Any,
    key: VerifierKey,
    checkpoint: Checkpoint | None = None,
    consistency: Sequence[bytes] | None = None,
) -> str | None:
    """Whether a game's proof's log records lie in the tree of the checkpoint in its
    ``"tree"`` part (and that tree in ``checkpoint``'s): :func:`check_records_in_checkpoint`
    on the proof's ``"log"``."""
    log = proof.get("log") if isinstance(proof, Mapping) else None
    if not isinstance(log, list) or not all(
        isinstance(r, Mapping) and isinstance(r.get("seq"), int) for r in log
    ):
        return "the proof has no log records"
    records = {int(r["seq"]): r for r in log}
    return check_records_in_checkpoint(records, proof.get("tree"), key, checkpoint, consistency)
