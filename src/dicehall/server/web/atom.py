"""Atom feeds (RFC 4287) of the site's posts: the news and the release notes.

Every address in a feed is absolute, made from the site's ``site_url`` setting (a feed
reader has no page to resolve a relative link against); the entries' own links, written
relative in Markdown, resolve against the feed's ``xml:base``. An entry's id is its page's
address, which never changes while the post keeps its file name.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from xml.etree import ElementTree

from dicehall.server.web.content import Doc

NS = "http://www.w3.org/2005/Atom"
XML_BASE = "{http://www.w3.org/XML/1998/namespace}base"
MEDIA_TYPE = "application/atom+xml; charset=utf-8"
#: The feed's ``updated`` while it has no entry.
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# Atom as the default namespace: elements written <feed>, not <ns0:feed>.
ElementTree.register_namespace("", NS)


def _add(parent: ElementTree.Element, tag: str, text: str | None = None, **attrs: str) -> None:
    child = ElementTree.SubElement(parent, f"{{{NS}}}{tag}", attrs)
    child.text = text


def _moment(doc: Doc) -> str:
    return (doc.published or EPOCH).isoformat()


def feed(site_url: str, path: str, title: str, docs: Sequence[Doc]) -> bytes:
    """The Atom feed of ``docs`` (newest first) whose HTML page is ``path`` on ``site_url``
    (the feed itself is ``path.atom``, each entry ``path/slug``), as UTF-8 XML."""
    site = site_url.rstrip("/")
    root = ElementTree.Element(f"{{{NS}}}feed", {XML_BASE: f"{site}/"})
    _add(root, "id", f"{site}{path}")
    _add(root, "title", title)
    _add(root, "updated", max((d.published or EPOCH for d in docs), default=EPOCH).isoformat())
    author = ElementTree.SubElement(root, f"{{{NS}}}author")
    _add(author, "name", "dicehall")
    _add(root, "link", rel="self", type="application/atom+xml", href=f"{site}{path}.atom")
    _add(root, "link", rel="alternate", type="text/html", href=f"{site}{path}")
    for doc in docs:
        entry = ElementTree.SubElement(root, f"{{{NS}}}entry")
        address = f"{site}{path}/{doc.slug}"
        _add(entry, "id", address)
        _add(entry, "title", doc.title)
        _add(entry, "updated", _moment(doc))
        _add(entry, "published", _moment(doc))
        _add(entry, "link", rel="alternate", type="text/html", href=address)
        _add(entry, "summary", doc.summary)
        _add(entry, "content", str(doc.html), type="html")
    written: bytes = ElementTree.tostring(root, encoding="utf-8", xml_declaration=True)
    return written
