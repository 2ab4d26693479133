"""The games API: create, join, list, view, move, and the log of a finished game."""

from __future__ import annotations

import itertools
from typing import Annotated, Any

from fastapi import APIRouter, Header, status
from pydantic import BaseModel, Field
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from dicehall import games
from dicehall.engine import codec
from dicehall.server import gameservice
from dicehall.server.api.deps import DbDep, OptionalUserDep, ServicesDep, UserDep
from dicehall.server.api.errors import ApiError
from dicehall.server.models import GameRow, User
from dicehall.server.pool import PoolEmpty
from dicehall.server.push import LocalBroker
from dicehall.server.services import Services

router = APIRouter(prefix="/api/v1", tags=["games"])

OptionValue = str | int | bool | None


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


_moves = itertools.count()


def _notify(broker: LocalBroker, services: Services, game_id: int) -> None:
    with services.sessions() as db:
        row = db.get(GameRow, game_id)
        if row is None:  # pragma: no cover - games are never deleted
            return
        for seat in gameservice.seats_of(db, game_id):
            if seat.user_pk is None:
                continue
            broker.publish(
                seat.user_pk,
                {
                    "type": "game",
                    "game": game_id,
                    "version": row.version,
                    "status": row.status,
                    "your_turn": row.status == "active" and row.to_act == seat.seat,
                },
            )


def _with_pool(services: Services, work: Any) -> Any:
    """Run a write transaction, topping the dice pool up once if it ran dry."""
    for attempt in range(2):
        try:
            with services.writers() as db, db.begin():
                return work(db)
        except PoolEmpty:
            if attempt:
                raise
            services.pool.ensure_reserve(services.sessions)
    raise AssertionError("unreachable")  # pragma: no cover


def _top_up(services: Services) -> None:
    if next(_moves) % 50 == 0:
        services.pool.ensure_reserve(services.sessions)


@router.get("/games/kinds")
def list_kinds() -> list[dict[str, Any]]:
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
def create(body: CreateGame, user: UserDep, services: ServicesDep) -> dict[str, Any]:
    """Create a game; with no open seats it starts at once (bots move, dice are rolled)."""

    def work(db: Any) -> dict[str, Any]:
        row, _ = gameservice.create_game(
            db, services.pool, user, body.game, dict(body.options), body.seats
        )
        db.flush()
        return {"id": row.id}

    created = _with_pool(services, work)
    _top_up(services)
    _notify(services.broker, services, created["id"])
    with services.sessions() as db:
        row = db.get(GameRow, created["id"])
        assert row is not None
        return gameservice.game_payload(db, row, user)


@router.get("/games")
def mine(user: UserDep, db: DbDep) -> list[dict[str, Any]]:
    """My games: those waiting on me first (the seed's "game status")."""
    return gameservice.my_games(db, user)


@router.get("/games/open")
def waiting_room(db: DbDep) -> list[dict[str, Any]]:
    """Games with open seats that anyone may join."""
    return gameservice.open_games(db)


def _row(db: Session, game_id: int) -> GameRow:
    row = db.get(GameRow, game_id)
    if row is None:
        raise ApiError(404, "not_found", f"there is no game {game_id}")
    return row


@router.get("/games/{game_id}")
def get_game(game_id: int, db: DbDep, user: OptionalUserDep) -> dict[str, Any]:
    """The game as my seat sees it, with my legal actions and the version; others spectate."""
    return gameservice.game_payload(db, _row(db, game_id), user)


@router.post("/games/{game_id}/join")
def join(game_id: int, body: JoinGame, user: UserDep, services: ServicesDep) -> dict[str, Any]:
    """Take an open seat; the last seat taken starts the game."""

    def work(db: Any) -> None:
        row = gameservice.lock_game(db, game_id)
        gameservice.join_game(db, services.pool, user, row, body.seat)

    _with_pool(services, work)
    _notify(services.broker, services, game_id)
    with services.sessions() as db:
        return gameservice.game_payload(db, _row(db, game_id), user)


@router.post("/games/{game_id}/actions")
def post_action(
    game_id: int,
    body: PostAction,
    user: UserDep,
    services: ServicesDep,
    idempotency_key: Annotated[str | None, Header(max_length=100)] = None,
) -> dict[str, Any]:
    """Make a move at the version I saw. A retry with the same Idempotency-Key applies once."""
    key = idempotency_key.strip() if idempotency_key else None

    def work(db: Any) -> dict[str, Any]:
        # Lock first, then look the key up: a twin request that committed while we waited
        # for the lock is then seen, and answered as a replay rather than as stale.
        row = gameservice.lock_game(db, game_id)
        if key is not None:
            done = gameservice.find_replay(db, user, key)
            if done is not None:
                return _replayed(db, done.game_id, game_id, user)
        gameservice.apply_move(
            db, services.pool, user, row, body.action, body.expected_version, key
        )
        if row.status == "finished":
            services.pool.reveal_ready(db)
        db.flush()
        return {**gameservice.game_payload(db, row, user), "replayed": False}

    try:
        payload: dict[str, Any] = _with_pool(services, work)
    except IntegrityError:
        # The same key raced in from a second request and won: answer as a replay.
        if key is None:
            raise
        with services.sessions() as db:
            done = gameservice.find_replay(db, user, key)
            if done is None:
                raise
            return _replayed(db, done.game_id, game_id, user)
    if not payload.get("replayed"):
        _top_up(services)
        _notify(services.broker, services, game_id)
    return payload


def _replayed(db: Any, stored_game: int, game_id: int, user: User) -> dict[str, Any]:
    if stored_game != game_id:
        raise ApiError(422, "key_reused", "this Idempotency-Key was already used for another game")
    return {**gameservice.game_payload(db, _row(db, game_id), user), "replayed": True}


@router.get("/games/{game_id}/log")
def log(game_id: int, db: DbDep) -> dict[str, Any]:
    """A finished game's full event log, every die revealed, for replay and audit."""
    return gameservice.event_log(db, _row(db, game_id))


__all__ = ["router"]
