"""Game records as plain data, their decoded states and options (cached by the exact stored
text, filled only after commit), and loading a game and its seats."""

from __future__ import annotations

import random
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Connection, Table, bindparam, insert, select, update
from sqlalchemy.engine import Row

from dicehall import games
from dicehall.engine import codec
from dicehall.engine.bots import Bot
from dicehall.engine.errors import CodecError, InvalidInput, InvalidOptions
from dicehall.engine.events import Event
from dicehall.server.core.clock import aware, now
from dicehall.server.core.models import EventRow, GameRow, IdempotencyRow, SeatRow, User
from dicehall.server.domain.dice.decks import DeckUse
from dicehall.server.domain.errors import Refused

#: The most a request (or one slice of the bot driver) does after a move: bot actions and
#: dice rolled. What is left over is the bot driver's work, in further slices.
MAX_ADVANCE_STEPS = 200
MAX_ADVANCE_DICE_SETS = 64

GAMES = cast(Table, GameRow.__table__)
SEATS = cast(Table, SeatRow.__table__)
EVENTS = cast(Table, EventRow.__table__)
KEYS = cast(Table, IdempotencyRow.__table__)
USERS = cast(Table, User.__table__)

Step = tuple[Event, int | DeckUse | None]
"""An event and, for a roll served from the pool, the id of its first dice set."""


@dataclass(frozen=True)
class SeatInfo:
    """Who sits in a seat."""

    seat: int
    user_pk: int | None
    user_id: str | None
    bot: str | None
    #: The user was named by the game's creator and has not accepted yet.
    invited: bool = False
    #: playing, resigned, timed_out or autopilot.
    status: str = "playing"
    #: The user has made a move in this game.
    moved: bool = False
    #: The game's version when the seat resigned or timed out.
    left_version: int | None = None
    #: The end of the seated user's announced absence (see ``vacation``), if any.
    away_until: datetime | None = None
    #: The seated user's settings as stored (JSON; their clock reminders are read from it
    #: on the move path without another query).
    settings: str | None = field(default=None, repr=False, compare=False)

    @property
    def is_open(self) -> bool:
        """Nobody has taken this seat yet."""
        return self.user_pk is None and self.bot is None

    @property
    def is_ready(self) -> bool:
        """Taken by a bot or by a user who agreed to play."""
        return not self.is_open and not self.invited

    @property
    def is_person(self) -> bool:
        """A person plays this seat (not a bot, and not the autopilot for them)."""
        return self.user_pk is not None and self.status == "playing"

    @property
    def forfeited(self) -> bool:
        """The seat resigned or ran out of time (and was not taken back)."""
        return self.status != "playing"

    def acting_bot(self, entry: games.GameEntry) -> str | None:
        """The bot that plays this seat: its own, or the game's autopilot for a person who
        resigned or ran out of time; None when a person plays it."""
        if self.bot is not None:
            return self.bot
        if self.user_pk is not None and self.status != "playing":
            return entry.autopilot_bot()
        return None

    def as_json(self) -> dict[str, Any]:
        """The seat as the API shows it."""
        return {
            "seat": self.seat,
            "user": self.user_id,
            "bot": self.bot,
            "open": self.is_open,
            "invited": self.invited,
            "status": self.status,
            "moved": self.moved,
            "away_until": _ahead(self.away_until),
        }


def _ahead(end: datetime | None) -> str | None:
    # An absence shows until it ends (a stale one left in its row shows as none).
    return end.isoformat() if end is not None and end > now() else None


def seats_json(seats: Sequence[SeatInfo]) -> list[dict[str, Any]]:
    """The seats as the API shows them, each with a ``name`` people can tell apart: the
    user's id, or the bot's name and "bot", numbered when one bot sits twice or more
    ("equity bot 1", "equity bot 2"), or "open seat"."""
    label = [
        s.user_id if s.user_id is not None else f"{s.bot} bot" if s.bot else "open seat"
        for s in seats
    ]
    bots = [s.bot for s in seats if s.bot is not None]
    counters: dict[str, int] = {}
    out = []
    for s, name in zip(seats, label, strict=True):
        if s.bot is not None and bots.count(s.bot) > 1:
            counters[s.bot] = counters.get(s.bot, 0) + 1
            name = f"{name} {counters[s.bot]}"
        out.append({**s.as_json(), "name": name})
    return out


@dataclass(frozen=True)
class GameRecord:
    """A game's row, as plain data."""

    id: int
    kind: str
    options: str
    seats: int
    status: str
    version: int
    snapshot: str | None
    to_act: int | None
    result: str | None
    event_count: int
    updated_at: datetime
    bot_due: bool = False
    #: The pace and the clock as stored (see :mod:`~dicehall.server.domain.games.pace`).
    pace: str | None = None
    clock: str | None = None
    deadline: datetime | None = None
    #: Whether vacation may save a seat from a timeout, and whether only players may watch.
    vacation: bool = True
    private: bool = False
    ended_at: datetime | None = None
    #: The rating kind a rated game counts for (None: unrated), and a ladder game.
    rating_kind: str | None = None
    ladder: bool = False

    @classmethod
    def of(cls, row: Row[Any]) -> GameRecord:
        """From a ``games`` row."""
        return cls(
            row.id,
            row.kind,
            row.options,
            row.seats,
            row.status,
            row.version,
            row.snapshot,
            row.to_act,
            row.result,
            row.event_count,
            aware(row.updated_at),
            bool(row.bot_due),
            row.pace,
            row.clock,
            None if row.deadline is None else aware(row.deadline),
            bool(row.vacation),
            bool(row.private),
            None if row.ended_at is None else aware(row.ended_at),
            row.rating_kind,
            bool(row.ladder),
        )


