"""The leaves of the site's Merkle trees: a set of six dice, or a shuffle of the Hold'em bag.

Every leaf is ``SHA-256(0x00 || salt || number || payload)``: ``salt`` 32 random bytes of
its own, ``number`` the set's (or shuffle's) global serving number as 8 bytes big-endian.
A dice set's payload is its six faces as ASCII digits (``b"352116"``). A shuffle's payload
is its 20 position digests, ``SHA-256(0x02 || position_salt || position || colour)`` with
``position`` one byte (0..19) and ``colour`` one ASCII letter: a proof may reveal some
positions of a shuffle (the dice the table saw) and give only the digests of the others.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence

LEAF = b"\x00"
POSITION = b"\x02"
SALT_BYTES = 32
NUMBER_BYTES = 8


def _leaf(salt: bytes, number: int, payload: bytes) -> bytes:
    if len(salt) != SALT_BYTES:
        raise ValueError(f"a leaf salt is {SALT_BYTES} bytes, not {len(salt)}")
    return hashlib.sha256(LEAF + salt + number.to_bytes(NUMBER_BYTES, "big") + payload).digest()


def dice_leaf(salt: bytes, number: int, faces: str) -> bytes:
    """The leaf of dice set ``number`` with ``faces`` (six digits 1..6)."""
    if len(faces) != 6 or any(ch not in "123456" for ch in faces):
        raise ValueError(f"a dice set is six digits 1..6, not {faces!r}")
    return _leaf(salt, number, faces.encode("ascii"))


def position_salt(secret: bytes, position: int) -> bytes:
    """The salt of one position of a shuffle, derived from the shuffle's secret (which is
    never published: revealing one position's salt tells nothing of another's)."""
    return hmac.new(secret, b"position" + bytes([position]), hashlib.sha256).digest()


def position_digest(salt: bytes, position: int, colour: str) -> bytes:
    """The digest of ``colour`` at ``position`` (0..19) of a shuffle."""
    if len(salt) != SALT_BYTES:
        raise ValueError(f"a position salt is {SALT_BYTES} bytes, not {len(salt)}")
    if len(colour) != 1 or not colour.isascii():
        raise ValueError(f"a colour is one ASCII letter, not {colour!r}")
    return hashlib.sha256(POSITION + salt + bytes([position]) + colour.encode("ascii")).digest()


def shuffle_digests(secret: bytes, colours: str) -> list[bytes]:
    """The position digests of a shuffle (``colours`` in drawing order)."""
    return [
        position_digest(position_salt(secret, i), i, colour) for i, colour in enumerate(colours)
    ]


def shuffle_leaf(salt: bytes, number: int, digests: Sequence[bytes]) -> bytes:
    """The leaf of shuffle ``number`` from its position digests, in drawing order."""
    return _leaf(salt, number, b"".join(digests))
