"""Scheme 3: a game's dice come from a deck the site committed before the game existed,
mixed with the seeds its players sent after the deck was bound to it.

A **deck** is made from one 32-byte secret the site never publishes. It holds ``keys`` dice
keys and ``shuffles`` bag shuffles, each under its own RFC 9162 tree, both roots logged
(record kind ``deck``) before the deck is used. Decks are bound to games in order (record
kind ``game``) when a game is created, before any seat's seed is known. The ``i``-th roll of
the game uses key ``i``; the ``j``-th Hold'em hand uses shuffle ``j``.

- key ``i``: ``H(0x10 || secret || i)``; its leaf ``H(0x00 || "K" || i || key)``.
- shuffle ``j``: secret ``H(0x11 || secret || j)``, salt ``H(0x12 || secret || j)``, colours
  drawn from the shuffle secret (:func:`shuffle_colours`); its leaf as in
  :mod:`.leaves` with number ``j``.
- seeds: ``mix = H(0x20 || per seat: 0x00, or 0x01 || length (1 byte) || seed)``, over the
  seeds in force for the roll or hand (a seed counts from the roll/hand after it arrived).
- a roll's faces: the bytes of ``HMAC-SHA256(key, "dice" || game || i || mix || n)`` for
  ``n = 0, 1, ...``; a byte ``b < 252`` gives the face ``1 + b mod 6``, others are skipped.
- a hand's drawing order: positions ``0..19`` of the committed shuffle permuted by
  ``sigma``, a Fisher-Yates shuffle from the bytes of
  ``H(0x21 || game || j || mix || n)``: the ``q``-th die drawn is the shuffle's position
  ``sigma[q]``.

Neither side can steer: the deck (the site's part) was fixed before the seeds, and a seed
(the players' part) changes every later face unpredictably to anyone without the key.
Numbers are 8 bytes big-endian; ``H`` is SHA-256.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from dicehall.fairness.leaves import shuffle_digests, shuffle_leaf
from dicehall.fairness.merkle import audit_paths, merkle_root
from dicehall.games.holdem.dice import bag_after

SECRET_BYTES = 32
#: The bag's 20 colours in canonical order (what a committed shuffle permutes).
FULL_BAG = "".join(bag_after(()))
BAG_SIZE = len(FULL_BAG)
SEED_MAX_BYTES = 64
#: Keys of a game's first deck that no roll uses: key 0, the seat key (a seat order the site
#: draws); the game's rolls use keys 1, 2, ...
SEAT_KEYS = 1


def _n(value: int) -> bytes:
    return value.to_bytes(8, "big")


def _h(*parts: bytes) -> bytes:
    return hashlib.sha256(b"".join(parts)).digest()


def dice_key(secret: bytes, index: int) -> bytes:
    """Key ``index`` of the deck made from ``secret``."""
    return _h(b"\x10", secret, _n(index))


def key_leaf(index: int, key: bytes) -> bytes:
    """The leaf of key ``index``."""
    if len(key) != 32:
        raise ValueError(f"a dice key is 32 bytes, not {len(key)}")
    return _h(b"\x00K", _n(index), key)


def shuffle_secret(secret: bytes, index: int) -> bytes:
    """The secret of the deck's shuffle ``index`` (its position salts come from it)."""
    return _h(b"\x11", secret, _n(index))


def shuffle_salt(secret: bytes, index: int) -> bytes:
    """The leaf salt of the deck's shuffle ``index``."""
    return _h(b"\x12", secret, _n(index))


def _bytes_of(block: bytes, stream: Iterator[bytes]) -> Iterator[int]:
    yield from block
    for more in stream:
        yield from more


def _below(source: Iterator[int], k: int) -> int:
    """A uniform number below ``k`` (``k <= 256``) from ``source``, by rejection."""
    limit = 256 - 256 % k
    for byte in source:
        if byte < limit:
            return byte % k
    raise AssertionError("an endless stream ended")  # pragma: no cover


def _stream(prefix: bytes) -> Iterator[int]:
    counter = 0
    while True:
        yield from _h(prefix, counter.to_bytes(4, "big"))
        counter += 1


def shuffle_colours(secret: bytes, index: int) -> str:
    """The committed colours of the deck's shuffle ``index``, in position order."""
    items = list(FULL_BAG)
    source = _stream(b"\x13" + shuffle_secret(secret, index))
    for last in range(len(items) - 1, 0, -1):
        pick = _below(source, last + 1)
        items[last], items[pick] = items[pick], items[last]
    return "".join(items)


def deck_shuffle_leaf(secret: bytes, index: int) -> bytes:
    """The leaf of the deck's shuffle ``index``."""
    digests = shuffle_digests(shuffle_secret(secret, index), shuffle_colours(secret, index))
    return shuffle_leaf(shuffle_salt(secret, index), index, digests)


def key_leaves(secret: bytes, keys: int) -> list[bytes]:
    """Every key leaf of a deck, in order."""
    return [key_leaf(i, dice_key(secret, i)) for i in range(keys)]


