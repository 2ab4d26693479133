"""Games on the site: create, join, list, view, and the move transaction.

A move runs in one transaction: load the game (locked), compare the client's version, check
the seat and the action, apply it, resolve chance from the dice pool, let bots at the table
act until a human must act, append the events, store the snapshot and the new version.
The hot path uses SQLAlchemy Core on a plain connection and a handful of statements.
"""

from __future__ import annotations

import json
import random
import secrets
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Connection, Table, bindparam, case, func, insert, select, update
from sqlalchemy.engine import Row

from dicehall import games
from dicehall.engine import codec
from dicehall.engine.bots import Bot
from dicehall.engine.chance import Draw, Roll
from dicehall.engine.errors import InvalidInput
from dicehall.engine.events import Acted, Event, Resolved, decode_event
from dicehall.engine.game import Chance, Finished, Game, ToAct
from dicehall.server.api.errors import ApiError
from dicehall.server.clock import aware, now
from dicehall.server.models import EventRow, GameRow, IdempotencyRow, SeatRow, User
from dicehall.server.pool import SET_SIZE, DicePool

MAX_ADVANCE_STEPS = 100_000

GAMES = cast(Table, GameRow.__table__)
SEATS = cast(Table, SeatRow.__table__)
EVENTS = cast(Table, EventRow.__table__)
KEYS = cast(Table, IdempotencyRow.__table__)
USERS = cast(Table, User.__table__)

Step = tuple[Event, int | None]
"""An event and, for a roll served from the pool, the id of its first dice set."""


@dataclass(frozen=True)
class SeatInfo:
    """Who sits in a seat."""

    seat: int
    user_pk: int | None
    user_id: str | None
    bot: str | None

    @property
    def is_open(self) -> bool:
        """Nobody has taken this seat yet."""
        return self.user_pk is None and self.bot is None

    def as_json(self) -> dict[str, Any]:
        """The seat as the API shows it."""
        return {"seat": self.seat, "user": self.user_id, "bot": self.bot, "open": self.is_open}


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
    #: The database it lives in (decoded states are cached per database, game and version).
    db: str

    @classmethod
    def of(cls, row: Row[Any], conn: Connection) -> GameRecord:
        """From a ``games`` row read through ``conn``."""
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
            database_of(conn),
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


def database_of(conn: Connection) -> str:
    """Which database ``conn`` talks to (its URL without the password)."""
    return conn.engine.url.render_as_string(hide_password=True)


# Decoded states by (database, game, version) and options by (database, game): each is
# decoded once per process.
_states = _Cache(4096)
_options = _Cache(4096)
_bots: dict[tuple[str, str], Bot] = {}
_bots_lock = threading.Lock()


def _bot(kind: str, name: str) -> Bot:
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
        raise ApiError(422, "unknown_game", str(exc)) from exc


def load_state(record: GameRecord) -> Any:
    """The decoded current state of a started game."""
    cached = _states.get((record.db, record.id, record.version))
    if cached is not None:
        return cached
    if record.snapshot is None:
        raise ApiError(409, "not_started", "this game is waiting for players")
    state = codec.loads(record.snapshot, entry_of(record.kind).game.state_type)
    _states.put((record.db, record.id, record.version), state)
    return state


def load_options(record: GameRecord) -> Any:
    """The decoded options of a game."""
    cached = _options.get((record.db, record.id))
    if cached is None:
        cached = codec.loads(record.options, entry_of(record.kind).game.options_type)
        _options.put((record.db, record.id), cached)
    return cached


# The hot path's statements are built once: SQLAlchemy then skips rebuilding them and
# recomputing their cache keys on every move, which was most of a move's CPU time.
_GAME_BY_ID = select(GAMES).where(GAMES.c.id == bindparam("b_game"))
_GAME_BY_ID_LOCKED = _GAME_BY_ID.with_for_update()
_SEATS_OF = (
    select(SEATS.c.seat, SEATS.c.user_pk, USERS.c.user_id, SEATS.c.bot)
    .select_from(SEATS.outerjoin(USERS, USERS.c.id == SEATS.c.user_pk))
    .where(SEATS.c.game_id == bindparam("b_game"))
    .order_by(SEATS.c.seat)
)
_INSERT_EVENTS = insert(EVENTS)
_UPDATE_GAME = (
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
    )
)
_FIND_KEY = select(KEYS.c.game_id).where(
    KEYS.c.user_pk == bindparam("b_user"), KEYS.c.key == bindparam("b_key")
)
_INSERT_KEY = insert(KEYS)


