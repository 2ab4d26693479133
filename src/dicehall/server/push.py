"""Pushes to signed-in users ("your turn", "game updated") over their WebSockets.

In one process a :class:`LocalBroker` delivers directly. With Redis, every process publishes
to one channel and delivers what it hears to its own sockets, so a move made on one server
process reaches a player connected to another.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import redis
import redis.asyncio as aioredis

CHANNEL = "dicehall:push"


class LocalBroker:
    """Delivers pushes to the WebSockets connected to this process."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._queues: dict[int, set[asyncio.Queue[dict[str, Any]]]] = {}

    async def start(self) -> None:
        """Remember the event loop that owns the sockets."""
        self._loop = asyncio.get_running_loop()

    async def stop(self) -> None:
        """Nothing to release in-process."""

    def publish(self, user_pk: int, message: dict[str, Any]) -> None:
        """Send ``message`` to every socket of ``user_pk`` (safe from any thread)."""
        self.deliver(user_pk, message)

    def deliver(self, user_pk: int, message: dict[str, Any]) -> None:
        """Queue ``message`` on this process's sockets of ``user_pk``."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self._put(user_pk, message)
        else:
            loop.call_soon_threadsafe(self._put, user_pk, message)

    def _put(self, user_pk: int, message: dict[str, Any]) -> None:
        for queue in self._queues.get(user_pk, ()):
            with contextlib.suppress(asyncio.QueueFull):
                queue.put_nowait(message)

    @contextlib.asynccontextmanager
    async def subscribe(self, user_pk: int) -> AsyncIterator[asyncio.Queue[dict[str, Any]]]:
        """A queue of this user's pushes for as long as the context is open."""
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue(maxsize=256)
        self._queues.setdefault(user_pk, set()).add(queue)
        try:
            yield queue
        finally:
            queues = self._queues.get(user_pk)
            if queues is not None:
                queues.discard(queue)
                if not queues:
                    del self._queues[user_pk]


class RedisBroker(LocalBroker):
    """Shares pushes between server processes through Redis pub/sub."""

    def __init__(self, url: str) -> None:
        super().__init__()
        self._url = url
        self._client = redis.Redis.from_url(url)
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        await super().start()
        self._task = asyncio.create_task(self._listen())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self._client.close()

    def publish(self, user_pk: int, message: dict[str, Any]) -> None:
        self._client.publish(CHANNEL, json.dumps({"user": user_pk, "message": message}))

    async def _listen(self) -> None:
        client = aioredis.Redis.from_url(self._url)
        pubsub = client.pubsub()
        await pubsub.subscribe(CHANNEL)
        try:
            async for item in pubsub.listen():
                if item.get("type") != "message":
                    continue
                try:
                    payload = json.loads(item["data"])
                    self.deliver(int(payload["user"]), dict(payload["message"]))
                except (ValueError, KeyError, TypeError):
                    continue
        finally:
            await pubsub.aclose()  # type: ignore[no-untyped-call]
            await client.aclose()


Broker = LocalBroker


def make_broker(redis_url: str | None) -> LocalBroker:
    """The broker for this process: Redis-backed when a URL is given."""
    return RedisBroker(redis_url) if redis_url else LocalBroker()
