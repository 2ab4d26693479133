"""Signed notes (C2SP signed-note) with Ed25519 keys, and timestamped cosignatures (C2SP
tlog-cosignature, ``cosignature/v1``).

A note is text ending in a newline, a blank line, then one line per signature:
``— <key name> <base64(key id || signature)>`` (U+2014, then a space). A key id is
``SHA-256(<key name> || "\\n" || type || public key)[:4]``, type 0x01 for a log's Ed25519 key
and 0x04 for a cosigner's. A verifier key ("vkey") reads ``<name>+<key id hex>+<base64(type ||
public key)>``; a signer key ("skey") ``PRIVATE+KEY+<name>+<key id hex>+<base64(type ||
seed)>``. A cosignature signs ``cosignature/v1\\ntime <T>\\n`` followed by the note's text,
and its signature is ``u64 big-endian T || Ed25519 signature``.

Signing and checking need the ``cryptography`` package (installed with ``dicehall[site]``).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import secrets
from dataclasses import dataclass
from typing import Any

ED25519 = 0x01
COSIGNATURE_V1 = 0x04
DASH = "\u2014 "


class NoteError(ValueError):
    """A note, key or signature that is malformed or does not verify."""


def _ed25519() -> Any:
    try:
        from cryptography.hazmat.primitives.asymmetric import ed25519
    except ImportError as exc:  # pragma: no cover - a plain install without the site extra
        raise NoteError(
            "checking signatures needs the 'cryptography' package: pip install cryptography"
        ) from exc
    return ed25519


def _valid_name(name: str) -> str:
    if not name or "+" in name or any(c.isspace() for c in name):
        raise NoteError(f"a key name must be non-empty, without spaces or '+': {name!r}")
    return name


def key_id(name: str, kind: int, public: bytes) -> bytes:
    """The 4-byte key id of a key."""
    return hashlib.sha256(name.encode() + b"\n" + bytes([kind]) + public).digest()[:4]


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _unb64(text: str, what: str) -> bytes:
    try:
        return base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError) as exc:
        raise NoteError(f"{what} is not base64") from exc


@dataclass(frozen=True)
class VerifierKey:
    """A public key that checks one signer's signatures."""

    name: str
    kind: int
    public: bytes

    @property
    def id(self) -> bytes:
        """The 4-byte key id that signature lines carry."""
        return key_id(self.name, self.kind, self.public)

    def text(self) -> str:
        """The vkey: ``<name>+<key id hex>+<base64(type || public key)>``."""
        return f"{self.name}+{self.id.hex()}+{_b64(bytes([self.kind]) + self.public)}"

    @classmethod
    def parse(cls, text: str) -> VerifierKey:
        """A vkey read back; its key id must match its name and key."""
        parts = text.strip().split("+", 2)
        if len(parts) != 3:
            raise NoteError("a verifier key reads <name>+<key id>+<base64 key>")
        name, hexid, blob = parts
        raw = _unb64(blob, "the verifier key")
        if len(raw) != 33 or raw[0] not in (ED25519, COSIGNATURE_V1):
            raise NoteError("the verifier key is not an Ed25519 key (type 0x01 or 0x04)")
        key = cls(_valid_name(name), raw[0], raw[1:])
        if hexid.lower() != key.id.hex():
            raise NoteError(f"the verifier key's id {hexid} does not match its name and key")
        return key

    def check(self, message: bytes, signature: bytes) -> bool:
        """Whether ``signature`` is this key's Ed25519 signature of ``message``."""
        ed25519 = _ed25519()
        from cryptography.exceptions import InvalidSignature

        try:
            ed25519.Ed25519PublicKey.from_public_bytes(self.public).verify(signature, message)
        except InvalidSignature:
            return False
        return True


@dataclass(frozen=True)
class Signer:
    """A private Ed25519 key with its name."""

    name: str
    kind: int
    seed: bytes

    @classmethod
    def generate(cls, name: str, kind: int = ED25519) -> Signer:
        """A new random key."""
        return cls(_valid_name(name), kind, secrets.token_bytes(32))

    @property
    def verifier(self) -> VerifierKey:
        """The matching public key."""
        private = _ed25519().Ed25519PrivateKey.from_private_bytes(self.seed)
        from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

        return VerifierKey(
            self.name, self.kind, private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        )

    def sign(self, message: bytes) -> bytes:
        """The Ed25519 signature of ``message``."""
        signature: bytes = _ed25519().Ed25519PrivateKey.from_private_bytes(self.seed).sign(message)
        return signature

    def text(self) -> str:
        """The skey: ``PRIVATE+KEY+<name>+<key id hex>+<base64(type || seed)>``."""
        kid = self.verifier.id.hex()
        return f"PRIVATE+KEY+{self.name}+{kid}+{_b64(bytes([self.kind]) + self.seed)}"

    @classmethod
    def parse(cls, text: str) -> Signer:
        """An skey read back."""
        parts = text.strip().split("+", 4)
        if len(parts) != 5 or parts[:2] != ["PRIVATE", "KEY"]:
            raise NoteError("a signer key reads PRIVATE+KEY+<name>+<key id>+<base64 key>")
        raw = _unb64(parts[4], "the signer key")
        if len(raw) != 33 or raw[0] not in (ED25519, COSIGNATURE_V1):
            raise NoteError("the signer key is not an Ed25519 key (type 0x01 or 0x04)")
        signer = cls(_valid_name(parts[2]), raw[0], raw[1:])
        if parts[3].lower() != signer.verifier.id.hex():
            raise NoteError("the signer key's id does not match its name and key")
        return signer


