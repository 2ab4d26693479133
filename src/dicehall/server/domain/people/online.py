"""Who among some users is here now, as user search asks it: the one place search meets
presence (Who is here?)."""

from __future__ import annotations

from collections.abc import Collection

from dicehall.server.core.clock import now
from dicehall.server.domain.people.search import OnlineOf
from dicehall.server.domain.services import Services


def online_of(services: Services) -> OnlineOf:
    """A function telling which of some users are online now (seen in the last
    ``presence_online_seconds``; who hides from Who is here is never among them)."""

    def which(user_pks: Collection[int]) -> set[int]:
        return services.presence.online_among(user_pks, now())

    return which
