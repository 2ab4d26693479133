"""User-written text as safe HTML with its web addresses made links.

Every piece of the text is escaped; only ``http://`` and ``https://`` addresses with a host
become links, and the link carries ``rel="nofollow noopener noreferrer"``. Line breaks stay
characters (the page shows them with ``white-space: pre-wrap``). The message page's script
does the same for messages that arrive live (``static/js/message-text.js``).
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from markupsafe import Markup, escape

#: An address runs to the first space or character that cannot be in one unescaped.
_ADDRESS = re.compile(r"https?://[^\s<>\"'`]+", re.IGNORECASE)
#: Punctuation that ends a sentence rather than an address ("see http://x.org.").
_TRAILING = ".,;:!?'\""
_CLOSING = {")": "(", "]": "[", "}": "{"}
_LINK = Markup('<a href="{0}" rel="nofollow noopener noreferrer">{0}</a>')


def _trimmed(address: str) -> str:
    """``address`` without the punctuation after it; a closing bracket stays when the
    address opened one (``https://en.wikipedia.org/wiki/Dice_(disambiguation)``)."""
    while address:
        last = address[-1]
        unopened = last in _CLOSING and address.count(_CLOSING[last]) < address.count(last)
        if last not in _TRAILING and not unopened:
            break
        address = address[:-1]
    return address


def _is_link(address: str) -> bool:
    try:
        parts = urlsplit(address)
    except ValueError:
        return False
    return parts.scheme.lower() in ("http", "https") and bool(parts.netloc)


def linkify(text: str) -> Markup:
    """``text`` escaped, its http(s) addresses wrapped in links."""
    pieces: list[Markup] = []
    done = 0
    for found in _ADDRESS.finditer(text):
        address = _trimmed(found.group())
        if not _is_link(address):
            continue
        pieces.append(escape(text[done : found.start()]))
        pieces.append(_LINK.format(address))
        done = found.start() + len(address)
    pieces.append(escape(text[done:]))
    return Markup("").join(pieces)