def fetch_game(conn: Connection, game_id: int, *, lock: bool = False) -> GameRecord:
    """A game by id (row-locked for a write on PostgreSQL); 404 when there is none."""
    query = _GAME_BY_ID_LOCKED if lock else _GAME_BY_ID
    row = conn.execute(query, {"b_game": game_id}).first()
    if row is None:
        raise ApiError(404, "not_found", f"there is no game {game_id}")
    return GameRecord.of(row, conn)


def seats_of(conn: Connection, game_id: int) -> list[SeatInfo]:
    """The seats of a game in order, with user handles."""
    rows = conn.execute(_SEATS_OF, {"b_game": game_id}).all()
    return [SeatInfo(r.seat, r.user_pk, r.user_id, r.bot) for r in rows]


# -- creating and joining ----------------------------------------------------------------------


def parse_seat_specs(
    conn: Connection, creator: User, specs: Sequence[str], kind: str
) -> list[SeatInfo]:
    """Seats from ``me``, ``user:NAME`` (or a bare user id), ``bot:NAME`` and ``open``."""
    entry = entry_of(kind)
    seats: list[SeatInfo] = []
    for index, raw in enumerate(specs):
        spec = raw.strip()
        lowered = spec.lower()
        if lowered == "me":
            seats.append(SeatInfo(index, creator.id, creator.user_id, None))
        elif lowered == "open":
            seats.append(SeatInfo(index, None, None, None))
        elif lowered.startswith("bot:"):
            name = lowered[4:].strip()
            entry.bot(name, random.Random(0))  # raises InvalidInput for unknown bots
            seats.append(SeatInfo(index, None, None, name))
        else:
            handle = (spec[5:] if lowered.startswith("user:") else spec).strip()
            found = conn.execute(
                select(USERS.c.id, USERS.c.user_id).where(USERS.c.key == handle.lower())
            ).first()
            if found is None:
                raise ApiError(422, "unknown_user", f"there is no user {handle!r}")
            seats.append(SeatInfo(index, found.id, found.user_id, None))
    humans = [s.user_pk for s in seats if s.user_pk is not None]
    if creator.id not in humans:
        raise ApiError(422, "invalid_seats", "one of the seats must be 'me'")
    if len(humans) != len(set(humans)):
        raise ApiError(422, "invalid_seats", "a player can take only one seat in a game")
    return seats


def create_game(
    conn: Connection,
    pool: DicePool,
    creator: User,
    kind: str,
    raw_options: dict[str, object],
    seat_specs: Sequence[str],
) -> tuple[GameRecord, list[SeatInfo]]:
    """Create a game; it starts at once unless seats are open. Caller commits."""
    entry = entry_of(kind)
    game = entry.game
    options = game.options(raw_options)
    game.check_seats(len(seat_specs))
    seats = parse_seat_specs(conn, creator, seat_specs, entry.name)
    moment = now()
    game_id = conn.execute(
        insert(GAMES)
        .values(
            kind=entry.name,
            options=codec.dumps(options),
            seats=len(seats),
            status="waiting",
            version=0,
            snapshot=None,
            to_act=None,
            result=None,
            event_count=0,
            created_by=creator.id,
            created_at=moment,
            updated_at=moment,
        )
        .returning(GAMES.c.id)
    ).scalar_one()
    conn.execute(
        insert(SEATS),
        [{"game_id": game_id, "seat": s.seat, "user_pk": s.user_pk, "bot": s.bot} for s in seats],
    )
    record = fetch_game(conn, game_id)
    if not any(s.is_open for s in seats):
        record = _start(conn, pool, record, seats)
    return record, seats


