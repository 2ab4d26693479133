"""Moments on pages: "5 minutes ago", with the exact UTC time for a tooltip and <time>."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from dicehall.server.core.clock import aware, now

_UNITS = (("day", 86_400), ("hour", 3_600), ("minute", 60))


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
    """A moment as a page shows it."""

    iso: str
    ago: str
    exact: str


def moment(iso: str, at: datetime | None = None) -> Moment:
    """An ISO 8601 time (as the API gives it) for a page."""
    when = aware(datetime.fromisoformat(iso))
    return Moment(when.isoformat(), ago(when, at), when.strftime("%Y-%m-%d %H:%M UTC"))
