"""A growing delay between log-in tries at one account, wherever they come from.

The limits of :mod:`.ratelimit` count per client, so a guesser with many addresses is never
slowed by them. This one counts per account (the user id tried, whether or not an account
has it, so that a delay tells nobody which ids exist): a try is free while fewer than
:data:`FREE_FAILURES` tries failed in the last :data:`FAILURE_WINDOW` seconds (a try still
checking its password counts as failed until it is known to have passed, so guesses sent
all at once get no more free tries than guesses sent one by one); from then on one try may
start at a time, and the next only 1 s, 2 s, 4 s ... (at most :data:`LONGEST_DELAY`) after
it. A try that comes sooner is refused before the password is checked and is not counted.

Nobody locks the owner out this way: the caller lets through, untouched by this delay, a
try that carries the owner's device proof (a signed cookie a browser gets when it signs in;
see :mod:`dicehall.server.domain.login_guard`).

The counts live in the same store as the other limits: this process's memory, or Redis
(under the site's prefix) shared by every server process, with memory as the fallback
while Redis is down. A moving window (the ``limits`` library's) holds the failures; one
counter with a time to live, claimed atomically, is the turn of the next try.
"""

from __future__ import annotations

import math
import time
from typing import Protocol

from limits import RateLimitItemPerSecond
from limits.storage import MemoryStorage, Storage
from limits.strategies import MovingWindowRateLimiter

from dicehall.server.core.config import Settings
from dicehall.server.core.sitename import redis_prefix, site_name
from dicehall.server.infra.ratelimit import Failover, redis_storage

#: Failed tries at one account in :data:`FAILURE_WINDOW` seconds before the delay starts.
FREE_FAILURES = 5
FAILURE_WINDOW = 15 * 60
#: The longest wait between two tries, in seconds.
LONGEST_DELAY = 5 * 60
#: Failures remembered per account: enough to reach the longest delay.
_FAILURES_KEPT = 32
#: How long a try's place among those in flight outlives it, should it never land (its
#: process died): far longer than a password check.
_FLIGHT = 60


def delay_after(failures: int) -> int:
    """Seconds the next try waits once ``failures`` tries failed within the window: none
    below :data:`FREE_FAILURES`, then 1, 2, 4 ... up to :data:`LONGEST_DELAY`."""
    if failures < FREE_FAILURES:
        return 0
    return int(min(2 ** (failures - FREE_FAILURES), LONGEST_DELAY))


class AccountThrottle(Protocol):
    """The per-account delay between log-in tries."""

    def claim(self, account: str) -> int | None:
        """Take the turn of a try at ``account``: None when it may go on now (then it is in
        flight until :meth:`failed` or :meth:`passed`), else the seconds until it may."""
        ...  # pragma: no cover - a protocol

    def failed(self, account: str) -> None:
        """Count a try at ``account`` that failed."""
        ...  # pragma: no cover - a protocol

    def passed(self, account: str) -> None:
        """A try at ``account`` that did not fail (right password, or refused otherwise)."""
        ...  # pragma: no cover - a protocol


class StoredThrottle:
    """The delay counted in one ``limits`` storage."""

    def __init__(self, storage: Storage) -> None:
        self._storage = storage
        self._windows = MovingWindowRateLimiter(storage)
        self._failures = RateLimitItemPerSecond(_FAILURES_KEPT, FAILURE_WINDOW)

    def failures(self, account: str) -> int:
        """The failed tries at ``account`` within the window (at most 32 are kept)."""
        stats = self._windows.get_window_stats(self._failures, f"{account}:failed")
        return _FAILURES_KEPT - stats.remaining

    def claim(self, account: str) -> int | None:
        """Take the turn of a try (see :meth:`AccountThrottle.claim`)."""
        # Tries in flight (this one too) count as failed until they land: guesses sent
        # together, each claimed before any has failed, are held up as if sent one by one.
        flying = max(1, self._storage.incr(f"{account}:flying", _FLIGHT))
        delay = delay_after(self.failures(account) + flying)
        if not delay:
            return None
        # The turn lasts as long as the wait after this try, should it fail: a counter
        # made with that time to live, which only its first claimer sees at 1.
        turn = f"{account}:turn"
        if self._storage.incr(turn, delay) == 1:
            return None
        self._land(account)  # refused: not in flight
        return max(1, math.ceil(self._storage.get_expiry(turn) - time.time()))

    def failed(self, account: str) -> None:
        """Count a failed try (see :meth:`AccountThrottle.failed`)."""
        self._windows.hit(self._failures, f"{account}:failed")
        self._land(account)

    def passed(self, account: str) -> None:
        """A try that did not fail lands (see :meth:`AccountThrottle.passed`)."""
        self._land(account)

    def _land(self, account: str) -> None:
        self._storage.incr(f"{account}:flying", _FLIGHT, amount=-1)


class MemoryThrottle(StoredThrottle):
    """The delay counted in this process's memory."""

    def __init__(self) -> None:
        super().__init__(MemoryStorage())


class RedisThrottle:
    """The delay counted in Redis (under ``prefix``), shared by every server process, and in
    this process's memory while Redis is down (see :class:`~.ratelimit.Failover`)."""

    def __init__(self, url: str, prefix: str) -> None:
        self.prefix = prefix
        self.shared = StoredThrottle(redis_storage(url, prefix))
        self.fallback = MemoryThrottle()
        self._failover = Failover()

    def claim(self, account: str) -> int | None:
        """Take the turn of a try (see :meth:`AccountThrottle.claim`)."""
        return self._failover.run(
            lambda: self.shared.claim(account), lambda: self.fallback.claim(account)
        )

    def failed(self, account: str) -> None:
        """Count a failed try (see :meth:`AccountThrottle.failed`)."""
        self._failover.run(
            lambda: self.shared.failed(account), lambda: self.fallback.failed(account)
        )

    def passed(self, account: str) -> None:
        """A try that did not fail lands (see :meth:`AccountThrottle.passed`)."""
        self._failover.run(
            lambda: self.shared.passed(account), lambda: self.fallback.passed(account)
        )


def make_throttle(settings: Settings) -> AccountThrottle:
    """The per-account delay: through Redis (under the site's prefix) when ``redis_url`` is
    set, else in this process's memory."""
    if settings.redis_url:
        prefix = redis_prefix(site_name(settings)) + "ratelimit:"
        return RedisThrottle(settings.redis_url, prefix)
    return MemoryThrottle()
