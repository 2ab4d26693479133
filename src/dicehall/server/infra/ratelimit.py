"""Rate limits for log-in and sign-up, in memory or shared through Redis, by ``limits``.

A limiter counts hits per key (``"login:ip:..."``, ``"login:ip-user:..."``) over a moving
window of ``window`` seconds (the ``limits`` library's moving-window strategy): a hit when
``limit`` hits already fall in the last ``window`` seconds is refused (and not counted) and
told how many seconds remain until the oldest of them leaves the window. One
process keeps its counts in memory; with ``redis_url`` set every server process counts in the
same Redis (under the site's prefix), so the limit holds across processes. While Redis cannot
be reached, each process counts in its own memory instead, so the limits never switch off.
"""

from __future__ import annotations

import hashlib
import ipaddress
import logging
import math
import threading
import time
from collections.abc import Callable, Iterable
from typing import Protocol, TypeVar

from limits import RateLimitItem, RateLimitItemPerSecond
from limits.errors import StorageError
from limits.storage import MemoryStorage, RedisStorage, Storage
from limits.strategies import MovingWindowRateLimiter

from dicehall.server.core.config import Settings
from dicehall.server.core.sitename import redis_prefix, site_name

log = logging.getLogger(__name__)
T = TypeVar("T")

#: Seconds in a window: ``auth_rate_per_minute`` is counted per minute.
WINDOW_SECONDS = 60
REDIS_PREFIX = "dicehall:ratelimit:"
#: Seconds Redis is left alone after it failed, while the memory fallback counts.
REDIS_RETRY_SECONDS = 5.0


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


def network(address: str) -> str:
    """The network one client controls: its IPv6 /64 (one host is usually given a whole
    /64, so counting its single addresses would give it billions of fresh counts), else the
    address itself."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is None:
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return address


def attempt_buckets(kind: str, address: str, user_key: str | None = None) -> list[str]:
    """The keys an attempt counts on: the client's network, and the pair of the client's
    address and the user id tried.

    Never the user id alone: then anyone could lock an account's owner out by failing to
    log in as them, from anywhere.
    """
    keys = [bucket(kind, "ip", network(address))]
    if user_key is not None:
        keys.append(bucket(kind, "ip-user", f"{address}\n{user_key}"))
    return keys


class _Windows:
    """At most ``limit`` hits in any ``window`` seconds per key, counted in ``storage``."""

    def __init__(self, storage: Storage, limit: int, window: int) -> None:
        self.limit = limit
        self.window = window
        self.item: RateLimitItem = RateLimitItemPerSecond(limit, window)
        self._strategy = MovingWindowRateLimiter(storage)

    def hit(self, keys: Iterable[str]) -> int | None:
        """Count one hit on each key; the seconds to wait if any is over its limit, else None."""
        wait = 0.0
        for key in keys:
            if not self._strategy.hit(self.item, key):
                reset = self._strategy.get_window_stats(self.item, key).reset_time
                wait = max(wait, reset - time.time(), 1.0)
        return math.ceil(wait) if wait else None


class MemoryLimiter(_Windows):
    """Windows counted in this process's memory."""

    def __init__(self, limit: int, window: int = WINDOW_SECONDS) -> None:
        super().__init__(MemoryStorage(), limit, window)


def redis_storage(url: str, prefix: str) -> RedisStorage:
    """Counts kept in the Redis at ``url`` under ``prefix``, answering within a second or
    failing with :class:`StorageError` (never hanging a request on a dead Redis)."""
    return RedisStorage(
        url,
        key_prefix=prefix.rstrip(":"),
        wrap_exceptions=True,
        socket_timeout=1.0,
        socket_connect_timeout=1.0,
    )


class Failover:
    """Counts in Redis while it answers; in this process's memory for a few seconds after
    it failed (then Redis is tried again), so an outage neither switches a limit off nor
    locks everyone out."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        #: While the clock is before this moment Redis is not tried (it just failed).
        self._down_until: float | None = None

    def run(self, shared: Callable[[], T], fallback: Callable[[], T]) -> T:
        """``shared()`` (on Redis), or ``fallback()`` (in memory) while Redis is down."""
        with self._lock:
            down = self._down_until is not None and self._clock() < self._down_until
        if down:
            return fallback()
        try:
            done = shared()
        except StorageError as exc:
            with self._lock:
                first = self._down_until is None
                self._down_until = self._clock() + REDIS_RETRY_SECONDS
            if first:
                log.warning(
                    "Redis is unreachable (%s); rate limits count in memory until it is back", exc
                )
            return fallback()
        with self._lock:
            if self._down_until is not None:
                self._down_until = None
                log.warning("Redis is back; rate limits count in Redis again")
        return done


class RedisLimiter:
    """Windows counted in Redis (under ``prefix``), shared by every server process using it.

    While Redis cannot be reached, hits are counted by ``fallback`` in this process's memory
    (see :class:`Failover`), and no request waits on a dead Redis for long.
    """

    def __init__(
        self,
        url: str,
        limit: int,
        window: int = WINDOW_SECONDS,
        prefix: str = REDIS_PREFIX,
        fallback: RateLimiter | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.prefix = prefix
        self.shared = _Windows(redis_storage(url, prefix), limit, window)
        self.fallback = fallback if fallback is not None else MemoryLimiter(limit, window)
        self._failover = Failover(clock)

    def hit(self, keys: Iterable[str]) -> int | None:
        """Count one hit on each key; the seconds to wait if any is over its limit, else None."""
        keys = list(keys)
        return self._failover.run(lambda: self.shared.hit(keys), lambda: self.fallback.hit(keys))


def make_limiter(settings: Settings) -> RateLimiter:
    """The limiter for log-in and sign-up: through Redis (under the site's prefix) when
    ``redis_url`` is set, with this process's memory as the fallback."""
    if settings.redis_url:
        prefix = redis_prefix(site_name(settings)) + "ratelimit:"
        return RedisLimiter(settings.redis_url, settings.auth_rate_per_minute, prefix=prefix)
    return MemoryLimiter(settings.auth_rate_per_minute)