def shuffle_leaves(secret: bytes, shuffles: int) -> list[bytes]:
    """Every shuffle leaf of a deck, in order."""
    return [deck_shuffle_leaf(secret, j) for j in range(shuffles)]


@dataclass(frozen=True)
class DeckRoots:
    """What a deck's log record commits."""

    keys: int
    root: bytes
    shuffles: int
    shuffles_root: bytes | None


def deck_roots(secret: bytes, keys: int, shuffles: int) -> DeckRoots:
    """The roots of a deck of ``keys`` keys and ``shuffles`` shuffles."""
    if len(secret) != SECRET_BYTES or keys < 1 or shuffles < 0:
        raise ValueError("a deck needs a 32-byte secret, a key or more, shuffles >= 0")
    root = merkle_root(key_leaves(secret, keys))
    bags = merkle_root(shuffle_leaves(secret, shuffles)) if shuffles else None
    return DeckRoots(keys, root, shuffles, bags)


def key_paths(secret: bytes, keys: int, wanted: Sequence[int]) -> dict[int, list[bytes]]:
    """The audit paths of keys ``wanted`` in the deck's key tree."""
    return audit_paths(key_leaves(secret, keys), wanted)[1]


def shuffle_paths(secret: bytes, shuffles: int, wanted: Sequence[int]) -> dict[int, list[bytes]]:
    """The audit paths of shuffles ``wanted`` in the deck's shuffle tree."""
    return audit_paths(shuffle_leaves(secret, shuffles), wanted)[1]


def seed_mix(seeds: Sequence[bytes | None]) -> bytes:
    """What the seeds in force add, one entry per seat (None: no seed from that seat)."""
    parts = [b"\x20"]
    for seed in seeds:
        if seed is None:
            parts.append(b"\x00")
            continue
        if not 1 <= len(seed) <= SEED_MAX_BYTES:
            raise ValueError(f"a seed is 1 to {SEED_MAX_BYTES} bytes, not {len(seed)}")
        parts.append(b"\x01" + bytes([len(seed)]) + seed)
    return _h(*parts)


def roll_faces(key: bytes, game: int, index: int, mix: bytes, count: int) -> tuple[int, ...]:
    """The ``count`` faces of the game's roll ``index`` (key ``index``)."""
    prefix = b"dice" + _n(game) + _n(index) + mix
    faces: list[int] = []
    counter = 0
    while len(faces) < count:
        block = hmac.new(key, prefix + counter.to_bytes(4, "big"), hashlib.sha256).digest()
        faces.extend(1 + b % 6 for b in block if b < 252)
        counter += 1
    return tuple(faces[:count])


def seat_faces(seat_key: bytes, count: int) -> tuple[int, ...]:
    """The first ``count`` faces of a seat draw: the faces of ``roll_faces`` with the seat key
    (key 0 of the game's first deck), game 0, roll 0 and the mix of no seats (``H(0x20)``):
    the draw is made before the game has an id or any seed."""
    return roll_faces(seat_key, 0, 0, seed_mix([]), count)


def drawing_order(game: int, index: int, mix: bytes) -> list[int]:
    """``sigma`` for the game's hand ``index``: the committed position of each drawn die."""
    order = list(range(BAG_SIZE))
    source = _stream(b"\x21" + _n(game) + _n(index) + mix)
    for last in range(BAG_SIZE - 1, 0, -1):
        pick = _below(source, last + 1)
        order[last], order[pick] = order[pick], order[last]
    return order


def drawn_colours(committed: str, order: Sequence[int]) -> str:
    """The hand's colours in drawing order: the committed shuffle read through ``order``."""
    return "".join(committed[position] for position in order)


@dataclass(frozen=True)
class Span:
    """A deck bound to a game: its first key and shuffle of the game, and its sizes."""

    first_key: int
    first_shuffle: int
    keys: int
    shuffles: int


def covering(spans: Sequence[Span], index: int, *, hand: bool) -> int | None:
    """Which of a game's decks (in the order bound) covers its key (``hand``: shuffle)
    ``index``: deck ``q`` covers from its first up to its size or the next deck's first,
    whichever comes sooner (a later deck takes over from its first key and shuffle on).
    None when none does (the game has used its decks up)."""
    for q, span in enumerate(spans):
        first, size = (span.first_shuffle, span.shuffles) if hand else (span.first_key, span.keys)
        end = first + size
        if q + 1 < len(spans):
            following = spans[q + 1]
            end = min(end, following.first_shuffle if hand else following.first_key)
        if first <= index < end:
            return q
    return None


def parse_seed(text: str) -> bytes:
    """A seed as sent: 2 to 128 hexadecimal digits (1 to 64 bytes). Raises ValueError."""
    if not isinstance(text, str) or not 2 <= len(text) <= 2 * SEED_MAX_BYTES or len(text) % 2:
        raise ValueError("a seed is 2 to 128 hexadecimal digits, an even number of them")
    if any(ch not in "0123456789abcdefABCDEF" for ch in text):
        raise ValueError("a seed is hexadecimal digits (0-9, a-f)")
    return bytes.fromhex(text)
