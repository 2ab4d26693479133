"""The games API: create, join, list, view, move, and the log of a finished game."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Depends, Header, Request, status
from pydantic import BaseModel, Field
from sqlalchemy import Connection
from sqlalchemy.exc import IntegrityError
from starlette.concurrency import run_in_threadpool

from dicehall import games
from dicehall.engine import codec
from dicehall.server import gameservice
from dicehall.server.api.deps import ServicesDep, quick_user
from dicehall.server.api.errors import ApiError
from dicehall.server.gameservice import GameRecord, SeatInfo
from dicehall.server.models import User
from dicehall.server.pool import PoolEmpty
from dicehall.server.services import Services

router = APIRouter(prefix="/api/v1", tags=["games"])

OptionValue = str | int | bool | None
T = TypeVar("T")


class CreateGame(BaseModel):
    """A new game: which game, its options, and its seats in order."""

    game: str = Field(max_length=30)
    options: dict[str, OptionValue] = Field(default_factory=dict, max_length=20)
    seats: list[Annotated[str, Field(max_length=40)]] = Field(min_length=1, max_length=8)


class JoinGame(BaseModel):
    """Which open seat to take (the first one when left out)."""

    seat: int | None = Field(default=None, ge=0, le=7)


class PostAction(BaseModel):
    """A move: the action as JSON, and the version of the game the client saw."""

    action: dict[str, Any]
    expected_version: int = Field(ge=0)


_writes = itertools.count()


async def run_db(services: Services, fn: Callable[..., T], *args: Any) -> T:
    """Run blocking database work: inline on SQLite (one writer at a time, microseconds of
    work, and no thread hops), in the thread pool on PostgreSQL (network round trips)."""
    if services.inline_db:
        return fn(*args)
    return await run_in_threadpool(fn, *args)


async def _optional_user(request: Request, services: ServicesDep) -> User | None:
    return await run_db(services, quick_user, request, services)


async def _required_user(request: Request, services: ServicesDep) -> User:
    user = await run_db(services, quick_user, request, services)
    if user is None:
        raise ApiError(401, "unauthenticated", "sign in first (session cookie or bearer token)")
    return user


UserDep = Annotated[User, Depends(_required_user)]
OptionalUserDep = Annotated[User | None, Depends(_optional_user)]


def _notify(services: Services, record: GameRecord, seats: list[SeatInfo]) -> None:
    for user_pk, message in gameservice.pushes(record, seats):
        services.broker.publish(user_pk, message)


def _write(services: Services, work: Callable[[Connection], T]) -> T:
    """Run a write transaction, topping the dice pool up once if it ran dry."""
    for attempt in range(2):
        try:
            with services.write_conn() as conn:
                result = work(conn)
            if next(_writes) % 50 == 0:
                services.pool.ensure_reserve(services.write_conn)
            return result
        except PoolEmpty:
            if attempt:
                raise
            services.pool.ensure_reserve(services.write_conn)
    raise AssertionError("unreachable")  # pragma: no cover


def _read(services: Services, work: Callable[[Connection], T]) -> T:
    with services.read_conn() as conn:
        return work(conn)


@router.get("/games/kinds")
async def list_kinds() -> list[dict[str, Any]]:
    """The games this site offers, with seat counts, default options and bots."""
    out = []
    for name in games.available():
        entry = games.get(name)
        game = entry.game
        out.append(
            {
                "game": name,
                "title": game.title,
                "min_seats": game.min_seats,
                "max_seats": game.max_seats,
                "options": codec.encode(game.options({})),
                "bots": sorted(entry.bots),
            }
        )
    return out


@router.post("/games", status_code=status.HTTP_201_CREATED)
async def create(body: CreateGame, user: UserDep, services: ServicesDep) -> dict[str, Any]:
    """Create a game; with no open seats it starts at once (bots move, dice are rolled)."""
    record, seats = await run_db(
        services,
        _write,
        services,
        lambda conn: gameservice.create_game(
            conn, services.pool, user, body.game, dict(body.options), body.seats
        ),
    )
    _notify(services, record, seats)
    return gameservice.game_payload(record, seats, user)


@router.get("/games")
async def mine(user: UserDep, services: ServicesDep) -> list[dict[str, Any]]:
    """My games: those waiting on me first (the seed's "game status")."""
    return await run_db(services, _read, services, lambda conn: gameservice.my_games(conn, user))


@router.get("/games/open")
async def waiting_room(services: ServicesDep) -> list[dict[str, Any]]:
    """Games with open seats that anyone may join."""
    return await run_db(services, _read, services, gameservice.open_games)


@router.get("/games/{game_id}")
async def get_game(game_id: int, services: ServicesDep, user: OptionalUserDep) -> dict[str, Any]:
    """The game as my seat sees it, with my legal actions and the version; others spectate."""
    return await run_db(
        services, _read, services, lambda conn: gameservice.read_game(conn, game_id, user)
    )


@router.post("/games/{game_id}/join")
async def join(
    game_id: int, body: JoinGame, user: UserDep, services: ServicesDep
) -> dict[str, Any]:
    """Take an open seat; the last seat taken starts the game."""

    def work(conn: Connection) -> tuple[GameRecord, list[SeatInfo]]:
        record = gameservice.fetch_game(conn, game_id, lock=True)
        return gameservice.join_game(conn, services.pool, user, record, body.seat)

    record, seats = await run_db(services, _write, services, work)
    _notify(services, record, seats)
    return gameservice.game_payload(record, seats, user)


@router.post("/games/{game_id}/actions")
async def post_action(
    game_id: int,
    body: PostAction,
    user: UserDep,
    services: ServicesDep,
    idempotency_key: Annotated[str | None, Header(max_length=100)] = None,
) -> dict[str, Any]:
    """Make a move at the version I saw. A retry with the same Idempotency-Key applies once."""
    key = idempotency_key.strip() if idempotency_key else None

    def work(conn: Connection) -> dict[str, Any]:
        # Lock first, then look the key up: a twin request that committed while we waited
        # for the lock is then seen, and answered as a replay rather than as stale.
        record = gameservice.fetch_game(conn, game_id, lock=True)
        if key is not None:
            done = gameservice.find_replay(conn, user, key)
            if done is not None:
                return _replayed(conn, done, game_id, user)
        record, seats = gameservice.apply_move(
            conn, services.pool, user, record, body.action, body.expected_version, key
        )
        if record.status == "finished":
            services.pool.reveal_ready(conn)
        return {
            **gameservice.game_payload(record, seats, user),
            "replayed": False,
            "_push": gameservice.pushes(record, seats),
        }

    def replay_after_race(conn: Connection) -> dict[str, Any]:
        assert key is not None
        done = gameservice.find_replay(conn, user, key)
        if done is None:
            raise ApiError(409, "conflict", "the move conflicted with another; try again")
        return _replayed(conn, done, game_id, user)

    try:
        payload: dict[str, Any] = await run_db(services, _write, services, work)
    except IntegrityError:
        # The same key raced in from a second request and won: answer as a replay.
        if key is None:
            raise
        return await run_db(services, _read, services, replay_after_race)
    for user_pk, message in payload.pop("_push", []):
        services.broker.publish(user_pk, message)
    return payload


def _replayed(conn: Connection, stored_game: int, game_id: int, user: User) -> dict[str, Any]:
    if stored_game != game_id:
        raise ApiError(422, "key_reused", "this Idempotency-Key was already used for another game")
    return {**gameservice.read_game(conn, game_id, user), "replayed": True}


@router.get("/games/{game_id}/log")
async def log(game_id: int, services: ServicesDep) -> dict[str, Any]:
    """A finished game's full event log, every die revealed, for replay and audit."""
    return await run_db(
        services, _read, services, lambda conn: gameservice.event_log(conn, game_id)
    )