@dataclass(frozen=True)
class SignatureLine:
    """One signature line of a note."""

    name: str
    id: bytes
    signature: bytes

    def text(self) -> str:
        """The line, with its newline."""
        return f"{DASH}{self.name} {_b64(self.id + self.signature)}\n"


def signature_line(signer: Signer, text: str) -> SignatureLine:
    """``signer``'s signature of a note's text (type 0x01)."""
    return SignatureLine(signer.name, signer.verifier.id, signer.sign(text.encode()))


def sign_note(text: str, signer: Signer) -> str:
    """A note: ``text``, a blank line, and ``signer``'s signature line."""
    _check_text(text)
    return text + "\n" + signature_line(signer, text).text()


def _check_text(text: str) -> None:
    if not text.endswith("\n") or "\n\n" in text:
        raise NoteError("a note's text ends with a newline and has no blank line")


def split_note(note: str) -> tuple[str, list[SignatureLine]]:
    """A note's text and its signature lines (unchecked)."""
    text, sep, block = note.partition("\n\n")
    if not sep or not block:
        raise NoteError("a signed note is text, a blank line, then signature lines")
    text += "\n"
    lines = block.split("\n")
    if lines[-1] != "":
        raise NoteError("a signed note ends with a newline")
    found: list[SignatureLine] = []
    for line in lines[:-1]:
        if not line.startswith(DASH):
            raise NoteError(f"not a signature line: {line[:60]!r}")
        name, space, blob = line[len(DASH) :].partition(" ")
        raw = _unb64(blob, "a signature")
        if not space or len(raw) < 5:
            raise NoteError(f"not a signature line: {line[:60]!r}")
        found.append(SignatureLine(_valid_name(name), raw[:4], raw[4:]))
    return text, found


def verify_note(note: str, key: VerifierKey) -> str:
    """The text of ``note`` once ``key``'s signature on it checks; else :class:`NoteError`."""
    text, lines = split_note(note)
    mine = [line for line in lines if line.name == key.name and line.id == key.id]
    if not mine:
        raise NoteError(f"the note has no signature by {key.name} (key id {key.id.hex()})")
    if not any(key.check(text.encode(), line.signature) for line in mine):
        raise NoteError(f"the signature by {key.name} does not verify")
    return text


def cosigned_message(text: str, timestamp: int) -> bytes:
    """What a ``cosignature/v1`` signs: two header lines and the checkpoint's text."""
    return f"cosignature/v1\ntime {timestamp}\n{text}".encode()


def cosign(text: str, signer: Signer, timestamp: int) -> SignatureLine:
    """A timestamped cosignature (type 0x04) of a checkpoint's text."""
    if signer.kind != COSIGNATURE_V1:
        raise NoteError("a cosigner's key has type 0x04")
    if not 0 <= timestamp < 2**63:
        raise NoteError("a cosignature's time is a POSIX timestamp below 2**63")
    signature = signer.sign(cosigned_message(text, timestamp))
    return SignatureLine(signer.name, signer.verifier.id, timestamp.to_bytes(8, "big") + signature)


def verify_cosignature(text: str, line: SignatureLine, key: VerifierKey) -> int:
    """The time of ``key``'s cosignature ``line`` on a checkpoint's text once it checks."""
    if key.kind != COSIGNATURE_V1 or (line.name, line.id) != (key.name, key.id):
        raise NoteError(f"the cosignature is not by {key.name} (key id {key.id.hex()})")
    if len(line.signature) != 72:
        raise NoteError("a cosignature is 8 bytes of time and 64 of signature")
    timestamp = int.from_bytes(line.signature[:8], "big")
    if timestamp >= 2**63 or not key.check(cosigned_message(text, timestamp), line.signature[8:]):
        raise NoteError(f"the cosignature by {key.name} does not verify")
    return timestamp
