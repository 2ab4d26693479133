"""Markdown to safe HTML for the rules, help and news pages: raw HTML in the text is escaped,
never passed."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from markupsafe import Markup

if TYPE_CHECKING:
    from markdown_it import MarkdownIt


@functools.lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    from markdown_it import MarkdownIt

    # "html": False escapes any raw HTML; markdown-it also refuses javascript: and data: links.
    return MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")


def to_html(text: str) -> Markup:
    """``text`` (Markdown) as HTML that is safe to put into a page."""
    return Markup(_parser().render(text))


@functools.lru_cache(maxsize=32)
def rules_html(game: str, text: str) -> Markup:
    """A game's rules as HTML (cached: the rules do not change while the site runs)."""
    del game  # part of the cache key only
    return to_html(text)


def plain_blocks(text: str) -> list[str]:
    """``text``'s blocks (headings, paragraphs, list items, table cells) as plain text, in
    order, without Markdown's marks: what a search reads and quotes."""
    blocks = []
    for token in _parser().parse(text):
        if token.type == "inline" and token.children is not None:
            words = "".join(
                " " if child.type in ("softbreak", "hardbreak") else child.content
                for child in token.children
                if child.type in ("text", "code_inline", "softbreak", "hardbreak")
            )
            if words.strip():
                blocks.append(words.strip())
    return blocks
