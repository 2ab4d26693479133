"""Games on the site: create, join, list, view, and the move transaction.

A move runs in one transaction: load the game (locked), compare the client's version, check
the seat and the action, apply it, resolve chance from the dice pool, let bots at the table
act until a human must act, append the events, store the snapshot and the new version.
"""

from __future__ import annotations

import json
import random
import secrets
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import case, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from dicehall import games
from dicehall.engine import codec
from dicehall.engine.bots import Bot
from dicehall.engine.chance import Draw, Roll
from dicehall.engine.errors import DicehallError, InvalidInput
from dicehall.engine.events import Acted, Event, Resolved, decode_event
from dicehall.engine.game import Chance, Finished, Game, ToAct, Turn
from dicehall.server.api.errors import ApiError
from dicehall.server.clock import aware, now
from dicehall.server.models import EventRow, GameRow, IdempotencyRow, SeatRow, User
from dicehall.server.pool import SET_SIZE, DicePool

MAX_ADVANCE_STEPS = 100_000

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


class _StateCache:
    """Decoded states by (game, version): a snapshot is decoded once per process."""

    def __init__(self, size: int = 2048) -> None:
        self._items: OrderedDict[tuple[int, int], Any] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    def get(self, key: tuple[int, int]) -> Any | None:
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key: tuple[int, int], value: Any) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self._size:
                self._items.popitem(last=False)


_states = _StateCache()
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


def load_state(row: GameRow) -> Any:
    """The decoded current state of a started game."""
    cached = _states.get((row.id, row.version))
    if cached is not None:
        return cached
    if row.snapshot is None:
        raise ApiError(409, "not_started", "this game is waiting for players")
    state = codec.loads(row.snapshot, entry_of(row.kind).game.state_type)
    _states.put((row.id, row.version), state)
    return state


def load_options(row: GameRow) -> Any:
    """The decoded options of a game."""
    return codec.loads(row.options, entry_of(row.kind).game.options_type)


def seats_of(db: Session, game_id: int) -> list[SeatInfo]:
    """The seats of a game in order, with user handles."""
    rows = db.execute(
        select(SeatRow.seat, SeatRow.user_pk, User.user_id, SeatRow.bot)
        .outerjoin(User, User.id == SeatRow.user_pk)
        .where(SeatRow.game_id == game_id)
        .order_by(SeatRow.seat)
    ).all()
    return [SeatInfo(r.seat, r.user_pk, r.user_id, r.bot) for r in rows]


# -- creating and joining ----------------------------------------------------------------------


def parse_seat_specs(db: Session, creator: User, specs: Sequence[str], kind: str) -> list[SeatInfo]:
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
            handle = spec[5:] if lowered.startswith("user:") else spec
            user = db.scalar(select(User).where(User.key == handle.strip().lower()))
            if user is None:
                raise ApiError(422, "unknown_user", f"there is no user {handle.strip()!r}")
            seats.append(SeatInfo(index, user.id, user.user_id, None))
    humans = [s.user_pk for s in seats if s.user_pk is not None]
    if creator.id not in humans:
        raise ApiError(422, "invalid_seats", "one of the seats must be 'me'")
    if len(humans) != len(set(humans)):
        raise ApiError(422, "invalid_seats", "a player can take only one seat in a game")
    return seats


def create_game(
    db: Session,
    pool: DicePool,
    creator: User,
    kind: str,
    raw_options: dict[str, object],
    seat_specs: Sequence[str],
) -> tuple[GameRow, list[Event]]:
    """Create a game; it starts at once unless seats are open. Caller commits."""
    entry = entry_of(kind)
    game = entry.game
    options = game.options(raw_options)
    game.check_seats(len(seat_specs))
    seats = parse_seat_specs(db, creator, seat_specs, entry.name)
    moment = now()
    row = GameRow(
        kind=entry.name,
        options=codec.dumps(options),
        seats=len(seats),
        status="waiting",
        version=0,
        snapshot=None,
        to_act=None,
        result=None,
        created_by=creator.id,
        created_at=moment,
        updated_at=moment,
    )
    db.add(row)
    db.flush()
    db.add_all(SeatRow(game_id=row.id, seat=s.seat, user_pk=s.user_pk, bot=s.bot) for s in seats)
    db.flush()
    events: list[Event] = []
    if not any(s.is_open for s in seats):
        events = _start(db, pool, row, seats)
    return row, events


def join_game(
    db: Session, pool: DicePool, user: User, row: GameRow, seat: int | None
) -> list[Event]:
    """Take an open seat (the first, or the one asked for); the last one starts the game."""
    if row.status != "waiting":
        raise ApiError(409, "not_open", "this game has no open seats")
    seats = seats_of(db, row.id)
    if any(s.user_pk == user.id for s in seats):
        raise ApiError(409, "already_seated", "you already have a seat in this game")
    open_seats = [s for s in seats if s.is_open]
    if seat is None:
        chosen = open_seats[0]
    else:
        matches = [s for s in open_seats if s.seat == seat]
        if not matches:
            raise ApiError(409, "seat_taken", f"seat {seat} is not open")
        chosen = matches[0]
    seat_row = db.scalar(
        select(SeatRow).where(SeatRow.game_id == row.id, SeatRow.seat == chosen.seat)
    )
    assert seat_row is not None
    seat_row.user_pk = user.id
    row.version += 1
    row.updated_at = now()
    db.flush()
    seats = seats_of(db, row.id)
    if any(s.is_open for s in seats):
        return []
    return _start(db, pool, row, seats)


