"""What an operator brings to a restore as evidence of how far the public log got: a saved
copy of the log, and a checkpoint; each read, checked, and refused in one line."""

from __future__ import annotations

import json
from typing import Any

from dicehall.engine.errors import InvalidInput
from dicehall.fairness.chain import record_hash, verify_chain
from dicehall.fairness.checkpoint import Checkpoint
from dicehall.fairness.note import NoteError, split_note


class RestoreRefused(InvalidInput):
    """A restore that would serve published dice again or fork the log: why, in one line."""


class TwoHistories(RestoreRefused):
    """The backup's log, the saved log and the checkpoint do not tell one history: a failed
    check (``dicehall restore`` exits 1), not a mistake in what was given."""


def read_saved_log(text: str) -> list[dict[str, Any]]:
    """The records of a saved public log: one ``GET /api/v1/fairness/log`` page, several
    pages concatenated (or in a JSON list), ``{"records": [...]}``, or a list of records;
    in order from record 1, each checked against its ``hash`` and the one before."""
    decoder = json.JSONDecoder()
    values: list[Any] = []
    position = 0
    try:
        while position < len(text):
            while position < len(text) and text[position].isspace():
                position += 1
            if position == len(text):
                break
            value, position = decoder.raw_decode(text, position)
            values.append(value)
    except (ValueError, RecursionError) as exc:
        raise RestoreRefused(f"the saved log is not JSON: {exc}") from exc
    pages = values[0] if len(values) == 1 and isinstance(values[0], list) else values
    records: dict[int, dict[str, Any]] = {}
    for page in pages:
        found = page.get("records") if isinstance(page, dict) and "records" in page else [page]
        if not isinstance(found, list):
            raise RestoreRefused("the saved log's records must be a list")
        for record in found:
            if not isinstance(record, dict) or not isinstance(record.get("seq"), int):
                raise RestoreRefused("every record of the saved log needs a whole-number seq")
            seen = records.setdefault(record["seq"], record)
            if seen != record:
                raise RestoreRefused(f"the saved log holds two different records {record['seq']}")
    ordered = [records[seq] for seq in sorted(records)]
    if not ordered:
        raise RestoreRefused("the saved log holds no records")
    if ordered[0]["seq"] != 1:
        raise RestoreRefused(
            f"the saved log starts at record {ordered[0]['seq']}: save it from record 1"
        )
    broken = verify_chain(ordered)
    if broken is not None:
        raise RestoreRefused(f"the saved log does not chain: {broken}")
    for record in ordered:
        if "hash" not in record:
            record["hash"] = record_hash(record)
    return ordered


def read_checkpoint(text: str) -> Checkpoint:
    """A checkpoint, signed (a note) or bare (its three lines); its signatures are not
    checked here: it is the operator's own evidence of how far the log got."""
    body = text
    if "\n\n" in text:
        try:
            body, _ = split_note(text)
        except NoteError as exc:
            raise RestoreRefused(f"the checkpoint is not a signed note: {exc}") from exc
    try:
        return Checkpoint.parse(body)
    except NoteError as exc:
        raise RestoreRefused(f"not a checkpoint: {exc}") from exc
