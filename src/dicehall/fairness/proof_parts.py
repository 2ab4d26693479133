"""Reading a proof file (format ``dicehall-proof/1``) into checked pieces.

Anything structurally wrong (a missing key, a value of the wrong type, bad hex) raises
:class:`MalformedProof`: a file that is not a proof at all, as opposed to a proof that fails.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

FORMAT = "dicehall-proof/1"
T = TypeVar("T")


class MalformedProof(ValueError):
    """The file is not a well-formed proof."""


class ProofFailure(Exception):
    """The proof is well formed, but something in it does not hold."""


def field(obj: Any, key: str, kind: type[T], where: str) -> T:
    """``obj[key]``, which must be a ``kind``."""
    if not isinstance(obj, Mapping):
        raise MalformedProof(f"{where} must be an object")
    if key not in obj:
        raise MalformedProof(f"{where} lacks {key!r}")
    value = obj[key]
    if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise MalformedProof(f"{where}.{key} must be a whole number")
    if not isinstance(value, kind):
        raise MalformedProof(f"{where}.{key} must be of type {kind.__name__}")
    return value


def hex_bytes(text: Any, size: int, where: str) -> bytes:
    """``text`` as ``size`` bytes of hex."""
    if not isinstance(text, str):
        raise MalformedProof(f"{where} must be hex text")
    try:
        raw = bytes.fromhex(text)
    except ValueError:
        raise MalformedProof(f"{where} is not hex") from None
    if len(raw) != size:
        raise MalformedProof(f"{where} must be {size} bytes, not {len(raw)}")
    return raw


def path_of(entry: Any, where: str) -> list[bytes]:
    """An entry's audit path."""
    nodes = field(entry, "path", list, where)
    return [hex_bytes(node, 32, f"{where}.path[{i}]") for i, node in enumerate(nodes)]


@dataclass(frozen=True)
class Batch:
    """A batch a proof names: its kind, number, first item, size and root (scheme 2), or a
    scheme-1 batch (no tree; checked by ``dicehall verify-dice`` once revealed)."""

    kind: str
    batch: int
    scheme: int
    first: int = 0
    size: int = 0
    root: bytes = b""
    log_seq: int = 0


def batches_of(proof: Mapping[str, Any]) -> dict[tuple[str, int], Batch]:
    """The proof's batches by (kind, number)."""
    found: dict[tuple[str, int], Batch] = {}
    for i, entry in enumerate(field(proof, "batches", list, "proof")):
        where = f"batches[{i}]"
        kind = field(entry, "kind", str, where)
        if kind not in ("dice", "bags"):
            raise MalformedProof(f"{where}.kind must be dice or bags")
        number = field(entry, "batch", int, where)
        if entry.get("scheme") == 1:
            found[(kind, number)] = Batch(kind, number, 1)
            continue
        found[(kind, number)] = Batch(
            kind,
            number,
            2,
            field(entry, "first", int, where),
            field(entry, "size", int, where),
            hex_bytes(field(entry, "root", str, where), 32, f"{where}.root"),
            field(entry, "log_seq", int, where),
        )
    return found


def by_number(proof: Mapping[str, Any], key: str) -> dict[int, Mapping[str, Any]]:
    """The proof's ``dice_sets`` or ``bag_shuffles`` entries by number."""
    found: dict[int, Mapping[str, Any]] = {}
    for i, entry in enumerate(field(proof, key, list, "proof")):
        number = field(entry, "number", int, f"{key}[{i}]")
        field(entry, "batch", int, f"{key}[{i}]")
        found[number] = entry
    return found
