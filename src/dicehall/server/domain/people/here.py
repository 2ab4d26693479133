"""Who is here: noting people as they use the site, and the list each member sees.

What counts (see docs/site.md, "Who is here"):

- *Seen*: a signed-in API request, a page opened, and an open push socket (touched when it
  connects and every :attr:`~presence.Windows.heartbeat` seconds while it stays open). A
  closed socket is not taken out: its user stays online until ``online`` seconds after the
  last touch, so a reload never flickers.
- *At what*: a game (its board's socket, its page, or an API call on it); looking for a
  game (the waiting room, a new-game page, the auto-match and tournament pages, or the
  ``open`` games and auto-match APIs); any other page is idle; an API call that names no
  game keeps what it was.
- *Doing*, decided when the list is made: ``playing`` a game they sit in that is in
  progress (its id and kind shown only to a viewer who may watch it), ``looking`` for a
  game (at the waiting room or a new-game page, or sitting in a game waiting for players),
  else ``idle``.

Who hides (the ``show_presence`` setting) is never listed nor counted; between two people
across an ignore neither sees the other. A viewer's buddies come first.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import re
from collections.abc import AsyncIterator, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import date, datetime, time
from typing import Any, Literal, cast

import anyio.to_thread
from sqlalchemy import Connection, Table, and_, or_, select, update
from sqlalchemy.exc import SQLAlchemyError

from dicehall.server.core.clock import aware, now
from dicehall.server.core.ids import in_id_range
from dicehall.server.core.models import Relation, User
from dicehall.server.core.writelock import Busy
from dicehall.server.domain.games.privacy import may_watch
from dicehall.server.domain.games.records import (
    GAMES,
    SEAT_COLUMNS,
    SEATS,
    GameRecord,
    SeatInfo,
    seat_of,
    variant_title,
)
from dicehall.server.domain.people import settings
from dicehall.server.domain.people.relations import others_across_an_ignore
from dicehall.server.domain.services import Services
from dicehall.server.infra.presence import IDLE, LOOKING, Activity, Seen, at_game

log = logging.getLogger(__name__)

USERS = cast(Table, User.__table__)
RELATIONS = cast(Table, Relation.__table__)

#: The most people one list (online, recent) shows; the counts say how many there are.
LIST_MOST = 200

_API_GAME = re.compile(r"/api/v1/games/(\d{1,10})(?:/|$)")
_PAGE_GAME = re.compile(r"/games/(\d{1,10})(?:/|$)")
_LOOKING_PAGES = re.compile(r"/(?:waiting|new|automatch|tournaments)(?:/|$)")


def _game_in(pattern: re.Pattern[str], path: str) -> int | None:
    """The game id ``path`` names, when a stored game could have it (a request for game
    99999999999 was refused, and must not make a later listing look that id up)."""
    found = pattern.match(path)
    return int(found.group(1)) if found and in_id_range(int(found.group(1))) else None


def activity_of_path(path: str) -> Activity | None:
    """What a request for ``path`` says its user is at (None: an API call that says
    nothing, which keeps what they were at)."""
    if path.startswith("/api/"):
        if path in ("/api/v1/games/open", "/api/v1/automatch"):
            return LOOKING
        game = _game_in(_API_GAME, path)
        return at_game(game) if game is not None else None
    if _LOOKING_PAGES.match(path):
        return LOOKING
    game = _game_in(_PAGE_GAME, path)
    return at_game(game) if game is not None else IDLE


def shows_presence(stored_settings: str | None) -> bool:
    """Whether stored settings (JSON) let their user appear on Who is here (a quick read of
    one key: only a stored ``false`` hides, as :func:`settings.parse` would decide)."""
    if not stored_settings or "show_presence" not in stored_settings:
        return True
    try:
        raw = json.loads(stored_settings)
    except ValueError:
        return True
    return not (isinstance(raw, dict) and raw.get("show_presence") is False)


# -- noting ------------------------------------------------------------------------------------


def note(
    services: Services,
    user_pk: int,
    activity: Activity | None,
    *,
    shown: bool,
    last_seen_at: datetime | None,
) -> None:
    """``user_pk`` is here now (at ``activity``); their day of last visit is written at most
    once a day (by :data:`LAST_SEEN_WRITER`). Blocking (Redis): call it off the event loop.
    Never raises for a store or database that fails (presence is best effort)."""
    at = now()
    services.presence.touch(user_pk, activity, at, shown=shown)
    if last_seen_at is not None and aware(last_seen_at).date() >= at.date():
        return
    if services.presence.first_today(user_pk, at.date()):
        LAST_SEEN_WRITER.submit(_write_day, services, user_pk, at)
    _day_handled(services, user_pk, at.date())


#: The day whose visit this process saw handled, by user: a user object cached before it
#: was written (``last_seen_at`` still yesterday's) must not send every request to
#: :func:`note_user` for the rest of the day.
_DAY_HANDLED: dict[tuple[int, int], date] = {}
_DAY_HANDLED_MOST = 100_000


def _day_handled(services: Services, user_pk: int, day: date) -> None:
    if len(_DAY_HANDLED) >= _DAY_HANDLED_MOST:
        _DAY_HANDLED.clear()
    _DAY_HANDLED[id(services.presence), user_pk] = day


#: The one thread that writes the days of last visits: no request waits on the database's
#: write lock for one, and a burst of first visits of the day takes one thread, not many.
LAST_SEEN_WRITER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="dicehall-last-seen")


def _write_day(services: Services, user_pk: int, at: datetime) -> None:
    start_of_day = datetime.combine(at.date(), time(), at.tzinfo)
    try:
        with services.write_conn() as conn:
            conn.execute(
                update(USERS)
                .where(
                    USERS.c.id == user_pk,
                    or_(USERS.c.last_seen_at.is_(None), USERS.c.last_seen_at < start_of_day),
                )
                .values(last_seen_at=at)
            )
    except (SQLAlchemyError, Busy) as exc:
        log.warning("could not note when user %s was last here: %s", user_pk, exc)


def note_user(services: Services, user: User, activity: Activity | None) -> None:
    """:func:`note` for a signed-in user as their request found them (blocking)."""
    note(
        services,
        user.id,
        activity,
        shown=shows_presence(user.settings),
        last_seen_at=user.last_seen_at,
    )


def note_user_soon(services: Services, user: User, activity: Activity | None) -> None:
    """:func:`note_user` now in a worker thread, or handed to one from the event loop."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        note_user(services, user, activity)
        return
    loop.run_in_executor(None, functools.partial(note_user, services, user, activity))


