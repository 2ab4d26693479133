"""Who is here: when each user was last seen, and at what, in memory or shared through Redis.

Every signed-in API request, page and open push socket *touches* its user (see
:mod:`~dicehall.server.domain.people.here`): the store keeps when each user was last seen
and what they were last seen at, an :class:`Activity` (a game, by its page, socket or API;
the waiting room or a new-game page; anything else). A touch without an activity (an API
call that names no game) keeps the activity there was. :meth:`Presence.listing` splits the
users seen in the last ``recent`` seconds into those seen in the last ``online`` seconds and
the others.

Touches are cheap: a process writes a user's unchanged presence at most once per
:attr:`Windows.throttle` seconds, so a busy board costs a dictionary look-up per request.
A user who hides from Who is here is taken out of the store at their next touch.

With Redis (``redis_url``) every process of the site writes one sorted set (user -> last
seen, seconds since the epoch) and one hash (user -> activity) under the site's prefix, so
sites sharing a Redis never mix and every process lists the same people. Entries older than
``recent`` seconds are trimmed, and the keys expire when no process writes them any more.
While Redis cannot be reached, each process answers from its own memory (kept as well).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Collection
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any, Literal, cast

import redis

from dicehall.server.core.config import Settings
from dicehall.server.core.sitename import redis_prefix, site_name

log = logging.getLogger(__name__)

#: Seconds between two trims of the shared entries by one process.
TRIM_SECONDS = 60.0
#: Seconds a failed Redis is left alone (this process's memory answers meanwhile).
REDIS_RETRY_SECONDS = 5.0
REDIS_TIMEOUT_SECONDS = 1.0

What = Literal["game", "looking", "idle"]


@dataclass(frozen=True)
class Activity:
    """What a user was last seen at: ``game`` (a game's page, socket or API: game ``game``),
    ``looking`` (the waiting room, a new-game page) or ``idle`` (any other page)."""

    what: What
    game: int | None = None

    def as_json(self) -> str:
        return json.dumps({"what": self.what, "game": self.game})

    @classmethod
    def from_json(cls, text: str | bytes | None) -> Activity:
        """An activity as stored (idle for anything unreadable)."""
        try:
            raw = json.loads(text or "{}")
            what, game = raw.get("what"), raw.get("game")
        except (ValueError, AttributeError):
            return IDLE
        if what == "game" and isinstance(game, int):
            return cls("game", game)
        return LOOKING if what == "looking" else IDLE


IDLE = Activity("idle")
LOOKING = Activity("looking")


def at_game(game_id: int) -> Activity:
    """At game ``game_id`` (playing it, waiting in it, or watching it: the listing decides)."""
    return Activity("game", game_id)


@dataclass(frozen=True)
class Seen:
    """A user seen: when last, and at what."""

    user_pk: int
    seen_at: datetime
    activity: Activity


@dataclass(frozen=True)
class Windows:
    """Seconds since last seen: at most ``online`` for online, ``recent`` for recently here."""

    online: float = 120.0
    recent: float = 900.0

    @property
    def throttle(self) -> float:
        """Seconds a process leaves a user's unchanged presence unwritten (15 by default)."""
        return min(15.0, self.online / 8)

    @property
    def heartbeat(self) -> float:
        """Seconds between the touches of an open socket (40 by default): an open page stays
        online, and a closed one drops out within ``online`` seconds (no flicker on reload)."""
        return min(40.0, self.online / 3)


@dataclass(frozen=True)
class _Written:
    stamp: float
    shown: bool
    activity: Activity | None


def _moment(stamp: float) -> datetime:
    return datetime.fromtimestamp(stamp, UTC)


class Presence:
    """The store's protocol and its per-process throttle; :class:`MemoryPresence` and
    :class:`RedisPresence` keep the entries. Safe from any thread."""

    def __init__(self, windows: Windows | None = None) -> None:
        self.windows = windows or Windows()
        self._lock = threading.Lock()
        self._written: dict[int, _Written] = {}
        self._swept = 0.0
        self._days: dict[int, date] = {}

    def unchanged(
        self, user_pk: int, activity: Activity | None, at: datetime, *, shown: bool = True
    ) -> bool:
        """True when :meth:`touch` would write nothing now (a dictionary look-up: safe on
        the event loop)."""
        before = self._written.get(user_pk)
        return (
            before is not None
            and before.shown == shown
            and (activity is None or activity == before.activity)
            and 0 <= at.timestamp() - before.stamp < self.windows.throttle
        )

    def touch(
        self, user_pk: int, activity: Activity | None, at: datetime, *, shown: bool = True
    ) -> bool:
        """``user_pk`` was here at ``at``, at ``activity`` (None: at what they were at);
        ``shown`` False (they hide from Who is here) takes them out. Whether it was written
        (an unchanged touch within :attr:`Windows.throttle` seconds is not)."""
        stamp = at.timestamp()
        with self._lock:
            before = self._written.get(user_pk)
            if (
                before is not None
                and before.shown == shown
                and (activity is None or activity == before.activity)
                and 0 <= stamp - before.stamp < self.windows.throttle
            ):
                return False
            kept = activity if activity is not None else before.activity if before else None
            self._written[user_pk] = _Written(stamp, shown, kept)
            if stamp - self._swept >= TRIM_SECONDS:
                self._swept = stamp
                cut = stamp - self.windows.recent
                self._written = {pk: w for pk, w in self._written.items() if w.stamp >= cut}
        if shown:
            self._put(user_pk, activity, stamp)
        else:
            self._drop(user_pk)
        return True

    def first_today(self, user_pk: int, day: date) -> bool:
        """True once per ``day`` for ``user_pk`` in this process (for the daily last-seen)."""
        with self._lock:
            if self._days.get(user_pk) == day:
                return False
            if len(self._days) > 10_000:
                self._days = {pk: d for pk, d in self._days.items() if d == day}
            self._days[user_pk] = day
            return True

    def listing(self, at: datetime) -> tuple[list[Seen], list[Seen]]:
        """Those seen in the last ``online`` seconds before ``at`` and the others of the last
        ``recent`` seconds, each most recently seen first."""
        now_stamp = at.timestamp()
        cut = now_stamp - self.windows.online
        online: list[Seen] = []
        recent: list[Seen] = []
        for pk, stamp, activity in sorted(
            self._since(now_stamp - self.windows.recent), key=lambda found: -found[1]
        ):
            (online if stamp >= cut else recent).append(Seen(pk, _moment(stamp), activity or IDLE))
        return online, recent

    def counts(self, at: datetime) -> tuple[int, int]:
        """How many are online, and how many recently here (not online), at ``at``."""
        online, recent = self.listing(at)
        return len(online), len(recent)

    def online_among(self, user_pks: Collection[int], at: datetime) -> set[int]:
        """Those of ``user_pks`` online at ``at``."""
        cut = at.timestamp() - self.windows.online
        return {pk for pk, stamp in self._stamps(set(user_pks)).items() if stamp >= cut}

    def forget(self, user_pk: int) -> None:
        """Take ``user_pk`` out of the store now."""
        with self._lock:
            self._written.pop(user_pk, None)
        self._drop(user_pk)

    def _put(self, user_pk: int, activity: Activity | None, stamp: float) -> None:
        raise NotImplementedError

    def _drop(self, user_pk: int) -> None:
        raise NotImplementedError

    def _since(self, cut: float) -> list[tuple[int, float, Activity | None]]:
        raise NotImplementedError

    def _stamps(self, user_pks: set[int]) -> dict[int, float]:
        raise NotImplementedError


class MemoryPresence(Presence):
    """Presence in this process's memory (a site with one process)."""

    def __init__(self, windows: Windows | None = None) -> None:
        super().__init__(windows)
        self._entries: dict[int, tuple[float, Activity | None]] = {}
        self._trimmed = 0.0

    def _put(self, user_pk: int, activity: Activity | None, stamp: float) -> None:
        with self._lock:
            old_stamp, old_activity = self._entries.get(user_pk, (stamp, None))
            self._entries[user_pk] = (max(stamp, old_stamp), activity or old_activity)
            if stamp - self._trimmed >= TRIM_SECONDS:
                self._trimmed = stamp
                cut = stamp - self.windows.recent
                self._entries = {pk: e for pk, e in self._entries.items() if e[0] >= cut}

    def _drop(self, user_pk: int) -> None:
        with self._lock:
            self._entries.pop(user_pk, None)

    def _since(self, cut: float) -> list[tuple[int, float, Activity | None]]:
        with self._lock:
            return [(pk, s, a) for pk, (s, a) in self._entries.items() if s >= cut]

    def _stamps(self, user_pks: set[int]) -> dict[int, float]:
        with self._lock:
            return {pk: self._entries[pk][0] for pk in user_pks if pk in self._entries}

    def counts(self, at: datetime) -> tuple[int, int]:
        now_stamp = at.timestamp()
        online_cut, recent_cut = now_stamp - self.windows.online, now_stamp - self.windows.recent
        with self._lock:
            stamps = [s for s, _ in self._entries.values() if s >= recent_cut]
        online = sum(1 for s in stamps if s >= online_cut)
        return online, len(stamps) - online


# Removes the entries last seen before ARGV[1] from the sorted set and the hash, at most 500
# at a time (a trim runs every minute), in one step: a user touched meanwhile is never lost.
_TRIM = """
local gone = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1], 'LIMIT', 0, 500)
if #gone > 0 then
  redis.call('ZREM', KEYS[1], unpack(gone))
  redis.call('HDEL', KEYS[2], unpack(gone))
end
return #gone
"""


class RedisPresence(Presence):
    """Presence shared by every process of the site through Redis (under ``prefix``)."""

    def __init__(self, url: str, prefix: str, windows: Windows | None = None) -> None:
        super().__init__(windows)
        self.seen_key = f"{prefix}presence:seen"
        self.doing_key = f"{prefix}presence:doing"
        self._client = redis.Redis.from_url(
            url,
            socket_timeout=REDIS_TIMEOUT_SECONDS,
            socket_connect_timeout=REDIS_TIMEOUT_SECONDS,
        )
        self._trim = self._client.register_script(_TRIM)
        self._local = MemoryPresence(self.windows)
        self._trimmed = 0.0
        #: While time.monotonic() is before this, Redis is not tried (it just failed).
        self._down_until: float | None = None

    def _usable(self) -> bool:
        return self._down_until is None or time.monotonic() >= self._down_until

    def _failed(self, exc: BaseException) -> None:
        if self._down_until is None:
            log.warning("Redis is unreachable (%s); Who is here lists this process only", exc)
        self._down_until = time.monotonic() + REDIS_RETRY_SECONDS

    def _worked(self) -> None:
        if self._down_until is not None:
            self._down_until = None
            log.warning("Redis is back; Who is here is shared again")

    def _put(self, user_pk: int, activity: Activity | None, stamp: float) -> None:
        self._local._put(user_pk, activity, stamp)
        if not self._usable():
            return
        lasting = int(self.windows.recent * 2) + 60
        try:
            pipe = self._client.pipeline(transaction=True)
            # GT: a process whose touch arrives late never moves a user back in time.
            pipe.zadd(self.seen_key, {str(user_pk): stamp}, gt=True)
            if activity is not None:
                pipe.hset(self.doing_key, str(user_pk), activity.as_json())
            pipe.expire(self.seen_key, lasting)
            pipe.expire(self.doing_key, lasting)
            pipe.execute()
            if stamp - self._trimmed >= TRIM_SECONDS:
                self._trimmed = stamp
                self._trim(keys=[self.seen_key, self.doing_key], args=[stamp - self.windows.recent])
        except (redis.RedisError, OSError) as exc:
            self._failed(exc)
        else:
            self._worked()

    def _drop(self, user_pk: int) -> None:
        self._local._drop(user_pk)
        if not self._usable():
            return
        try:
            pipe = self._client.pipeline(transaction=True)
            pipe.zrem(self.seen_key, str(user_pk))
            pipe.hdel(self.doing_key, str(user_pk))
            pipe.execute()
        except (redis.RedisError, OSError) as exc:
            self._failed(exc)

    def _since(self, cut: float) -> list[tuple[int, float, Activity | None]]:
        if not self._usable():
            return self._local._since(cut)
        try:
            found = cast(
                list[tuple[bytes, float]],
                self._client.zrangebyscore(self.seen_key, cut, "+inf", withscores=True),
            )
            members = [member for member, _ in found]
            doings = cast(list[Any], self._client.hmget(self.doing_key, members) if found else [])
        except (redis.RedisError, OSError) as exc:
            self._failed(exc)
            return self._local._since(cut)
        self._worked()
        return [
            (int(member), float(stamp), None if doing is None else Activity.from_json(doing))
            for (member, stamp), doing in zip(found, doings, strict=True)
        ]

    def _stamps(self, user_pks: set[int]) -> dict[int, float]:
        if not user_pks:
            return {}
        if not self._usable():
            return self._local._stamps(user_pks)
        ordered = sorted(user_pks)
        try:
            scores: list[float | None] = self._client.zmscore(
                self.seen_key, [str(pk) for pk in ordered]
            )
        except (redis.RedisError, OSError) as exc:
            self._failed(exc)
            return self._local._stamps(user_pks)
        self._worked()
        return {
            pk: float(score) for pk, score in zip(ordered, scores, strict=True) if score is not None
        }

    def counts(self, at: datetime) -> tuple[int, int]:
        if not self._usable():
            return self._local.counts(at)
        now_stamp = at.timestamp()
        online_cut = now_stamp - self.windows.online
        try:
            pipe = self._client.pipeline(transaction=True)
            pipe.zcount(self.seen_key, online_cut, "+inf")
            pipe.zcount(self.seen_key, now_stamp - self.windows.recent, f"({online_cut}")
            online, recent = pipe.execute()
        except (redis.RedisError, OSError) as exc:
            self._failed(exc)
            return self._local.counts(at)
        self._worked()
        return int(online), int(recent)

    def close(self) -> None:
        """Release the connections to Redis."""
        self._client.close()


def make_presence(settings: Settings) -> Presence:
    """The store for this process: shared through Redis (under the site's prefix) when the
    settings name a Redis URL, else in memory."""
    windows = Windows(
        settings.presence_online_seconds,
        max(settings.presence_recent_seconds, settings.presence_online_seconds),
    )
    if settings.redis_url:
        return RedisPresence(settings.redis_url, redis_prefix(site_name(settings)), windows)
    return MemoryPresence(windows)
