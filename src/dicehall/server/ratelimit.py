"""Fixed-window rate limits for log-in and sign-up, in memory or shared through Redis.

A limiter counts hits per key (``"login:ip:203.0.113.7"``, ``"login:user:..."``) in windows
of ``window`` seconds that start at a key's first hit. The ``limit + 1``-th hit inside a
window is refused and told how many seconds remain until the window ends. One process keeps
its counts in memory; with ``redis_url`` set every server process counts in the same Redis,
so the limit holds across processes.
"""

from __future__ import annotations

import hashlib
import logging
import math
import threading
import time
from collections.abc import Callable, Iterable
from typing import Protocol

import redis

from dicehall.server.config import Settings

log = logging.getLogger(__name__)

#: Seconds in a window: ``auth_rate_per_minute`` is counted per minute.
WINDOW_SECONDS = 60
REDIS_PREFIX = "dicehall:ratelimit:"


class RateLimiter(Protocol):
    """Counts hits per key and says when a key is over its limit."""

    def hit(self, keys: Iterable[str]) -> int | None:
        """Count one hit on each key; the seconds to wait if any is over its limit, else None."""
        ...  # pragma: no cover - a protocol


def bucket(kind: str, scope: str, value: str) -> str:
    """A limiter key of bounded size: ``kind:scope:`` and a digest of what the client sent."""
    return (
        f"{kind}:{scope}:{hashlib.sha256(value.encode('utf-8', 'surrogatepass')).hexdigest()[:32]}"
    )


class MemoryLimiter:
    """Fixed windows counted in this process (thread-safe)."""

    def __init__(
        self,
        limit: int,
        window: float = WINDOW_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.limit = limit
        self.window = window
        self._clock = clock
        self._lock = threading.Lock()
        #: key -> (window start, hits in that window)
        self._counts: dict[str, tuple[float, int]] = {}
        self._next_sweep = clock() + window

    def hit(self, keys: Iterable[str]) -> int | None:
        """Count one hit on each key; the seconds to wait if any is over its limit, else None."""
        wait = 0.0
        with self._lock:
            moment = self._clock()
            self._sweep(moment)
            for key in keys:
                start, count = self._counts.get(key, (moment, 0))
                if moment - start >= self.window:
                    start, count = moment, 0
                count += 1
                self._counts[key] = (start, count)
                if count > self.limit:
                    wait = max(wait, start + self.window - moment)
        return max(1, math.ceil(wait)) if wait > 0 else None

    def _sweep(self, moment: float) -> None:
        # Forget ended windows now and then, so memory follows the clients of the last window.
        if moment < self._next_sweep:
            return
        self._next_sweep = moment + self.window
        ended = [k for k, (start, _) in self._counts.items() if moment - start >= self.window]
        for key in ended:
            del self._counts[key]


class RedisLimiter:
    """Fixed windows counted in Redis, shared by every server process that uses it.

    When Redis cannot be reached the hit is allowed (and logged): a Redis outage must not
    lock everyone out of the site.
    """

    def __init__(
        self,
        client: redis.Redis,
        limit: int,
        window: int = WINDOW_SECONDS,
        prefix: str = REDIS_PREFIX,
    ) -> None:
        self.client = client
        self.limit = limit
        self.window = window
        self.prefix = prefix

    def hit(self, keys: Iterable[str]) -> int | None:
        """Count one hit on each key; the seconds to wait if any is over its limit, else None."""
        names = [self.prefix + key for key in keys]
        try:
            pipe = self.client.pipeline(transaction=True)
            for name in names:
                # The window starts with the key's first hit and ends when the key expires.
                pipe.set(name, 0, ex=self.window, nx=True)
                pipe.incr(name)
                pipe.ttl(name)
            replies = pipe.execute()
        except redis.RedisError:
            log.warning("rate limit not checked: Redis is unreachable", exc_info=True)
            return None
        wait = 0
        for index, name in enumerate(names):
            count, ttl = int(replies[3 * index + 1]), int(replies[3 * index + 2])
            if ttl < 0:
                # The key outlived its expiry by a race; give it one again so it cannot
                # block forever.
                self._expire(name)
                ttl = self.window
            if count > self.limit:
                wait = max(wait, ttl)
        return wait or None

    def _expire(self, name: str) -> None:
        try:
            self.client.expire(name, self.window)
        except redis.RedisError:  # pragma: no cover - Redis went away mid-request
            log.warning("could not set a rate limit window's expiry", exc_info=True)


def make_limiter(settings: Settings) -> RateLimiter:
    """The limiter for log-in and sign-up: through Redis when ``redis_url`` is set."""
    if settings.redis_url:
        client = redis.Redis.from_url(
            settings.redis_url, socket_timeout=1.0, socket_connect_timeout=1.0
        )
        return RedisLimiter(client, settings.auth_rate_per_minute)
    return MemoryLimiter(settings.auth_rate_per_minute)
