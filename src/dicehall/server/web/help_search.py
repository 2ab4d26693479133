"""Searching the help topics: every word asked must appear in a topic (its title or text,
case and accents aside); the topics whose titles hold the words come first, then those that
hold them most often; each hit quotes the blocks that hold them, the words marked."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from markupsafe import Markup, escape

from dicehall.server.web.content import Doc
from dicehall.server.web.markdown import plain_blocks

#: The longest search, in characters, and the most words one search looks for.
QUERY_MAX = 100
WORDS_MAX = 8
#: Quotes shown per topic, and the characters around the first word of a quote.
QUOTES = 2
QUOTE_AROUND = 90


@dataclass(frozen=True)
class Hit:
    """A topic that holds every word asked, and what it says about them."""

    doc: Doc
    title: Markup
    quotes: tuple[Markup, ...]


def _fold(text: str) -> str:
    """``text`` for comparing: case and accents aside, one character for each of ``text``'s
    (so a match's place in the folded text is its place in ``text``)."""
    return "".join(
        (unicodedata.normalize("NFD", ch)[0] if ch.isalpha() else ch).casefold()[:1] for ch in text
    )


def words_of(query: str) -> list[str]:
    """The words a search looks for: letters and digits, folded, each once, at most
    :data:`WORDS_MAX`."""
    found: list[str] = []
    for word in re.findall(r"\w+", _fold(query)):
        if word not in found:
            found.append(word)
    return found[:WORDS_MAX]


def _spans(text: str, words: Sequence[str]) -> list[tuple[int, int]]:
    """Where ``words`` occur in ``text``, merged where they overlap, in order."""
    folded = _fold(text)
    spans = sorted(
        (m.start(), m.end()) for word in words for m in re.finditer(re.escape(word), folded)
    )
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def marked(text: str, words: Sequence[str]) -> Markup:
    """``text`` escaped, each occurrence of ``words`` in a ``<mark>``."""
    out: list[str] = []
    at = 0
    for start, end in _spans(text, words):
        out.append(str(escape(text[at:start])))
        out.append(f"<mark>{escape(text[start:end])}</mark>")
        at = end
    out.append(str(escape(text[at:])))
    return Markup("".join(out))


def _quote(block: str, words: Sequence[str]) -> Markup:
    """The part of ``block`` around its first word, marked."""
    spans = _spans(block, words)
    first = spans[0][0] if spans else 0
    start = max(0, first - QUOTE_AROUND)
    end = min(len(block), first + 2 * QUOTE_AROUND)
    if start > 0:
        start = block.find(" ", start) + 1 or start
    if end < len(block):
        space = block.rfind(" ", first, end)
        end = space if space > first else end
    text = block[start:end]
    return (
        Markup("…" if start > 0 else "")
        + marked(text, words)
        + Markup("…" if end < len(block) else "")
    )


def search(docs: Iterable[Doc], query: str) -> list[Hit]:
    """The topics that hold every word of ``query``, best first (none for a query without
    words)."""
    words = words_of(query)
    if not words:
        return []
    scored: list[tuple[int, int, int, Hit]] = []
    for place, doc in enumerate(docs):
        blocks = plain_blocks(doc.body)
        everything = _fold(" ".join([doc.title, *blocks]))
        if not all(word in everything for word in words):
            continue
        in_title = sum(word in _fold(doc.title) for word in words)
        count = sum(everything.count(word) for word in words)
        holding = [b for b in blocks if _spans(b, words)]
        # Blocks holding the most different words first, in the topic's own order.
        holding.sort(key=lambda b: -sum(word in _fold(b) for word in words))
        hit = Hit(doc, marked(doc.title, words), tuple(_quote(b, words) for b in holding[:QUOTES]))
        scored.append((-in_title, -count, place, hit))
    return [hit for *_, hit in sorted(scored, key=lambda s: s[:3])]
