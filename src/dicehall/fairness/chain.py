"""The public log: one record per committed batch or deck, and per deck bound to a game,
each naming the hash of the one before.

A record's hash is ``SHA-256`` of its canonical JSON (keys sorted, no spaces, ASCII), the
``hash`` key itself left out. The first record's ``prev`` is 64 zeros. Changing, dropping,
inserting or reordering any record breaks every link after it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypedDict

GENESIS = "0" * 64
#: The keys a batch record (``dice``, ``bags``) has, and nothing else (``hash`` is added
#: when it is served).
FIELDS = ("seq", "kind", "batch", "first", "size", "root", "prev", "created_at")
#: The keys of each kind of record: a committed deck, and a deck bound to a game.
FIELDS_BY_KIND: dict[str, tuple[str, ...]] = {
    "dice": FIELDS,
    "bags": FIELDS,
    "deck": (
        "seq",
        "kind",
        "deck",
        "keys",
        "root",
        "shuffles",
        "shuffles_root",
        "prev",
        "created_at",
    ),
    "game": ("seq", "kind", "game", "deck", "first_key", "first_shuffle", "prev", "created_at"),
}


def fields_of(kind: object) -> tuple[str, ...]:
    """The keys a record of ``kind`` has (ValueError for a kind the log never writes)."""
    if not isinstance(kind, str) or kind not in FIELDS_BY_KIND:
        raise ValueError(f"no record kind {kind!r} (one of {', '.join(FIELDS_BY_KIND)})")
    return FIELDS_BY_KIND[kind]


class LogRecord(TypedDict):
    """One record of the log as the site stores it."""

    seq: int
    kind: Literal["dice", "bags"]
    batch: int
    first: int
    size: int
    root: str
    prev: str
    created_at: str


def canonical(record: Mapping[str, Any]) -> bytes:
    """The bytes a record's hash covers."""
    body = {key: record[key] for key in fields_of(record["kind"])}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def record_hash(record: Mapping[str, Any]) -> str:
    """The record's hash (hex)."""
    return hashlib.sha256(canonical(record)).hexdigest()


@dataclass(frozen=True)
class ChainBreak:
    """The first thing wrong with a log, and where."""

    seq: int | None
    reason: str

    def __str__(self) -> str:
        where = "the log" if self.seq is None else f"record {self.seq}"
        return f"{where}: {self.reason}"


def verify_chain(
    records: Sequence[Mapping[str, Any]], prev: str | None = None
) -> ChainBreak | None:
    """The first break in ``records`` (consecutive, from any ``seq``), or None when it holds.

    ``prev`` is the hash the first record must name; by default the genesis value when the
    log starts at record 1, and whatever the first record names otherwise (a later page of
    the log can only be checked from where it starts)."""
    expected_prev = prev
    expected_seq: int | None = None
    for record in records:
        try:
            fields = fields_of(record.get("kind"))
        except ValueError as exc:
            return ChainBreak(record.get("seq"), str(exc))
        missing = [key for key in fields if key not in record]
        if missing:
            return ChainBreak(record.get("seq"), f"lacks {', '.join(missing)}")
        seq = record["seq"]
        if not isinstance(seq, int) or isinstance(seq, bool):
            return ChainBreak(None, f"a seq must be a whole number, not {seq!r}")
        if expected_seq is not None and seq != expected_seq:
            return ChainBreak(seq, f"expected record {expected_seq} here")
        if expected_prev is None and seq == 1:
            expected_prev = GENESIS
        if expected_prev is not None and record["prev"] != expected_prev:
            return ChainBreak(seq, "its prev is not the hash of the record before")
        computed = record_hash(record)
        if "hash" in record and record["hash"] != computed:
            return ChainBreak(
                seq, f"its hash is {record['hash']}, but its content hashes to {computed}"
            )
        expected_prev, expected_seq = computed, seq + 1
    return None
