"""Checkpoints of the public log (C2SP tlog-checkpoint): the log's origin, its size and its
root hash, signed by the site and cosigned by witnesses.

The text is three lines, each ending in a newline: the origin (``<host>/dicehall-log``), the
number of records as a decimal, and the base64 of the RFC 9162 root over those records'
leaves (:mod:`dicehall.fairness.tlog`). As a signed note (:mod:`dicehall.fairness.note`) it
is followed by a blank line and the signature lines.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from urllib.parse import urlsplit

from dicehall.fairness.note import (
    NoteError,
    Signer,
    VerifierKey,
    sign_note,
    split_note,
    verify_cosignature,
    verify_note,
)

#: What follows a site's host in its log's origin.
SUFFIX = "/dicehall-log"


def origin_of(site_url: str) -> str:
    """The origin of the log of the site at ``site_url``: ``<host[:port][/path]>/dicehall-log``."""
    parts = urlsplit(site_url)
    return f"{parts.netloc.lower()}{parts.path.rstrip('/')}{SUFFIX}"


@dataclass(frozen=True)
class Checkpoint:
    """A tree head: the first ``size`` records of the log at ``origin`` have ``root``."""

    origin: str
    size: int
    root: bytes

    def text(self) -> str:
        """The checkpoint's text (what its signatures cover)."""
        return f"{self.origin}\n{self.size}\n{base64.b64encode(self.root).decode()}\n"

    @classmethod
    def parse(cls, text: str) -> Checkpoint:
        """A checkpoint's text read back (extension lines are refused: this log has none)."""
        lines = text.split("\n")
        if len(lines) != 4 or lines[3] != "":
            raise NoteError("a checkpoint is three lines: origin, size, base64 root hash")
        origin, size, root = lines[:3]
        if not origin or not size.isdigit() or (size != "0" and size.startswith("0")):
            raise NoteError("a checkpoint's second line is its size, a decimal number")
        try:
            raw = base64.b64decode(root.encode("ascii"), validate=True)
        except (binascii.Error, UnicodeEncodeError) as exc:
            raise NoteError("a checkpoint's third line is its root hash in base64") from exc
        if len(raw) != 32:
            raise NoteError("a checkpoint's root hash is 32 bytes")
        return cls(origin, int(size), raw)

    def sign(self, signer: Signer) -> str:
        """The checkpoint as a note signed by ``signer``."""
        return sign_note(self.text(), signer)


def open_checkpoint(note: str, key: VerifierKey) -> Checkpoint:
    """The checkpoint of a signed note once ``key``'s signature on it checks, and its origin
    is the key's name; else :class:`NoteError`."""
    checkpoint = Checkpoint.parse(verify_note(note, key))
    if checkpoint.origin != key.name:
        raise NoteError(f"the checkpoint's origin {checkpoint.origin} is not {key.name}")
    return checkpoint


def cosigners(note: str, keys: list[VerifierKey]) -> dict[str, int]:
    """Which of ``keys`` (witnesses' cosigner keys) cosigned the note: vkey -> time."""
    text, lines = split_note(note)
    found: dict[str, int] = {}
    for key in keys:
        for line in lines:
            if (line.name, line.id) == (key.name, key.id):
                found[key.text()] = verify_cosignature(text, line, key)
    return found
