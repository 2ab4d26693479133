"""Pushes to signed-in users ("your turn", "game updated") over their WebSockets, and to
the sockets that follow a game as spectators.

(Longer than most modules: the local and the Redis broker implement one protocol, players'
pushes, spectators' follows and counts, tournament pages' follows, and closing orders, and
share the socket queues and subscriptions; splitting them would spread one delivery path
over several files.)

In one process a :class:`LocalBroker` delivers directly. With Redis, every process publishes
to its site's channel and delivers what it hears to its own sockets, so a move made on one
server process reaches a player connected to another.

A socket may also follow one game (a spectator's board, signed in or not): what is published
for the game reaches every socket following it, on every process. The spectators of a game
are counted across processes in a Redis sorted set (one member per socket, which expires
unless its process renews it, so a dead process's sockets drop out of the count), or in
memory without Redis; each change of the count is published to the game's followers. Likewise
a socket may follow one tournament (its page, uncounted): what is published for the
tournament reaches every socket following it, on every process; and a socket may follow
the site's pulse (the Singularity page, uncounted), which hears what is published for the
whole site.

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
import itertools
import json
import logging
import time
import uuid
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
#: Seconds the Redis broker's start waits for Redis to confirm its subscription (an
#: unreachable Redis ends the wait at once: the listener keeps trying in the background).
SUBSCRIBE_WAIT_SECONDS = 5.0
#: Seconds a spectator's place in the shared count lasts unless its process renews it, and
#: how often a process renews its spectators' places.
WATCH_TTL_SECONDS = 60.0
WATCH_RENEW_SECONDS = 20.0
#: Sockets of signed-out spectators one process serves at once.
ANONYMOUS_WATCHERS = 2000


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


@dataclass(eq=False)
class Watch(Subscription):
    """One socket following one game: it shares its socket's queue, is counted as a
    spectator unless a player of the game holds it, and is named in the shared count.

    ``user_pk`` is 0 for a signed-out visitor.
    """

    game_id: int = 0
    counted: bool = True
    member: str = ""


def watching_message(game_id: int, count: int, seq: int) -> dict[str, Any]:
    """How many spectators follow game ``game_id``: ``seq`` orders the counts (a socket
    keeps the count with the largest one it has heard)."""
    return {"type": "watching", "game": game_id, "watching": count, "seq": seq}


class LocalBroker:
    """Delivers pushes to the WebSockets connected to this process.

    At most ``per_user`` sockets of one user are subscribed at once; one more raises
    :class:`TooManySockets` (the socket is refused, the older ones keep working). At most
    ``anonymous_watchers`` sockets of signed-out spectators follow games here at once.
    """

    def __init__(self, per_user: int = 8, anonymous_watchers: int = ANONYMOUS_WATCHERS) -> None:
        self.per_user = per_user
        self.anonymous_watchers = anonymous_watchers
        self._loop: asyncio.AbstractEventLoop | None = None
        self._subscriptions: dict[int, list[Subscription]] = {}
        self._watches: dict[int, list[Watch]] = {}
        self._tournaments: dict[int, list[Subscription]] = {}
        self._pulse: list[Subscription] = []
        self._process = uuid.uuid4().hex[:16]
        self._names = itertools.count(1)
        self._seq = 0

    async def start(self) -> None:
        """Remember the event loop that owns the sockets."""
        self._loop = asyncio.get_running_loop()

    async def stop(self) -> None:
        """Nothing to release in-process."""

    def publish(self, user_pk: int, message: dict[str, Any]) -> None:
        """Send ``message`` to every socket of ``user_pk`` (safe from any thread; never raises)."""
        self._dispatch({"user": user_pk, "message": message})

    def publish_game(self, game_id: int, message: dict[str, Any]) -> None:
        """Send ``message`` to every socket following game ``game_id`` (safe from any thread;
        never raises). A ``"game"`` message reaches the spectators only: the players'
        sockets get their own push."""
        self._dispatch({"game": game_id, "message": message})

    def publish_tournament(self, tournament_id: int, message: dict[str, Any]) -> None:
        """Send ``message`` to every socket following tournament ``tournament_id`` (its
        page), on every process (safe from any thread; never raises)."""
        self._dispatch({"tournament": tournament_id, "message": message})

    def publish_site(self, message: dict[str, Any]) -> None:
        """Send ``message`` to every socket following the site's pulse, on every process
        (safe from any thread; never raises)."""
        self._dispatch({"site": True, "message": message})

    def end_watch(self, game_id: int, user_pk: int, reason: str) -> None:
        """Close ``user_pk``'s sockets that follow game ``game_id``, on every process (their
        invitation to watch a private game was withdrawn)."""
        self._dispatch({"unwatch": {"game": game_id, "user": user_pk}, "why": reason})

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
            if "message" in payload and "game" in payload:
                self._put_game(int(payload["game"]), dict(payload["message"]))
            elif "message" in payload and "tournament" in payload:
                self._put_tournament(int(payload["tournament"]), dict(payload["message"]))
            elif "message" in payload and "site" in payload:
                self._put_site(dict(payload["message"]))
            elif "message" in payload:
                self._put(int(payload["user"]), dict(payload["message"]))
            elif "end" in payload:
                self._end(dict(payload["end"]), str(payload.get("why", "")))
            elif "unwatch" in payload:
                self._unwatch(dict(payload["unwatch"]), str(payload.get("why", "")))
        except (ValueError, KeyError, TypeError):
            log.warning("ignored a malformed push: %.200r", payload)

    def _put(self, user_pk: int, message: dict[str, Any]) -> None:
        for subscription in self._subscriptions.get(user_pk, ()):
            subscription.deliver(message)

    def _put_game(self, game_id: int, message: dict[str, Any]) -> None:
        for watch in tuple(self._watches.get(game_id, ())):
            if message.get("type") == "game" and not watch.counted:
                continue
            watch.deliver(message)

    def _put_tournament(self, tournament_id: int, message: dict[str, Any]) -> None:
        for follower in tuple(self._tournaments.get(tournament_id, ())):
            follower.deliver(message)

    def _put_site(self, message: dict[str, Any]) -> None:
        for follower in tuple(self._pulse):
            follower.deliver(message)

    def _unwatch(self, order: dict[str, Any], reason: str) -> None:
        game_id, user_pk = int(order["game"]), int(order["user"])
        current = self._watches.get(game_id, [])
        for watch in [w for w in current if w.user_pk == user_pk]:
            current.remove(watch)  # no push reaches it any more
            watch.end(reason)

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

    @contextlib.asynccontextmanager
    async def watch(
        self,
        game_id: int,
        queue: asyncio.Queue[dict[str, Any]],
        *,
        user_pk: int | None,
        counted: bool,
    ) -> AsyncIterator[Watch]:
        """A socket's following of game ``game_id`` for as long as the context is open: what
        is published for the game goes to ``queue``; ``counted`` (a spectator, not a player)
        adds it to the game's count, and the new count is published to its followers.

        Raises :class:`TooManySockets` for a signed-out visitor (``user_pk`` None) when this
        process already serves ``anonymous_watchers`` of them.
        """
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
        if user_pk is None and self._anonymous() >= self.anonymous_watchers:
            raise TooManySockets(f"at most {self.anonymous_watchers} signed-out spectators here")
        watch = Watch(
            user_pk or 0,
            None,
            queue=queue,
            loop=asyncio.get_running_loop(),
            game_id=game_id,
            counted=counted,
            member=f"{self._process}:{next(self._names)}",
        )
        self._watches.setdefault(game_id, []).append(watch)
        try:
            if counted:
                await self._recount(watch, joined=True)
            yield watch
        finally:
            current = self._watches.get(game_id, [])
            with contextlib.suppress(ValueError):
                current.remove(watch)
            if not current:
                self._watches.pop(game_id, None)
            if counted:
                with contextlib.suppress(Exception):
                    await self._recount(watch, joined=False)

    def _anonymous(self) -> int:
        watching = (w for ws in tuple(self._watches.values()) for w in ws)
        following = (f for fs in tuple(self._tournaments.values()) for f in fs)
        pulse = tuple(self._pulse)
        return sum(1 for s in (*watching, *following, *pulse) if s.user_pk == 0)

    @contextlib.asynccontextmanager
    async def follow_tournament(
        self, tournament_id: int, queue: asyncio.Queue[dict[str, Any]], *, user_pk: int | None
    ) -> AsyncIterator[Subscription]:
        """A socket's following of tournament ``tournament_id`` for as long as the context
        is open: what is published for the tournament goes to ``queue``.

        Raises :class:`TooManySockets` for a signed-out visitor (``user_pk`` None) when this
        process already serves ``anonymous_watchers`` of them (games' spectators included).
        """
        follower = self._follower(queue, user_pk)
        self._tournaments.setdefault(tournament_id, []).append(follower)
        try:
            yield follower
        finally:
            current = self._tournaments.get(tournament_id, [])
            with contextlib.suppress(ValueError):
                current.remove(follower)
            if not current:
                self._tournaments.pop(tournament_id, None)

    @contextlib.asynccontextmanager
    async def follow_site(
        self, queue: asyncio.Queue[dict[str, Any]], *, user_pk: int | None
    ) -> AsyncIterator[Subscription]:
        """A socket's following of the site's pulse for as long as the context is open: what
        is published for the site goes to ``queue``.

        Raises :class:`TooManySockets` for a signed-out visitor (``user_pk`` None) when this
        process already serves ``anonymous_watchers`` signed-out followers of anything.
        """
        follower = self._follower(queue, user_pk)
        self._pulse.append(follower)
        try:
            yield follower
        finally:
            with contextlib.suppress(ValueError):
                self._pulse.remove(follower)

    def _follower(self, queue: asyncio.Queue[dict[str, Any]], user_pk: int | None) -> Subscription:
        """An uncounted follower's subscription (on the running loop), or
        :class:`TooManySockets` for one signed-out visitor too many."""
        loop = asyncio.get_running_loop()
        if self._loop is None:
            self._loop = loop
        if user_pk is None and self._anonymous() >= self.anonymous_watchers:
            raise TooManySockets(f"at most {self.anonymous_watchers} signed-out followers here")
        return Subscription(user_pk or 0, None, queue=queue, loop=loop)

    def local_watching(self, game_id: int) -> int:
        """How many spectators' sockets follow game ``game_id`` on this process."""
        return sum(1 for w in tuple(self._watches.get(game_id, ())) if w.counted)

    async def watching(self, game_id: int) -> tuple[int, int]:
        """How many spectators' sockets follow game ``game_id`` (on every process), and the
        count's ``seq``."""
        return self.local_watching(game_id), self._seq

    async def _recount(self, watch: Watch, *, joined: bool) -> None:
        """A spectator came or went: publish the game's new count."""
        del joined  # the local list already says
        self._seq += 1
        count = self.local_watching(watch.game_id)
        self.publish_game(watch.game_id, watching_message(watch.game_id, count, self._seq))


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
        self._prefix = redis_prefix(site)
        self.channel = self._prefix + "push"
        self._timeout = timeout
        self._outbox: asyncio.Queue[dict[str, Any]] | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._down_until: float | None = None
        self._subscribed = False

    @property
    def subscribed(self) -> bool:
        """Whether Redis has confirmed the listener's subscription to the channel (false while
        the listener reconnects)."""
        return self._subscribed

    async def start(self) -> None:
        """Start listening to the channel and sending what this process publishes.

        Returns once Redis has confirmed the subscription, so that whatever any process
        publishes afterwards reaches this one; or once the first try to subscribe failed
        (Redis unreachable: the listener keeps trying), or after
        :data:`SUBSCRIBE_WAIT_SECONDS` at most.
        """
        await super().start()
        self._outbox = asyncio.Queue(maxsize=OUTBOX)
        first_try = asyncio.Event()
        self._tasks = [
            asyncio.create_task(self._listen(first_try)),
            asyncio.create_task(self._send()),
            asyncio.create_task(self._renew()),
        ]
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(first_try.wait(), SUBSCRIBE_WAIT_SECONDS)

    async def stop(self) -> None:
        """Stop listening and sending (pushes still queued are dropped)."""
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks = []
        self._subscribed = False

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

    # -- spectators, counted in Redis ----------------------------------------------------------

    def _watch_key(self, game_id: int) -> str:
        return f"{self._prefix}watching:{game_id}"

    def _redis_usable(self) -> bool:
        return self._down_until is None or time.monotonic() >= self._down_until

    async def watching(self, game_id: int) -> tuple[int, int]:
        """The game's count of spectators on every process (this process's own while Redis
        is unreachable)."""
        if not self._redis_usable():
            return await super().watching(game_id)
        try:
            async with self._client(socket_timeout=self._timeout) as client:
                pipe = client.pipeline(transaction=True)
                pipe.zcount(self._watch_key(game_id), time.time(), "+inf")
                pipe.get(self._prefix + "watching:seq")
                count, seq = await pipe.execute()
        except (redis.RedisError, OSError) as exc:
            self._redis_down(exc)
            return await super().watching(game_id)
        return int(count), int(seq or 0)

    async def _recount(self, watch: Watch, *, joined: bool) -> None:
        """Add or remove the socket's place in the shared count, and publish the new count
        with a ``seq`` taken in the same transaction (so later counts have larger ones)."""
        if not self._redis_usable():
            await super()._recount(watch, joined=joined)
            return
        key = self._watch_key(watch.game_id)
        moment = time.time()
        try:
            async with self._client(socket_timeout=self._timeout) as client:
                pipe = client.pipeline(transaction=True)
                if joined:
                    pipe.zadd(key, {watch.member: moment + WATCH_TTL_SECONDS})
                else:
                    pipe.zrem(key, watch.member)
                pipe.zremrangebyscore(key, "-inf", moment)
                pipe.zcard(key)
                pipe.expire(key, int(WATCH_TTL_SECONDS * 2))
                pipe.incr(self._prefix + "watching:seq")
                answers = await pipe.execute()
        except (redis.RedisError, OSError) as exc:
            self._redis_down(exc)
            await super()._recount(watch, joined=joined)
            return
        count, seq = int(answers[2]), int(answers[4])
        self.publish_game(watch.game_id, watching_message(watch.game_id, count, seq))

    async def _renew(self) -> None:
        """Keep this process's spectators in the shared counts (and put back those that came
        while Redis was unreachable)."""
        client = self._client(socket_timeout=self._timeout)
        try:
            while True:
                await asyncio.sleep(WATCH_RENEW_SECONDS)
                places = {
                    game_id: [w.member for w in watches if w.counted]
                    for game_id, watches in tuple(self._watches.items())
                }
                places = {game_id: members for game_id, members in places.items() if members}
                if not places or not self._redis_usable():
                    continue
                until = time.time() + WATCH_TTL_SECONDS
                try:
                    pipe = client.pipeline(transaction=False)
                    for game_id, members in places.items():
                        key = self._watch_key(game_id)
                        pipe.zadd(key, dict.fromkeys(members, until))
                        pipe.expire(key, int(WATCH_TTL_SECONDS * 2))
                    await pipe.execute()
                except (redis.RedisError, OSError) as exc:
                    self._redis_down(exc)
        finally:
            with contextlib.suppress(Exception):
                await client.aclose()

    async def _listen(self, first_try: asyncio.Event) -> None:
        """Hear the channel, reconnecting (and subscribing again) whenever Redis is lost.

        ``first_try`` is set once Redis confirmed the first subscription or the first try
        failed; :attr:`subscribed` says whether the current connection's is confirmed.
        """
        delay = 0.25
        while True:
            client = self._client(health_check_interval=15)
            pubsub = client.pubsub()
            try:
                await pubsub.subscribe(self.channel)
                self._redis_up()
                delay = 0.25
                async for item in pubsub.listen():
                    kind = item.get("type")
                    if kind == "subscribe":
                        # Redis's confirmation (again after redis-py reconnected by itself):
                        # from here on every publish to the channel reaches this process.
                        self._subscribed = True
                        first_try.set()
                        continue
                    if kind != "message":
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
                self._subscribed = False
                first_try.set()
                with contextlib.suppress(Exception):
                    await pubsub.aclose()
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
