"""The site's own texts, shipped in the package as Markdown files under ``web/content/``: the
help topics (``content/help/``), the news (``content/news/``) and the release notes
(``content/releases/``).

Each file starts with a small front matter between two ``---`` lines, one ``key: value`` a
line: a help topic has ``title`` and ``order``; a post has ``title``, ``date`` (ISO, UTC)
and ``summary``. The file's name (without ``.md``) is its slug, the last part of its
address. A file that breaks these rules stops the folder from loading with its name and
what is wrong (``tests/web/test_info_pages.py`` loads every folder).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime
from importlib import resources
from typing import Literal

from markupsafe import Markup

from dicehall.server.web.markdown import to_html

Folder = Literal["help", "news", "releases"]

#: The keys each folder's files must have (and the only ones they may have).
KEYS: dict[Folder, frozenset[str]] = {
    "help": frozenset({"title", "order"}),
    "news": frozenset({"title", "date", "summary"}),
    "releases": frozenset({"title", "date", "summary"}),
}
#: What a slug may be: it is part of an address.
SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_FENCE = "---"


class ContentError(ValueError):
    """A content file the site cannot use (its name and what is wrong with it)."""


@dataclass(frozen=True)
class Doc:
    """One help topic or post."""

    slug: str
    title: str
    #: The Markdown below the front matter.
    body: str
    order: int = 0
    #: When a post was published (midnight UTC when only a day is given).
    published: datetime | None = None
    summary: str = ""

    @functools.cached_property
    def html(self) -> Markup:
        """The body as safe HTML."""
        return to_html(self.body)


def parse(name: str, text: str, folder: Folder) -> Doc:
    """The doc in file ``name`` (``slug.md``) of ``folder``; :class:`ContentError` for a file
    the site cannot use."""
    slug = name.removesuffix(".md")
    if not name.endswith(".md") or not SLUG.fullmatch(slug):
        raise ContentError(f"{folder}/{name}: the name must be a slug (a-z, 0-9, -) and .md")
    lines = text.splitlines()
    if not lines or lines[0].strip() != _FENCE or _FENCE not in (s.strip() for s in lines[1:]):
        raise ContentError(f"{folder}/{name}: it must start with front matter between --- lines")
    end = next(i for i, line in enumerate(lines[1:], 1) if line.strip() == _FENCE)
    meta: dict[str, str] = {}
    for line in lines[1:end]:
        key, colon, value = line.partition(":")
        if not colon or not key.strip() or not value.strip():
            raise ContentError(f"{folder}/{name}: {line!r} is not 'key: value'")
        meta[key.strip()] = value.strip()
    if set(meta) != KEYS[folder]:
        wanted = ", ".join(sorted(KEYS[folder]))
        raise ContentError(f"{folder}/{name}: the front matter must have exactly {wanted}")
    body = "\n".join(lines[end + 1 :]).strip() + "\n"
    if folder == "help":
        if not meta["order"].isdigit():
            raise ContentError(f"{folder}/{name}: order must be a whole number")
        return Doc(slug, meta["title"], body, order=int(meta["order"]))
    return Doc(
        slug,
        meta["title"],
        body,
        published=_moment(folder, name, meta["date"]),
        summary=meta["summary"],
    )


def _moment(folder: str, name: str, text: str) -> datetime:
    try:
        moment = (
            datetime.fromisoformat(text)
            if "T" in text
            else datetime.combine(date.fromisoformat(text), datetime.min.time())
        )
    except ValueError as exc:
        raise ContentError(f"{folder}/{name}: date {text!r} is not an ISO date") from exc
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


@functools.cache
def docs(folder: Folder) -> tuple[Doc, ...]:
    """Every doc of ``folder``: help topics by their order, posts newest first (read once:
    the files do not change while the site runs)."""
    root = resources.files("dicehall.server.web").joinpath("content", folder)
    found = [
        parse(item.name, item.read_text(encoding="utf-8"), folder)
        for item in root.iterdir()
        if item.is_file() and not item.name.startswith(".")
    ]
    if folder == "help":
        return tuple(sorted(found, key=lambda d: (d.order, d.slug)))
    oldest = datetime.min.replace(tzinfo=UTC)
    return tuple(sorted(found, key=lambda d: (d.published or oldest, d.slug), reverse=True))


def find(folder: Folder, slug: str) -> Doc | None:
    """The doc of ``folder`` named ``slug``, if there is one."""
    return next((d for d in docs(folder) if d.slug == slug), None)