def noted_lately(services: Services, user: User, activity: Activity | None) -> bool:
    """True when :func:`note_user` would do nothing now (an unchanged touch within the
    throttle, the day's visit written): a look-up, safe on the event loop."""
    at = now()
    seen_today = (
        user.last_seen_at is not None and aware(user.last_seen_at).date() >= at.date()
    ) or _DAY_HANDLED.get((id(services.presence), user.id)) == at.date()
    shown = shows_presence(user.settings)
    return seen_today and services.presence.unchanged(user.id, activity, at, shown=shown)


def note_pk(services: Services, user_pk: int, activity: Activity | None) -> None:
    """:func:`note` for ``user_pk``, their settings read now (a socket's heartbeat)."""
    try:
        with services.read_conn() as conn:
            row = conn.execute(
                select(USERS.c.settings, USERS.c.last_seen_at).where(USERS.c.id == user_pk)
            ).first()
    except SQLAlchemyError as exc:
        log.warning("could not read user %s for Who is here: %s", user_pk, exc)
        return
    if row is not None:
        note(
            services,
            user_pk,
            activity,
            shown=shows_presence(row.settings),
            last_seen_at=row.last_seen_at,
        )


@contextlib.asynccontextmanager
async def kept_present(
    services: Services, user_pk: int, activity: Activity | None
) -> AsyncIterator[None]:
    """While the context is open (an open socket), ``user_pk`` is noted now and every
    heartbeat. Leaving takes nobody out: they drop out ``online`` seconds after the last."""

    async def beat() -> None:
        while True:
            await asyncio.sleep(services.presence.windows.heartbeat)
            await anyio.to_thread.run_sync(note_pk, services, user_pk, activity)

    # Noted before the socket says hello, so whoever looks next already sees them.
    await anyio.to_thread.run_sync(note_pk, services, user_pk, activity)
    task = asyncio.create_task(beat())
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


def counts(services: Services) -> tuple[int, int]:
    """How many are online now, and how many more were here recently (blocking; cheap:
    the store's counts only)."""
    return services.presence.counts(now())


# -- the list ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Doing:
    """What a listed person is doing, as a viewer may know it."""

    what: Literal["playing", "looking", "idle"]
    #: The game they play, and its kind: only for a game the viewer may watch.
    game: int | None = None
    kind: str | None = None
    #: That game's name as its options make it ("Triple Boatzee").
    title: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {"what": self.what, "game": self.game, "kind": self.kind}


@dataclass(frozen=True)
class Present:
    """A person on the list."""

    user_id: str
    display_name: str
    doing: Doing
    #: The viewer names them a buddy.
    buddy: bool
    seen_at: datetime

    def as_json(self) -> dict[str, Any]:
        return {
            "user_id": self.user_id,
            "display_name": self.display_name,
            "doing": self.doing.as_json(),
            "buddy": self.buddy,
            "seen_at": self.seen_at.isoformat(),
        }


