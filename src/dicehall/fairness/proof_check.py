"""Checking a proof's commitments: each set and shuffle leaf against its batch's Merkle
root, each root against its record in the public log, the log's chain, and a seat draw.

Every check raises :class:`ProofFailure` with a sentence naming what failed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dicehall.fairness.chain import verify_chain
from dicehall.fairness.leaves import dice_leaf, position_digest, shuffle_leaf
from dicehall.fairness.merkle import root_from_path
from dicehall.fairness.proof_parts import (
    Batch,
    MalformedProof,
    ProofFailure,
    field,
    hex_bytes,
    path_of,
)
from dicehall.fairness.seating import NotEnoughDice, shuffle_by_dice

SHUFFLE_POSITIONS = 20


def check_log(proof: Mapping[str, Any]) -> dict[int, Mapping[str, Any]]:
    """The proof's log records by ``seq``, once their chain holds."""
    records = field(proof, "log", list, "proof")
    for i, record in enumerate(records):
        if not isinstance(record, Mapping):
            raise MalformedProof(f"log[{i}] must be an object")
    broken = verify_chain(records)
    if broken is not None:
        raise ProofFailure(f"public log, {broken}")
    return {int(record["seq"]): record for record in records}


def check_batches(
    batches: Mapping[tuple[str, int], Batch], log: Mapping[int, Mapping[str, Any]]
) -> None:
    """Each scheme-2 batch is exactly as its log record says."""
    for batch in batches.values():
        if batch.scheme == 1:
            continue
        record = log.get(batch.log_seq)
        if record is None:
            raise ProofFailure(
                f"{batch.kind} batch {batch.batch}: log record {batch.log_seq} is not in the proof"
            )
        logged = (record["kind"], record["batch"], record["first"], record["size"], record["root"])
        if logged != (batch.kind, batch.batch, batch.first, batch.size, batch.root.hex()):
            raise ProofFailure(
                f"{batch.kind} batch {batch.batch}: it is not what log record {batch.log_seq} "
                "committed (kind, number, first, size or root differ)"
            )


def _check_path(
    batch: Batch, number: int, leaf: bytes, entry: Mapping[str, Any], what: str
) -> None:
    index = number - batch.first
    if not 0 <= index < batch.size:
        raise ProofFailure(f"{what} {number} is outside {batch.kind} batch {batch.batch}")
    path = path_of(entry, f"{what} {number}")
    if root_from_path(leaf, index, batch.size, path) != batch.root:
        raise ProofFailure(
            f"{what} {number}: its path does not lead to {batch.kind} batch {batch.batch}'s root"
        )


@dataclass(frozen=True)
class ShownSet:
    """A dice set's faces as the proof shows them (None: withheld, its leaf only)."""

    faces: str | None
    scheme: int


def check_dice_sets(
    entries: Mapping[int, Mapping[str, Any]], batches: Mapping[tuple[str, int], Batch]
) -> dict[int, ShownSet]:
    """Each set's leaf on its batch's tree; the sets' faces by number."""
    shown: dict[int, ShownSet] = {}
    for number, entry in entries.items():
        where = f"dice set {number}"
        batch = batches.get(("dice", int(entry["batch"])))
        if batch is None:
            raise MalformedProof(f"{where} names dice batch {entry['batch']}, not in the proof")
        hidden = entry.get("hidden") is True
        faces = None if hidden else field(entry, "faces", str, where)
        if faces is not None and (len(faces) != 6 or any(c not in "123456" for c in faces)):
            raise ProofFailure(f"{where}: {faces!r} is not six faces 1..6")
        if batch.scheme == 1:
            shown[number] = ShownSet(faces, 1)
            continue
        if hidden:
            leaf = hex_bytes(field(entry, "leaf", str, where), 32, f"{where}.leaf")
        else:
            salt = hex_bytes(field(entry, "salt", str, where), 32, f"{where}.salt")
            assert faces is not None
            leaf = dice_leaf(salt, number, faces)
        _check_path(batch, number, leaf, entry, "dice set")
        shown[number] = ShownSet(faces, 2)
    return shown


def check_shuffles(
    entries: Mapping[int, Mapping[str, Any]], batches: Mapping[tuple[str, int], Batch]
) -> dict[int, list[str | None]]:
    """Each shuffle's leaf on its batch's tree; each shuffle's colours by position (None
    where only a digest is shown)."""
    colours: dict[int, list[str | None]] = {}
    for number, entry in entries.items():
        where = f"bag shuffle {number}"
        batch = batches.get(("bags", int(entry["batch"])))
        if batch is None or batch.scheme != 2:
            raise MalformedProof(f"{where} names bag batch {entry['batch']}, not in the proof")
        digests, seen = read_positions(entry, where)
        salt = hex_bytes(field(entry, "salt", str, where), 32, f"{where}.salt")
        _check_path(batch, number, shuffle_leaf(salt, number, digests), entry, "bag shuffle")
        colours[number] = seen
    return colours


def read_positions(entry: Mapping[str, Any], where: str) -> tuple[list[bytes], list[str | None]]:
    """A shuffle's 20 position digests, each rebuilt from its colour and salt where the
    proof shows them, and the colours by position (None where only a digest is shown)."""
    positions = field(entry, "positions", list, where)
    if len(positions) != SHUFFLE_POSITIONS:
        raise MalformedProof(f"{where} must show {SHUFFLE_POSITIONS} positions")
    digests: list[bytes] = []
    seen: list[str | None] = []
    for i, position in enumerate(positions):
        at = f"{where} position {i}"
        if isinstance(position, Mapping) and "colour" in position:
            colour = field(position, "colour", str, at)
            salt = hex_bytes(field(position, "salt", str, at), 32, f"{at}.salt")
            try:
                digests.append(position_digest(salt, i, colour))
            except ValueError as exc:
                raise MalformedProof(f"{at}: {exc}") from None
            seen.append(colour)
        else:
            digests.append(hex_bytes(field(position, "digest", str, at), 32, f"{at}.digest"))
            seen.append(None)
    return digests, seen


def check_seating(proof: Mapping[str, Any], sets: Mapping[int, ShownSet]) -> bool:
    """A seat order the site drew follows from its dice sets' faces (False: none drawn)."""
    seating = proof.get("seating")
    if seating is None:
        return False
    numbers = field(seating, "dice_sets", list, "seating")
    before = field(seating, "before", list, "seating")
    after = field(seating, "after", list, "seating")
    faces: list[int] = []
    for number in numbers:
        shown = sets.get(number)
        if shown is None or shown.faces is None:
            raise ProofFailure(f"seat draw: dice set {number} is not shown in the proof")
        faces.extend(int(c) for c in shown.faces)
    try:
        drawn = shuffle_by_dice(before, faces)
    except NotEnoughDice:
        raise ProofFailure("seat draw: its dice sets are too few to draw the order") from None
    if drawn != after:
        raise ProofFailure(f"seat draw: the dice seat {drawn}, but the game seated {after}")
    return True
