"""Moments on pages: "5 minutes ago", with the exact time for a tooltip and <time>, in the
viewer's time zone ("Mon 7 Dec 2026, 23:05 CET").

The zone is the signed-in viewer's ``time_zone`` setting (UTC for visitors). It is not
threaded through every handler: :func:`dicehall.server.web.render.page` draws each page
inside :func:`viewer_zone`, and a :class:`Moment` (or an :class:`Exact`) words its time when
the template reads it, so every page that shows a moment shows it in the viewer's zone.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime

from dicehall.server.core.clock import aware, now
from dicehall.server.domain.games.notice_texts import exact_time

_UNITS = (("day", 86_400), ("hour", 3_600), ("minute", 60))

#: The zone of the viewer whose page is being drawn (None: UTC).
_ZONE: ContextVar[str | None] = ContextVar("viewer_zone", default=None)


@contextmanager
def viewer_zone(name: str | None) -> Iterator[None]:
    """Word every moment drawn inside in the zone ``name`` (None: UTC)."""
    token = _ZONE.set(name)
    try:
        yield
    finally:
        _ZONE.reset(token)


def exact(when: datetime | str | None, zone_name: str | None = None) -> str:
    """``when`` (a datetime, or ISO text) as people read it in ``zone_name`` (by default the
    viewer's zone): "Mon 7 Dec 2026, 23:05 CET"; "" for None."""
    if when is None or when == "":
        return ""
    moment_at = datetime.fromisoformat(when) if isinstance(when, str) else when
    return exact_time(aware(moment_at), zone_name or _ZONE.get())


def ago(moment: datetime, at: datetime | None = None) -> str:
    """How long before ``at`` (now by default) ``moment`` was, in the largest whole unit."""
    seconds = ((at or now()) - aware(moment)).total_seconds()
    for unit, size in _UNITS:
        if seconds >= size:
            count = int(seconds // size)
            return f"{count} {unit}{'s' if count != 1 else ''} ago"
    return "just now"


@dataclass(frozen=True)
class Moment:
    """A moment as a page shows it: ISO text for ``<time>``, how long ago, and (worded when
    the page is drawn) the exact time in the viewer's zone."""

    iso: str
    ago: str

    @property
    def exact(self) -> str:
        """The exact time in the viewer's zone ("Mon 7 Dec 2026, 23:05 CET")."""
        return exact(self.iso)


@dataclass(frozen=True)
class Exact:
    """A moment's exact time, worded in the viewer's zone when the page is drawn (and
    ``suffix`` after it): for text made before the page."""

    when: datetime
    suffix: str = ""

    def __str__(self) -> str:
        return exact(self.when) + self.suffix


def moment(iso: str, at: datetime | None = None) -> Moment:
    """An ISO 8601 time (as the API gives it) for a page."""
    when = aware(datetime.fromisoformat(iso))
    return Moment(when.isoformat(), ago(when, at))