@dataclass(frozen=True)
class Here:
    """Who is here as one viewer sees it: each list at most :data:`LIST_MOST` long, and
    how many each has in all."""

    online: list[Present]
    recent: list[Present]
    online_count: int
    recent_count: int

    def as_json(self) -> dict[str, Any]:
        return {
            "online": [p.as_json() for p in self.online],
            "recent": [p.as_json() for p in self.recent],
            "counts": {"online": self.online_count, "recent": self.recent_count},
        }


def who_is_here(
    conn: Connection, services: Services, viewer_pk: int | None, at: datetime | None = None
) -> Here:
    """Who is here, as ``viewer_pk`` sees it (None: a signed-out visitor, who has no buddies
    and no ignores): online (buddies first, then by name) and recently here (buddies first,
    then the most recently seen)."""
    online_seen, recent_seen = services.presence.listing(at or now())
    seen = [*online_seen, *recent_seen]
    apart = others_across_an_ignore(conn, viewer_pk) if viewer_pk is not None else set()
    people = {
        row.id: row
        for row in conn.execute(
            select(USERS.c.id, USERS.c.user_id, USERS.c.display_name, USERS.c.settings).where(
                USERS.c.id.in_({s.user_pk for s in seen} - apart)
            )
        )
        if settings.parse(row.settings).show_presence
    }
    seen = [s for s in seen if s.user_pk in people]
    buddies = (
        set(
            conn.scalars(
                select(RELATIONS.c.target_pk).where(
                    RELATIONS.c.owner_pk == viewer_pk,
                    RELATIONS.c.kind == "buddy",
                    RELATIONS.c.target_pk.in_(people),
                )
            )
        )
        if viewer_pk is not None
        else set()
    )
    doings = _doings(conn, viewer_pk, seen)

    def shown(s: Seen) -> Present:
        row = people[s.user_pk]
        return Present(
            row.user_id, row.display_name, doings[s.user_pk], s.user_pk in buddies, s.seen_at
        )

    online = sorted(
        (shown(s) for s in online_seen if s.user_pk in people),
        key=lambda p: (not p.buddy, p.display_name.casefold(), p.user_id.casefold()),
    )
    recent = sorted(
        (shown(s) for s in recent_seen if s.user_pk in people),
        key=lambda p: (not p.buddy, -p.seen_at.timestamp()),
    )
    return Here(online[:LIST_MOST], recent[:LIST_MOST], len(online), len(recent))


def _doings(conn: Connection, viewer_pk: int | None, seen: Iterable[Seen]) -> dict[int, Doing]:
    """What each of ``seen`` is doing, as ``viewer_pk`` may know it (three queries in all)."""
    seen = list(seen)
    if not seen:
        return {}
    game_ids = {s.activity.game for s in seen if s.activity.game is not None}
    records = {
        row.id: GameRecord.of(row)
        for row in (conn.execute(select(GAMES).where(GAMES.c.id.in_(game_ids))) if game_ids else ())
    }
    seats: dict[int, list[SeatInfo]] = {}
    if records:
        for row in conn.execute(
            select(SEATS.c.game_id, *SEAT_COLUMNS)
            .select_from(SEATS.outerjoin(USERS, USERS.c.id == SEATS.c.user_pk))
            .where(SEATS.c.game_id.in_(records))
            .order_by(SEATS.c.game_id, SEATS.c.seat)
        ):
            seats.setdefault(row.game_id, []).append(seat_of(row))
    waiting = set(
        conn.scalars(
            select(SEATS.c.user_pk)
            .join(GAMES, GAMES.c.id == SEATS.c.game_id)
            .where(
                and_(
                    GAMES.c.status == "waiting",
                    SEATS.c.invited.is_(False),
                    SEATS.c.user_pk.in_({s.user_pk for s in seen}),
                )
            )
        )
    )
    visible: dict[int, bool] = {}

    def doing(s: Seen) -> Doing:
        record = records.get(s.activity.game) if s.activity.game is not None else None
        if record is not None:
            its_seats = seats.get(record.id, [])
            mine = [seat for seat in its_seats if seat.user_pk == s.user_pk]
            if record.status == "active" and any(seat.is_person for seat in mine):
                if record.id not in visible:
                    visible[record.id] = may_watch(conn, record, its_seats, viewer_pk)
                if visible[record.id]:
                    title = variant_title(record.kind, record.options)
                    return Doing("playing", record.id, record.kind, title)
                return Doing("playing")
        if s.activity.what == "looking" or s.user_pk in waiting:
            return Doing("looking")
        return Doing("idle")

    return {s.user_pk: doing(s) for s in seen}
