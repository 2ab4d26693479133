"""Scheme 3 as docs/site.md states it: the worked example's lines are in the docs, and each
value is rebuilt from the docs' words with nothing but hashlib and hmac (an independent
implementation, not the package's); faces and drawing orders are fair in shape, and the
rule of which deck covers which key."""

from __future__ import annotations

import hashlib
import hmac
from collections import Counter
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from dicehall.fairness import decks
from dicehall.fairness.deck_example import GAME, KEYS, SECRET, lines

DOCS = Path(__file__).resolve().parents[2] / "docs" / "site.md"


def h(*parts: bytes) -> bytes:
    return hashlib.sha256(b"".join(parts)).digest()


def n8(value: int) -> bytes:
    return value.to_bytes(8, "big")


def test_the_docs_show_the_worked_example_as_the_code_computes_it() -> None:
    text = DOCS.read_text()
    for line in lines():
        assert line in text, line


def test_keys_leaves_faces_and_orders_rebuilt_from_the_docs_words() -> None:
    key0 = h(b"\x10", SECRET, n8(0))
    assert key0 == decks.dice_key(SECRET, 0)
    assert h(b"\x00", b"K", n8(0), key0) == decks.key_leaf(0, key0)
    mix = h(b"\x20", b"\x01", bytes([1]), b"\xab", b"\x00")
    assert mix == decks.seed_mix([b"\xab", None])
    faces: list[int] = []
    counter = 0
    while len(faces) < 5:
        block = hmac.new(
            key0, b"dice" + n8(GAME) + n8(0) + mix + counter.to_bytes(4, "big"), hashlib.sha256
        ).digest()
        faces += [1 + b % 6 for b in block if b < 252]
        counter += 1
    assert tuple(faces[:5]) == decks.roll_faces(key0, GAME, 0, mix, 5)

    def fisher_yates(items: list[Any], prefix: bytes) -> list[Any]:
        stream = b"".join(h(prefix, c.to_bytes(4, "big")) for c in range(64))
        at = 0
        for last in range(len(items) - 1, 0, -1):
            k = last + 1
            while stream[at] >= 256 - 256 % k:
                at += 1
            pick = stream[at] % k
            at += 1
            items[last], items[pick] = items[pick], items[last]
        return items

    order = fisher_yates(list(range(20)), b"\x21" + n8(GAME) + n8(0) + mix)
    assert order == decks.drawing_order(GAME, 0, mix)
    s0 = h(b"\x11", SECRET, n8(0))
    colours = "".join(fisher_yates(list("rrrrrkkkkkwwwwwyyyyy"), b"\x13" + s0))
    assert colours == decks.shuffle_colours(SECRET, 0)
    assert decks.deck_roots(SECRET, KEYS, 0).shuffles_root is None


@settings(max_examples=30, deadline=None)
@given(key=st.binary(min_size=32, max_size=32), index=st.integers(0, 10**6),
       seed=st.binary(min_size=1, max_size=64))  # fmt: skip
def test_a_seed_changes_the_dice_and_faces_are_always_one_to_six(
    key: bytes, index: int, seed: bytes
) -> None:
    plain = decks.roll_faces(key, 1, index, decks.seed_mix([None]), 40)
    seeded = decks.roll_faces(key, 1, index, decks.seed_mix([seed]), 40)
    assert plain != seeded
    assert all(1 <= f <= 6 for f in plain + seeded)


def test_faces_and_drawing_orders_are_even() -> None:
    counts = Counter(
        f for i in range(3000) for f in decks.roll_faces(bytes(32), 1, i, b"m" * 32, 6)
    )
    expected = 3000
    assert all(abs(counts[f] - expected) < 0.1 * expected for f in range(1, 7)), counts
    first = Counter(decks.drawing_order(1, j, b"m" * 32)[0] for j in range(4000))
    assert len(first) == 20 and max(first.values()) < 2 * min(first.values())


def test_which_deck_covers_a_key() -> None:
    spans = [decks.Span(0, 0, 3, 2), decks.Span(3, 2, 3, 2), decks.Span(4, 4, 3, 2)]
    assert [decks.covering(spans, k, hand=False) for k in range(8)] == [0, 0, 0, 1, 2, 2, 2, None]
    assert [decks.covering(spans, j, hand=True) for j in range(7)] == [0, 0, 1, 1, 2, 2, None]


def test_a_seed_is_hex_of_one_to_64_bytes() -> None:
    assert decks.parse_seed("aB") == b"\xab"
    for bad in ("", "a", "zz", "a b", "0" * 130, " ab"):
        try:
            decks.parse_seed(bad)
        except ValueError:
            continue
        raise AssertionError(f"{bad!r} was taken for a seed")
