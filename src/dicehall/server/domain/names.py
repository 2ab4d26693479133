"""Names that look alike, and characters that hide or reorder text.

``fold`` brings a name to a form in which look-alikes are equal: Unicode's confusable
skeleton (UTS #39, with the data of the ``confusable_homoglyphs`` package: Cyrillic "а" and
Latin "a" have one skeleton, so have "m" and "rn"), then lower case, then the letters that
user ids may confuse among themselves merged (user ids keep the case they were written in
but are unique regardless of case, so "I", "l", "i" and "1" are one letter, as are "O", "o"
and "0"). User ids are ASCII, so the same folding of a stored user id is one SQL expression
(:func:`fold_sql`) that every database can evaluate.
"""

from __future__ import annotations

import functools
import re
import unicodedata

from sqlalchemy import ColumnElement, func
from sqlalchemy.orm import InstrumentedAttribute

#: Applied in this order after lower-casing, in Python and in SQL alike.
_ID_MERGES = (("0", "o"), ("1", "l"), ("i", "l"), ("rn", "m"))

#: Characters that reorder text (bidirectional embeddings, overrides, isolates, marks) or
#: are invisible (zero-width spaces and joiners, the word joiner, the byte order mark).
HIDDEN = frozenset(
    [chr(c) for c in range(0x202A, 0x202F)]
    + [chr(c) for c in range(0x2066, 0x206A)]
    + [chr(c) for c in range(0x200B, 0x2010)]
    + ["\u2060", "\ufeff", "\u061c"]
)

_SEPARATORS = re.compile(r"[\W_]+")


def hidden_character(text: str) -> str | None:
    """The first character of ``text`` that hides or reorders text, written as U+XXXX."""
    for char in text:
        if char in HIDDEN:
            return f"U+{ord(char):04X}"
    return None


def _unmarked(text: str) -> str:
    return text.replace("\u200e", "").replace("\u200f", "")


@functools.lru_cache(maxsize=1)
def _prototypes() -> dict[str, str]:
    """Each confusable character's representative: the same for all look-alikes of it."""
    from confusable_homoglyphs import confusables  # a large table: loaded at first use

    data: dict[str, list[dict[str, str]]] = confusables.confusables_data
    parent: dict[str, str] = {}

    def find(item: str) -> str:
        while parent.setdefault(item, item) != item:
            parent[item] = parent[parent[item]]
            item = parent[item]
        return item

    for source, targets in data.items():
        for target in targets:
            # The data was read from the comments of confusables.txt, which wrap
            # right-to-left characters in direction marks for display; those are no part of
            # the characters.
            a, b = _unmarked(source), _unmarked(target["c"])
            if a and b:
                parent[find(a)] = find(b)
    groups: dict[str, list[str]] = {}
    for item in list(parent):
        groups.setdefault(find(item), []).append(item)
    mapping: dict[str, str] = {}
    for members in groups.values():
        # A sequence is always the group's prototype (the data's sources are single
        # characters); otherwise prefer ASCII, then the lowest code point.
        sequences = [m for m in members if len(m) > 1]
        best = (
            min(sequences) if sequences else min(members, key=lambda m: (not m.isascii(), ord(m)))
        )
        for member in members:
            if len(member) == 1 and member != best:
                mapping[member] = best
    return mapping


def skeleton(text: str) -> str:
    """``text`` with every character replaced by its confusables' representative."""
    mapping = _prototypes()
    current = unicodedata.normalize("NFD", text)
    # A representative that is a sequence may hold characters that map on in turn.
    for _ in range(4):
        mapped = unicodedata.normalize("NFD", "".join(mapping.get(c, c) for c in current))
        if mapped == current:
            break
        current = mapped
    return current


def _merge(text: str) -> str:
    for old, new in _ID_MERGES:
        text = text.replace(old, new)
    return text


def fold(text: str) -> str:
    """The form of ``text`` under which look-alike names are equal."""
    return _merge(skeleton(text).lower())


def folds(text: str) -> frozenset[str]:
    """``fold`` of ``text`` as written, case-folded and NFKC-normalized: a name matches
    another when any of these equals the other's fold."""
    variants = {text, text.casefold(), unicodedata.normalize("NFKC", text)}
    return frozenset(fold(v) for v in variants)


def compact(folded: str) -> str:
    """A folded name without spaces, punctuation or underscores ("Dice Hall" -> one word)."""
    return _SEPARATORS.sub("", folded)


def words(folded: str) -> list[str]:
    """The words of a folded name."""
    return [w for w in _SEPARATORS.split(folded) if w]


def fold_sql(column: ColumnElement[str] | InstrumentedAttribute[str]) -> ColumnElement[str]:
    """``fold`` of an ASCII user id column, as SQL."""
    expression: ColumnElement[str] = func.lower(column)
    for old, new in _ID_MERGES:
        expression = func.replace(expression, old, new)
    return expression
