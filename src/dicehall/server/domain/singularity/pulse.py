"""Singularity as one viewer sees it: the counts now ("today" from their midnight) and the
latest moments they may see; what the API answers and the page shows."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection

from dicehall.server.core.models import User
from dicehall.server.domain.people import settings
from dicehall.server.domain.services import Services
from dicehall.server.domain.singularity import counts, feed


@dataclass(frozen=True)
class Pulse:
    """The counts and the latest moments, newest first."""

    counts: counts.Counts
    moments: list[feed.Moment]

    def as_json(self) -> dict[str, Any]:
        """As the API sends it."""
        return {
            "counts": self.counts.as_json(),
            "moments": [m.as_json() for m in self.moments],
        }


def pulse(
    conn: Connection, services: Services, viewer: User | None, limit: int = feed.SHOWN
) -> Pulse:
    """Singularity for ``viewer`` (None: a visitor, whose day is UTC's)."""
    zone = settings.parse(viewer.settings).time_zone if viewer is not None else None
    live = counts.live(conn, services, zone)
    return Pulse(live, feed.latest(conn, viewer.id if viewer is not None else None, limit))