def _start(db: Session, pool: DicePool, row: GameRow, seats: list[SeatInfo]) -> list[Event]:
    game = entry_of(row.kind).game
    state = game.start(row.seats, load_options(row))
    row.status = "active"
    steps: list[Step] = []
    state = _advance(db, pool, row, seats, state, steps)
    _store(db, row, state, steps, first_seq=0)
    return [event for event, _ in steps]


# -- moves -----------------------------------------------------------------------------------


def _resolve_chance(
    db: Session, pool: DicePool, row: GameRow, request: Roll | Draw
) -> tuple[Resolved, int | None]:
    if isinstance(request, Draw):
        items = list(request.population)
        drawn = []
        for _ in range(request.count):
            drawn.append(items.pop(secrets.randbelow(len(items))))
        return Resolved(tuple(drawn)), None
    if request.sides != 6:  # pragma: no cover - every game rolls six-sided dice
        raise ApiError(500, "bad_dice", "the pool serves six-sided dice only")
    needed = max(1, -(-request.count // SET_SIZE))
    served = pool.take(db, needed, row.id)
    faces = tuple(f for s in served for f in s.faces)[: request.count]
    return Resolved(faces), served[0].set_id


def _advance(
    db: Session,
    pool: DicePool,
    row: GameRow,
    seats: list[SeatInfo],
    state: Any,
    steps: list[Step],
) -> Any:
    """Resolve chance and let bots act until a human must act or the game ends."""
    game: Game[Any, Any, Any, Any] = entry_of(row.kind).game
    bots = {s.seat: s.bot for s in seats if s.bot is not None}
    for _ in range(MAX_ADVANCE_STEPS):
        turn = game.turn(state)
        if isinstance(turn, Chance):
            event, set_id = _resolve_chance(db, pool, row, turn.request)
            state = game.resolve(state, event.outcome)
            steps.append((event, set_id))
        elif isinstance(turn, ToAct) and turn.seat in bots:
            bot = _bot(row.kind, bots[turn.seat])
            legal = game.legal(state, turn.seat)
            action = bot.choose(game.view(state, turn.seat), legal)
            state = game.act(state, turn.seat, action)
            steps.append((Acted(turn.seat, action), None))
        else:
            return state
    raise ApiError(500, "runaway", "the bots did not finish their turns")


def _store(db: Session, row: GameRow, state: Any, steps: list[Step], first_seq: int) -> None:
    game = entry_of(row.kind).game
    moment = now()
    db.add_all(
        EventRow(
            game_id=row.id,
            seq=first_seq + i,
            data=codec.dumps(event),
            dice_set=dice_set,
            created_at=moment,
        )
        for i, (event, dice_set) in enumerate(steps)
    )
    turn = game.turn(state)
    row.snapshot = codec.dumps(state)
    row.version += 1
    row.updated_at = moment
    _set_status(row, turn)
    _states.put((row.id, row.version), state)


def _set_status(row: GameRow, turn: Turn) -> None:
    if isinstance(turn, Finished):
        row.status = "finished"
        row.to_act = None
        row.result = codec.dumps(turn.result)
    elif isinstance(turn, ToAct):
        row.to_act = turn.seat
    else:  # pragma: no cover - _advance resolves all chance
        row.to_act = None


def event_count(db: Session, game_id: int) -> int:
    """How many events a game has logged."""
    last = db.scalar(
        select(EventRow.seq).where(EventRow.game_id == game_id).order_by(EventRow.seq.desc())
    )
    return 0 if last is None else last + 1


def lock_game(db: Session, game_id: int) -> GameRow:
    """Load a game for a write (row-locked on PostgreSQL; SQLite locks the database)."""
    row = db.scalar(select(GameRow).where(GameRow.id == game_id).with_for_update())
    if row is None:
        raise ApiError(404, "not_found", f"there is no game {game_id}")
    return row


def find_replay(db: Session, user: User, key: str) -> IdempotencyRow | None:
    """A move already applied under this idempotency key."""
    return db.get(IdempotencyRow, (user.id, key))


def apply_move(
    db: Session,
    pool: DicePool,
    user: User,
    row: GameRow,
    action_data: object,
    expected_version: int,
    key: str | None,
) -> list[Event]:
    """Apply a player's action and everything that follows it. Caller commits."""
    if row.status == "waiting":
        raise ApiError(409, "not_started", "this game is waiting for players")
    if row.status == "finished":
        raise ApiError(409, "finished", "this game is over", version=row.version)
    seats = seats_of(db, row.id)
    mine = [s.seat for s in seats if s.user_pk == user.id]
    if not mine:
        raise ApiError(403, "not_your_game", "you have no seat in this game")
    if expected_version != row.version:
        raise ApiError(
            409,
            "stale",
            f"the game has moved on (version {row.version}, you sent {expected_version})",
            version=row.version,
        )
    entry = entry_of(row.kind)
    action = codec.decode(action_data, entry.game.action_type, "$.action")
    state = load_state(row)
    seat = mine[0]
    state = entry.game.act(state, seat, action)
    steps: list[Step] = [(Acted(seat, action), None)]
    state = _advance(db, pool, row, seats, state, steps)
    _store(db, row, state, steps, first_seq=event_count(db, row.id))
    if key is not None:
        db.add(
            IdempotencyRow(
                user_pk=user.id, key=key, game_id=row.id, version=row.version, created_at=now()
            )
        )
    return [event for event, _ in steps]


def is_duplicate_key(exc: IntegrityError) -> bool:
    """True when an insert failed on the idempotency key."""
    return "idempotency" in str(exc.orig).lower() or "unique" in str(exc.orig).lower()


# -- reading -----------------------------------------------------------------------------------


def game_payload(db: Session, row: GameRow, user: User | None) -> dict[str, Any]:
    """A game as ``user``'s seat sees it (a spectator's view for anyone else)."""
    entry = entry_of(row.kind)
    game = entry.game
    seats = seats_of(db, row.id)
    my_seat = next((s.seat for s in seats if user is not None and s.user_pk == user.id), None)
    payload: dict[str, Any] = {
        "id": row.id,
        "game": row.kind,
        "title": game.title,
        "status": row.status,
        "version": row.version,
        "options": codec.encode(load_options(row)),
        "seats": [
            {"seat": s.seat, "user": s.user_id, "bot": s.bot, "open": s.is_open} for s in seats
        ],
        "my_seat": my_seat,
        "to_act": row.to_act,
        "your_turn": my_seat is not None and row.to_act == my_seat,
        "view": None,
        "legal": [],
        "result": None if row.result is None else _json(row.result),
    }
    if row.snapshot is not None:
        state = load_state(row)
        payload["view"] = codec.encode(game.view(state, my_seat))
        if my_seat is not None and row.status == "active":
            payload["legal"] = [codec.encode(a) for a in game.legal(state, my_seat)]
    return payload


def _json(text: str) -> Any:
    return json.loads(text)


def summary(row: GameRow, seats: list[SeatInfo], me: int) -> dict[str, Any]:
    """One line of a game list."""
    mine = next((s.seat for s in seats if s.user_pk == me), None)
    return {
        "id": row.id,
        "game": row.kind,
        "status": row.status,
        "version": row.version,
        "to_act": row.to_act,
        "your_turn": row.status == "active" and mine is not None and row.to_act == mine,
        "seats": [
            {"seat": s.seat, "user": s.user_id, "bot": s.bot, "open": s.is_open} for s in seats
        ],
        "updated_at": aware(row.updated_at).isoformat(),
    }


def my_games(db: Session, user: User, limit: int = 200) -> list[dict[str, Any]]:
    """My games, the ones waiting on me first, then the rest newest first."""
    waiting_on_me = case(
        (
            (GameRow.status == "active") & (GameRow.to_act == SeatRow.seat),
            0,
        ),
        (GameRow.status == "active", 1),
        (GameRow.status == "waiting", 2),
        else_=3,
    )
    rows = (
        db.execute(
            select(GameRow)
            .join(SeatRow, SeatRow.game_id == GameRow.id)
            .where(SeatRow.user_pk == user.id)
            .order_by(waiting_on_me, GameRow.updated_at.desc(), GameRow.id.desc())
            .limit(limit)
        )
        .scalars()
        .all()
    )
    return [summary(r, seats_of(db, r.id), user.id) for r in rows]


def open_games(db: Session, limit: int = 200) -> list[dict[str, Any]]:
    """The waiting room: games with open seats, oldest first."""
    rows = db.scalars(
        select(GameRow).where(GameRow.status == "waiting").order_by(GameRow.id).limit(limit)
    ).all()
    return [summary(r, seats_of(db, r.id), -1) for r in rows]


def event_log(db: Session, row: GameRow) -> dict[str, Any]:
    """A finished game's whole record, every die revealed, for replay and audit."""
    if row.status != "finished":
        raise ApiError(
            409,
            "in_progress",
            "the full log is published when the game is over (it holds hidden dice)",
        )
    entry = entry_of(row.kind)
    events = db.execute(
        select(EventRow.data, EventRow.dice_set)
        .where(EventRow.game_id == row.id)
        .order_by(EventRow.seq)
    ).all()
    return {
        "game": row.kind,
        "id": row.id,
        "seats": row.seats,
        "options": codec.encode(load_options(row)),
        "events": [
            {**codec.encode(decode_event(entry.game, _json(e.data))), "dice_set": e.dice_set}
            for e in events
        ],
        "result": None if row.result is None else _json(row.result),
    }


__all__ = [
    "DicehallError",
    "SeatInfo",
    "apply_move",
    "create_game",
    "event_log",
    "find_replay",
    "game_payload",
    "join_game",
    "lock_game",
    "my_games",
    "open_games",
]