def join_game(
    conn: Connection, pool: DicePool, user: User, record: GameRecord, seat: int | None
) -> tuple[GameRecord, list[SeatInfo]]:
    """Take an open seat (the first, or the one asked for); the last one starts the game."""
    if record.status != "waiting":
        raise ApiError(409, "not_open", "this game has no open seats")
    seats = seats_of(conn, record.id)
    if any(s.user_pk == user.id for s in seats):
        raise ApiError(409, "already_seated", "you already have a seat in this game")
    open_seats = [s for s in seats if s.is_open and (seat is None or s.seat == seat)]
    if not open_seats:
        raise ApiError(409, "seat_taken", f"seat {seat} is not open")
    chosen = open_seats[0]
    conn.execute(
        update(SEATS)
        .where(SEATS.c.game_id == record.id, SEATS.c.seat == chosen.seat)
        .values(user_pk=user.id)
    )
    seats[chosen.seat] = SeatInfo(chosen.seat, user.id, user.user_id, None)
    record = replace(record, version=record.version + 1, updated_at=now())
    conn.execute(
        update(GAMES)
        .where(GAMES.c.id == record.id)
        .values(version=record.version, updated_at=record.updated_at)
    )
    if any(s.is_open for s in seats):
        return record, seats
    return _start(conn, pool, record, seats), seats


def _start(
    conn: Connection, pool: DicePool, record: GameRecord, seats: list[SeatInfo]
) -> GameRecord:
    game = entry_of(record.kind).game
    state = game.start(record.seats, load_options(record))
    steps: list[Step] = []
    state = _advance(conn, pool, record, seats, state, steps)
    return _store(conn, record, state, steps)


# -- moves -----------------------------------------------------------------------------------


