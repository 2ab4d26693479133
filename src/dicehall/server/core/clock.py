"""The site's clock (UTC, timezone-aware), in one place so tests can reason about it."""

from __future__ import annotations

from datetime import UTC, datetime


def now() -> datetime:
    """The current time in UTC."""
    return datetime.now(UTC)


def aware(moment: datetime) -> datetime:
    """``moment`` as an aware UTC datetime (SQLite hands back naive ones)."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
