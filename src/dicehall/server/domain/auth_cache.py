"""Who a credential belongs to, remembered for a second: most requests then find their user
without a database round trip or a worker thread.

Only a credential the database has just accepted is remembered (a refusal leaves nothing
here), for :data:`TTL` seconds, so a revoked token, an ended session or a changed setting is
seen by every process within a second; this process forgets at once, since whatever changes
a user, a session or a token calls :func:`credentials_changed`. A session's expiry and CSRF
token are kept with it and checked on every request as ``api.deps.quick_user`` checks them.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

#: How long an accepted credential is believed without asking the database again.
TTL = 1.0
#: At most this many credentials are remembered; more, and the oldest half is forgotten.
CAPACITY = 10_000

_generation = 0


def credentials_changed() -> None:
    """A user row, a session or a token changed in this process: forget every credential
    (in every cache of the process; such changes are rare) and refuse what a read begun
    before now would put back."""
    global _generation
    _generation += 1


def generation() -> int:
    """The current generation: take it before reading a credential, give it to ``put``."""
    return _generation


@dataclass(frozen=True)
class Accepted:
    """A credential's user row as the database gave it, and until when it is believed."""

    row: Any
    until: float
    generation: int


class AuthCache:
    """Accepted credentials by kind and digest (``("token", digest)``, ``("session", ...)``)."""

    def __init__(
        self,
        ttl: float = TTL,
        capacity: int = CAPACITY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.ttl = ttl
        self.clock = clock
        self.capacity = capacity
        self._lock = threading.Lock()
        self._entries: dict[tuple[str, str], Accepted] = {}

    def get(self, key: tuple[str, str]) -> Any | None:
        """The row remembered for ``key``, or None (unknown, or older than the TTL)."""
        found = self._entries.get(key)
        if found is None or found.until < self.clock() or found.generation != _generation:
            return None
        return found.row

    def put(self, key: tuple[str, str], row: Any, read_at: int) -> None:
        """Remember an accepted credential's row, read at generation ``read_at`` (nothing is
        remembered when the credentials changed since)."""
        if read_at != _generation:
            return
        with self._lock:
            if len(self._entries) >= self.capacity:
                oldest = sorted(self._entries.items(), key=lambda item: item[1].until)
                self._entries = dict(oldest[len(oldest) // 2 :])
            self._entries[key] = Accepted(row, self.clock() + self.ttl, read_at)

    def clear(self) -> None:
        """Forget everything."""
        with self._lock:
            self._entries.clear()
