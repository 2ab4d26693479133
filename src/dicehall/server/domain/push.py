"""Pushes to signed-in users ("your turn", "game updated") over their WebSockets.

In one process a :class:`LocalBroker` delivers directly. With Redis, every process publishes
to its site's channel and delivers what it hears to its own sockets, so a move made on one
server process reaches a player connected to another.

Besides pushes, the channel carries orders to close sockets: when a session ends (log-out,
password change) or an API token is revoked, every process closes the sockets that were
opened with it.

Pushes are best effort: publishing never blocks the caller and never raises. While Redis is
unreachable, pushes and orders reach this process's own sockets only, and the listener keeps
reconnecting.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncIterator, Callable, Collection
from dataclasses import dataclass, field
from typing import Any

import redis
import redis.asyncio as aioredis

from dicehall.server.core.config import Settings
from dicehall.server.core.sitename import redis_prefix, site_name, site_name_from_env

log = logging.getLogger(__name__)

#: Close code for a socket whose session ended or whose token was revoked.
CLOSE_SIGNED_OUT = 4401
#: Close code (sent instead of accepting) for a socket over the per-user cap.
CLOSE_TOO_MANY = 4429
#: Messages queued for one socket; a socket that falls further behind misses pushes.
SOCKET_QUEUE = 256
#: Messages waiting for Redis; beyond this they are delivered in this process only.
OUTBOX = 10000
#: Seconds a failed Redis is left alone before the next try.
REDIS_RETRY_SECONDS = 2.0
REDIS_TIMEOUT_SECONDS = 1.0


def session_credential(session_id: str) -> str:
    """How a socket opened with a browser session is known (the session's stored id)."""
    return f"session:{session_id}"


def token_credential(token_hash: str) -> str:
    """How a socket opened with an API token is known (the token's stored hash)."""
    return f"token:{token_hash}"


class TooManySockets(Exception):
    """This user already has the most sockets allowed on this process."""


@dataclass(eq=False)
class Subscription:
    """One open socket's share of the pushes: its queue, and whether it must close."""

    user_pk: int
    credential: str | None
    queue: asyncio.Queue[dict[str, Any]] = field(
        default_factory=lambda: asyncio.Queue(maxsize=SOCKET_QUEUE)
    )
    ended: asyncio.Event = field(default_factory=asyncio.Event)
    reason: str = ""
    #: The event loop serving the socket: its queue and event may only be touched there.
    loop: asyncio.AbstractEventLoop | None = None

    def deliver(self, message: dict[str, Any]) -> None:
        """Queue ``message`` for the socket (dropped when it is too far behind)."""
        self._on_own_loop(self._put, message)

    def end(self, reason: str) -> None:
        """Tell the socket to close, saying why."""
        self.reason = reason
        self._on_own_loop(lambda _: self.ended.set(), None)

    def _put(self, message: dict[str, Any]) -> None:
        with contextlib.suppress(asyncio.QueueFull):
            self.queue.put_nowait(message)

    def _on_own_loop(self, work: Callable[[Any], None], argument: Any) -> None:
        # asyncio queues and events are not thread-safe: touched from another loop's thread,
        # the socket's waiter is never woken (a socket of another loop waited for ever).
        loop = self.loop
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if loop is None or loop is running:
            work(argument)
        elif not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(work, argument)


class LocalBroker:
    """Delivers pushes to the WebSockets connected to this process.

    At most ``per_user`` sockets of one user are subscribed at once; one more raises
    :class:`TooManySockets` (the socket is refused, the older ones keep working).
    """

    def __init__(self, per_user: int = 8) -> None:
        self.per_user = per_user
        self._loop: asyncio.AbstractEventLoop | None = None
        self._subscriptions: dict[int, list[Subscription]] = {}

    async def start(self) -> None:
        """Remember the event loop that owns the sockets."""
        self._loop = asyncio.get_running_loop()

    async def stop(self) -> None:
        """Nothing to release in-process."""

    def publish(self, user_pk: int, message: dict[str, Any]) -> None:
        """Send ``message`` to every socket of ``user_pk`` (safe from any thread; never raises)."""
        self._dispatch({"user": user_pk, "message": message})

    def end_credentials(self, user_pk: int, credentials: Collection[str], reason: str) -> None:
        """Close ``user_pk``'s sockets opened with any of ``credentials``, on every process."""
        self._dispatch(
            {"end": {"user": user_pk, "credentials": sorted(credentials)}, "why": reason}
        )

    def end_sessions_except(self, user_pk: int, keep: str | None, reason: str) -> None:
        """Close every socket ``user_pk`` opened with a browser session other than ``keep``
        (a session id; None: all of them), on every process. Sockets of API tokens stay."""
        self._dispatch({"end": {"user": user_pk, "sessions_except": keep}, "why": reason})

    def _dispatch(self, payload: dict[str, Any]) -> None:
        self._on_loop(self._handle, payload)

    def _on_loop(self, work: Callable[[dict[str, Any]], None], payload: dict[str, Any]) -> None:
        """Run ``work(payload)`` on the sockets' event loop, from whatever thread we are on."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            work(payload)
        else:
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(work, payload)

    def _handle(self, payload: dict[str, Any]) -> None:
        """Act on one payload from the channel (on the event loop); malformed ones are ignored."""
        try:
            if "message" in payload:
                self._put(int(payload["user"]), dict(payload["message"]))
            elif "end" in payload:
                self._end(dict(payload["end"]), str(payload.get("why", "")))
        except (ValueError, KeyError, TypeError):
            log.warning("ignored a malformed push: %.200r", payload)

    def _put(self, user_pk: int, message: dict[str, Any]) -> None:
        for subscription in self._subscriptions.get(user_pk, ()):
            subscription.deliver(message)

    def _end(self, order: dict[str, Any], reason: str) -> None:
        user_pk = int(order["user"])
        if "credentials" in order:
            doomed = {str(c) for c in order["credentials"]}

            def matches(credential: str | None) -> bool:
                return credential in doomed

        else:
            keep = order.get("sessions_except")
            kept = session_credential(str(keep)) if keep is not None else None

            def matches(credential: str | None) -> bool:
                return (
                    credential is not None
                    and credential.startswith("session:")
                    and credential != kept
                )

        current = self._subscriptions.get(user_pk, [])
        for subscription in [s for s in current if matches(s.credential)]:
            # Out of the list at once: no push reaches it any more, and it frees its place.
            current.remove(subscription)
            subscription.end(reason)
        if not current:
            self._subscriptions.pop(user_pk, None)

    @contextlib.asynccontextmanager
    async def subscribe(
        self, user_pk: int, credential: str | None = None, limit: int | None = None
    ) -> AsyncIterator[Subscription]:
        """This socket's subscription to its user's pushes, for as long as the context is open.

        Raises :class:`TooManySockets` when the user already has ``limit`` (by default
        ``per_user``) of them here.
        """
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
        most = self.per_user if limit is None else limit
        current = self._subscriptions.setdefault(user_pk, [])
        if len(current) >= most:
            if not current:
                del self._subscriptions[user_pk]
            raise TooManySockets(f"at most {most} push sockets per user")
        subscription = Subscription(user_pk, credential, loop=asyncio.get_running_loop())
        current.append(subscription)
        try:
            yield subscription
        finally:
            current = self._subscriptions.get(user_pk, [])
            with contextlib.suppress(ValueError):
                current.remove(subscription)
            if not current:
                self._subscriptions.pop(user_pk, None)

    def sockets(self, user_pk: int) -> int:
        """How many sockets of ``user_pk`` are subscribed on this process."""
        return len(self._subscriptions.get(user_pk, ()))


class RedisBroker(LocalBroker):
    """Shares pushes and close orders between server processes through Redis pub/sub.

    The channel is named after the site (``dicehall:<site>:push``): pub/sub ignores the
    database number of the URL, so sites sharing a Redis must differ by name.
    """

    def __init__(
        self,
        url: str,
        site: str,
        per_user: int = 8,
        timeout: float = REDIS_TIMEOUT_SECONDS,
    ) -> None:
        super().__init__(per_user)
        self._url = url
        self.channel = redis_prefix(site) + "push"
        self._timeout = timeout
        self._outbox: asyncio.Queue[dict[str, Any]] | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._down_until: float | None = None

    async def start(self) -> None:
        """Start listening to the channel and sending what this process publishes."""
        await super().start()
        self._outbox = asyncio.Queue(maxsize=OUTBOX)
        self._tasks = [
            asyncio.create_task(self._listen()),
            asyncio.create_task(self._send()),
        ]

    async def stop(self) -> None:
        """Stop listening and sending (pushes still queued are dropped)."""
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks = []

    def _dispatch(self, payload: dict[str, Any]) -> None:
        self._on_loop(self._enqueue, payload)

    def _enqueue(self, payload: dict[str, Any]) -> None:
        if self._outbox is None:
            self._handle(payload)
            return
        try:
            self._outbox.put_nowait(payload)
        except asyncio.QueueFull:
            # Redis is too slow or gone: this process's own sockets still get it.
            self._handle(payload)

    def _redis_down(self, exc: BaseException) -> None:
        if self._down_until is None:
            log.warning("Redis is unreachable (%s); pushes reach this process only", exc)
        self._down_until = time.monotonic() + REDIS_RETRY_SECONDS

    def _redis_up(self) -> None:
        if self._down_until is not None:
            self._down_until = None
            log.warning("Redis is back; pushes reach every process again")

    def _client(self, **options: Any) -> aioredis.Redis:
        return aioredis.Redis.from_url(
            self._url, socket_connect_timeout=self._timeout, socket_keepalive=True, **options
        )

    async def _send(self) -> None:
        assert self._outbox is not None
        client = self._client(socket_timeout=self._timeout)
        try:
            while True:
                payload = await self._outbox.get()
                if self._down_until is not None and time.monotonic() < self._down_until:
                    self._handle(payload)
                    continue
                try:
                    await client.publish(self.channel, json.dumps(payload))
                except (redis.RedisError, OSError) as exc:
                    self._redis_down(exc)
                    self._handle(payload)
                else:
                    self._redis_up()
        finally:
            with contextlib.suppress(Exception):
                await client.aclose()

    async def _listen(self) -> None:
        delay = 0.25
        while True:
            client = self._client(health_check_interval=15)
            pubsub = client.pubsub()
            try:
                await pubsub.subscribe(self.channel)
                self._redis_up()
                delay = 0.25
                async for item in pubsub.listen():
                    if item.get("type") != "message":
                        continue
                    try:
                        payload = json.loads(item["data"])
                    except ValueError:
                        continue
                    if isinstance(payload, dict):
                        self._handle(payload)
            except (redis.RedisError, OSError) as exc:
                self._redis_down(exc)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()  # type: ignore[no-untyped-call]
                with contextlib.suppress(Exception):
                    await client.aclose()
            await asyncio.sleep(delay)
            delay = min(delay * 2, 5.0)


Broker = LocalBroker


def make_broker(source: Settings | str | None) -> LocalBroker:
    """The broker for this process: Redis-backed when the settings name a Redis URL.

    Given only a Redis URL (or None), the site's name comes from the environment
    (``DICEHALL_SITE_NAME``, else derived from ``DICEHALL_DB_URL``), as in a served site.
    """
    if isinstance(source, Settings):
        if not source.redis_url:
            return LocalBroker(source.sockets_per_user)
        return RedisBroker(source.redis_url, site_name(source), source.sockets_per_user)
    return RedisBroker(source, site_name_from_env()) if source else LocalBroker()