class _Cache:
    """A small thread-safe LRU map."""

    def __init__(self, size: int) -> None:
        self._items: OrderedDict[Any, Any] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    def get(self, key: Any) -> Any | None:
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key: Any, value: Any) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self._size:
                self._items.popitem(last=False)


# Decoded states and options, keyed by the game kind and the very text they decode from:
# such a key cannot name anything but what it decodes to, whatever happens to ids,
# databases or rolled-back transactions. Filled only after commit.
OPTIONS = _Cache(4096)
_bots: dict[tuple[str, str], Bot] = {}
_bots_lock = threading.Lock()


def quick_bot(kind: str, name: str) -> Bot:
    key = (kind, name)
    with _bots_lock:
        bot = _bots.get(key)
        if bot is None:
            bot = games.get(kind).bot(name, random.SystemRandom())
            _bots[key] = bot
        return bot


def entry_of(kind: str) -> games.GameEntry:
    """The registered game ``kind`` (unknown kinds are a 422)."""
    try:
        return games.get(kind)
    except InvalidInput as exc:
        raise Refused("invalid", "unknown_game", str(exc)) from exc


def variant_title(kind: str, options: object = None) -> str:
    """The name a game of ``kind`` goes by with ``options`` ("Triple Boatzee", "Boatzee
    (yahtzee rules)"): the one function every list, page and notice names a game by.
    ``options``: an options object, their JSON (``codec.encode``) or their stored text;
    None (or options it cannot read): the game's own title. The kind itself for a game no
    longer installed on this site."""
    try:
        entry = games.get(kind)
    except InvalidInput:
        return kind
    if options is None:
        return entry.title
    game = entry.game
    try:
        if isinstance(options, str):
            options = codec.loads(options, game.options_type)
        elif not isinstance(options, game.options_type):
            options = codec.decode(options, game.options_type)
        title = game.variant_title(options)
    except (CodecError, InvalidOptions, TypeError, ValueError):
        return entry.title
    # A game that names no variant answers its own title, which its entry may word better.
    return entry.title if title == game.title else title


def load_state(record: GameRecord) -> Any:
    """The decoded current state of a started game."""
    if record.snapshot is None:
        raise Refused("conflict", "not_started", "this game is waiting for players")
    # Decoded afresh: the compiled codec takes microseconds, less than a cache's upkeep.
    return codec.loads(record.snapshot, entry_of(record.kind).game.state_type)


def load_options(record: GameRecord) -> Any:
    """The decoded options of a game."""
    key = (record.kind, record.options)
    cached = OPTIONS.get(key)
    if cached is None:
        cached = codec.loads(record.options, entry_of(record.kind).game.options_type)
        OPTIONS.put(key, cached)
    return cached


# The hot path's statements are built once: SQLAlchemy then skips rebuilding them and
# recomputing their cache keys on every move, which was most of a move's CPU time.
GAME_BY_ID = select(GAMES).where(GAMES.c.id == bindparam("b_game"))
GAME_BY_ID_LOCKED = GAME_BY_ID.with_for_update()
SEAT_COLUMNS = (
    SEATS.c.seat,
    SEATS.c.user_pk,
    USERS.c.user_id,
    SEATS.c.bot,
    SEATS.c.invited,
    SEATS.c.status,
    SEATS.c.moved,
    SEATS.c.left_version,
    USERS.c.away_until,
    USERS.c.settings,
)
SEATS_OF = (
    select(*SEAT_COLUMNS)
    .select_from(SEATS.outerjoin(USERS, USERS.c.id == SEATS.c.user_pk))
    .where(SEATS.c.game_id == bindparam("b_game"))
    .order_by(SEATS.c.seat)
)
INSERT_EVENTS = insert(EVENTS)
UPDATE_GAME = (
    update(GAMES)
    .where(GAMES.c.id == bindparam("b_game"))
    .values(
        status=bindparam("b_status"),
        version=bindparam("b_version"),
        snapshot=bindparam("b_snapshot"),
        to_act=bindparam("b_to_act"),
        result=bindparam("b_result"),
        event_count=bindparam("b_events"),
        updated_at=bindparam("b_updated"),
        bot_due=bindparam("b_bot_due"),
        driver_lease=None,
        clock=bindparam("b_clock"),
        deadline=bindparam("b_deadline"),
        remind_at=bindparam("b_remind_at"),
        ended_at=bindparam("b_ended_at"),
    )
)
FIND_KEY = select(KEYS.c.game_id, KEYS.c.request_hash).where(
    KEYS.c.user_pk == bindparam("b_user"), KEYS.c.key == bindparam("b_key")
)
INSERT_KEY = insert(KEYS)


def fetch_game(conn: Connection, game_id: int, *, lock: bool = False) -> GameRecord:
    """A game by id (row-locked for a write on PostgreSQL); 404 when there is none."""
    query = GAME_BY_ID_LOCKED if lock else GAME_BY_ID
    row = conn.execute(query, {"b_game": game_id}).first()
    if row is None:
        raise Refused("not_found", "not_found", f"there is no game {game_id}")
    return GameRecord.of(row)


def seats_of(conn: Connection, game_id: int) -> list[SeatInfo]:
    """The seats of a game in order, with user handles."""
    rows = conn.execute(SEATS_OF, {"b_game": game_id}).all()
    return [seat_of(r) for r in rows]


def seat_of(row: Row[Any] | Any) -> SeatInfo:
    """A seat from a row with :data:`SEAT_COLUMNS`."""
    return SeatInfo(
        row.seat,
        row.user_pk,
        row.user_id,
        row.bot,
        row.invited,
        row.status,
        bool(row.moved),
        row.left_version,
        None if row.away_until is None else aware(row.away_until),
        row.settings,
    )
