"""Time zones: which names are known, and a moment as a user reads it."""

from __future__ import annotations

import functools
import zoneinfo
from datetime import UTC, datetime, tzinfo


@functools.cache
def known_zones() -> frozenset[str]:
    """Every IANA zone name this machine knows (the tzdata package)."""
    return frozenset(zoneinfo.available_timezones()) | {"UTC"}


def check_time_zone(name: str) -> str:
    """``name`` if it is a known IANA zone, else ValueError (a settings field's check)."""
    if name not in known_zones():
        raise ValueError(f"unknown time zone {name[:60]!r} (an IANA name such as Europe/Paris)")
    return name


def zone(name: str | None) -> tzinfo:
    """The zone ``name`` (UTC for none or an unknown name: old data never breaks a page)."""
    if not name or name not in known_zones():
        return UTC
    return zoneinfo.ZoneInfo(name)


def local(moment: datetime, name: str | None) -> datetime:
    """``moment`` in the zone ``name``."""
    return moment.astimezone(zone(name))