def _resolve_chance(
    conn: Connection, pool: DicePool, game_id: int, request: Roll | Draw
) -> tuple[Resolved, int | None]:
    if isinstance(request, Draw):
        items = list(request.population)
        drawn = [items.pop(secrets.randbelow(len(items))) for _ in range(request.count)]
        return Resolved(tuple(drawn)), None
    if request.sides != 6:  # pragma: no cover - every game rolls six-sided dice
        raise ApiError(500, "bad_dice", "the pool serves six-sided dice only")
    needed = max(1, -(-request.count // SET_SIZE))
    served = pool.take(conn, needed, game_id)
    faces = tuple(f for s in served for f in s.faces)[: request.count]
    return Resolved(faces), served[0].set_id


def _advance(
    conn: Connection,
    pool: DicePool,
    record: GameRecord,
    seats: list[SeatInfo],
    state: Any,
    steps: list[Step],
) -> Any:
    """Resolve chance and let bots act until a human must act or the game ends."""
    game: Game[Any, Any, Any, Any] = entry_of(record.kind).game
    bots = {s.seat: s.bot for s in seats if s.bot is not None}
    for _ in range(MAX_ADVANCE_STEPS):
        turn = game.turn(state)
        if isinstance(turn, Chance):
            event, set_id = _resolve_chance(conn, pool, record.id, turn.request)
            state = game.resolve(state, event.outcome)
            steps.append((event, set_id))
        elif isinstance(turn, ToAct) and turn.seat in bots:
            bot = _bot(record.kind, bots[turn.seat])
            legal = game.legal(state, turn.seat)
            action = bot.choose(game.view(state, turn.seat), legal)
            state = game.act(state, turn.seat, action)
            steps.append((Acted(turn.seat, action), None))
        else:
            return state
    raise ApiError(500, "runaway", "the bots did not finish their turns")


def _store(conn: Connection, record: GameRecord, state: Any, steps: list[Step]) -> GameRecord:
    """Append the events and write the new snapshot and version; return the new record."""
    game = entry_of(record.kind).game
    moment = now()
    if steps:
        conn.execute(
            _INSERT_EVENTS,
            [
                {
                    "game_id": record.id,
                    "seq": record.event_count + i,
                    "data": codec.dumps(event),
                    "dice_set": dice_set,
                    "created_at": moment,
                }
                for i, (event, dice_set) in enumerate(steps)
            ],
        )
    turn = game.turn(state)
    finished = isinstance(turn, Finished)
    new = replace(
        record,
        status="finished" if finished else "active",
        version=record.version + 1,
        snapshot=codec.dumps(state),
        to_act=turn.seat if isinstance(turn, ToAct) else None,
        result=codec.dumps(turn.result) if isinstance(turn, Finished) else None,
        event_count=record.event_count + len(steps),
        updated_at=moment,
    )
    conn.execute(
        _UPDATE_GAME,
        {
            "b_game": record.id,
            "b_status": new.status,
            "b_version": new.version,
            "b_snapshot": new.snapshot,
            "b_to_act": new.to_act,
            "b_result": new.result,
            "b_events": new.event_count,
            "b_updated": moment,
        },
    )
    _states.put((new.db, new.id, new.version), state)
    return new


def find_replay(conn: Connection, user: User, key: str) -> int | None:
    """The game a move with this idempotency key was already applied to, if any."""
    found = conn.execute(_FIND_KEY, {"b_user": user.id, "b_key": key}).first()
    return None if found is None else int(found.game_id)


def apply_move(
    conn: Connection,
    pool: DicePool,
    user: User,
    record: GameRecord,
    action_data: object,
    expected_version: int,
    key: str | None,
) -> tuple[GameRecord, list[SeatInfo]]:
    """Apply a player's action and everything that follows it. Caller commits."""
    if record.status == "waiting":
        raise ApiError(409, "not_started", "this game is waiting for players")
    if record.status == "finished":
        raise ApiError(409, "finished", "this game is over", version=record.version)
    seats = seats_of(conn, record.id)
    mine = [s.seat for s in seats if s.user_pk == user.id]
    if not mine:
        raise ApiError(403, "not_your_game", "you have no seat in this game")
    if expected_version != record.version:
        raise ApiError(
            409,
            "stale",
            f"the game has moved on (version {record.version}, you sent {expected_version})",
            version=record.version,
        )
    entry = entry_of(record.kind)
    action = codec.decode(action_data, entry.game.action_type, "$.action")
    state = entry.game.act(load_state(record), mine[0], action)
    steps: list[Step] = [(Acted(mine[0], action), None)]
    state = _advance(conn, pool, record, seats, state, steps)
    new = _store(conn, record, state, steps)
    if key is not None:
        conn.execute(
            _INSERT_KEY,
            {
                "user_pk": user.id,
                "key": key,
                "game_id": record.id,
                "version": new.version,
                "created_at": now(),
            },
        )
    return new, seats


# -- reading -----------------------------------------------------------------------------------


def game_payload(record: GameRecord, seats: list[SeatInfo], user: User | None) -> dict[str, Any]:
    """A game as ``user``'s seat sees it (a spectator's view for anyone else)."""
    game = entry_of(record.kind).game
    my_seat = next((s.seat for s in seats if user is not None and s.user_pk == user.id), None)
    payload: dict[str, Any] = {
        "id": record.id,
        "game": record.kind,
        "title": game.title,
        "status": record.status,
        "version": record.version,
        "options": codec.encode(load_options(record)),
        "seats": [s.as_json() for s in seats],
        "my_seat": my_seat,
        "to_act": record.to_act,
        "your_turn": my_seat is not None and record.to_act == my_seat,
        "view": None,
        "legal": [],
        "result": None if record.result is None else json.loads(record.result),
    }
    if record.snapshot is not None:
        state = load_state(record)
        payload["view"] = codec.encode(game.view(state, my_seat))
        if my_seat is not None and record.status == "active":
            payload["legal"] = [codec.encode(a) for a in game.legal(state, my_seat)]
    return payload


def read_game(conn: Connection, game_id: int, user: User | None) -> dict[str, Any]:
    """A game's payload for ``user``, read fresh."""
    record = fetch_game(conn, game_id)
    return game_payload(record, seats_of(conn, game_id), user)


def pushes(record: GameRecord, seats: list[SeatInfo]) -> list[tuple[int, dict[str, Any]]]:
    """The push each seated user gets after a change to a game."""
    return [
        (
            s.user_pk,
            {
                "type": "game",
                "game": record.id,
                "version": record.version,
                "status": record.status,
                "your_turn": record.status == "active" and record.to_act == s.seat,
            },
        )
        for s in seats
        if s.user_pk is not None
    ]


def _summaries(conn: Connection, rows: Sequence[Row[Any]], me: int) -> list[dict[str, Any]]:
    ids = [r.id for r in rows]
    by_game: dict[int, list[SeatInfo]] = {i: [] for i in ids}
    if ids:
        for r in conn.execute(
            select(SEATS.c.game_id, SEATS.c.seat, SEATS.c.user_pk, USERS.c.user_id, SEATS.c.bot)
            .select_from(SEATS.outerjoin(USERS, USERS.c.id == SEATS.c.user_pk))
            .where(SEATS.c.game_id.in_(ids))
            .order_by(SEATS.c.game_id, SEATS.c.seat)
        ):
            by_game[r.game_id].append(SeatInfo(r.seat, r.user_pk, r.user_id, r.bot))
    out = []
    for row in rows:
        record = GameRecord.of(row, conn)
        seats = by_game[record.id]
        mine = next((s.seat for s in seats if s.user_pk == me), None)
        out.append(
            {
                "id": record.id,
                "game": record.kind,
                "status": record.status,
                "version": record.version,
                "to_act": record.to_act,
                "your_turn": record.status == "active"
                and mine is not None
                and record.to_act == mine,
                "seats": [s.as_json() for s in seats],
                "options": codec.encode(load_options(record)),
                "updated_at": record.updated_at.isoformat(),
            }
        )
    return out


def my_games(conn: Connection, user: User, limit: int = 200) -> list[dict[str, Any]]:
    """My games, the ones waiting on me first, then the rest most recently moved first."""
    order = case(
        ((GAMES.c.status == "active") & (GAMES.c.to_act == SEATS.c.seat), 0),
        (GAMES.c.status == "active", 1),
        (GAMES.c.status == "waiting", 2),
        else_=3,
    )
    rows = conn.execute(
        select(GAMES)
        .join(SEATS, SEATS.c.game_id == GAMES.c.id)
        .where(SEATS.c.user_pk == user.id)
        .order_by(order, GAMES.c.updated_at.desc(), GAMES.c.id.desc())
        .limit(limit)
    ).all()
    return _summaries(conn, rows, user.id)


def open_games(conn: Connection, limit: int = 200) -> list[dict[str, Any]]:
    """The waiting room: games with open seats, oldest first."""
    rows = conn.execute(
        select(GAMES).where(GAMES.c.status == "waiting").order_by(GAMES.c.id).limit(limit)
    ).all()
    return _summaries(conn, rows, -1)


def event_log(conn: Connection, game_id: int) -> dict[str, Any]:
    """A finished game's whole record, every die revealed, for replay and audit."""
    record = fetch_game(conn, game_id)
    if record.status != "finished":
        raise ApiError(
            409,
            "in_progress",
            "the full log is published when the game is over (it holds hidden dice)",
        )
    game = entry_of(record.kind).game
    events = conn.execute(
        select(EVENTS.c.data, EVENTS.c.dice_set)
        .where(EVENTS.c.game_id == game_id)
        .order_by(EVENTS.c.seq)
    ).all()
    return {
        "game": record.kind,
        "id": record.id,
        "seats": record.seats,
        "options": codec.encode(load_options(record)),
        "events": [
            {**codec.encode(decode_event(game, json.loads(e.data))), "dice_set": e.dice_set}
            for e in events
        ],
        "result": None if record.result is None else json.loads(record.result),
    }


def count_games(conn: Connection) -> int:
    """How many games the site holds."""
    return int(conn.execute(select(func.count()).select_from(GAMES)).scalar_one())
