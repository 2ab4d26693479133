"""Ending a game besides by its rules: resign, abort, and taking a seat back from the
autopilot (see :mod:`dicehall.server.domain.games.ending`)."""

from __future__ import annotations

from collections.abc import Callable

from fastapi import APIRouter
from pydantic import BaseModel, Field, StrictInt
from sqlalchemy import Connection

from dicehall.server.api.deps import CurrentUser, ServicesDep
from dicehall.server.api.games import DriverDep
from dicehall.server.api.params import GameId
from dicehall.server.api.schemas import Game, errors
from dicehall.server.api.settling import Overdue, settle
from dicehall.server.core.clock import now
from dicehall.server.core.models import User
from dicehall.server.domain.games import ending, reading, records
from dicehall.server.domain.games.payloads import GamePayload
from dicehall.server.domain.games.records import GameRecord, SeatInfo
from dicehall.server.domain.services import Services
from dicehall.server.domain.work import notify, run_db, write
from dicehall.server.workers.botstatus import BotStatus

router = APIRouter(prefix="/api/v1", tags=["games"])


class AtVersion(BaseModel):
    """A change to a game at the version the client saw (resign, abort, take back)."""

    expected_version: StrictInt = Field(ge=0)


Ending = Callable[..., tuple[GameRecord, list[SeatInfo]]]


async def _end(
    services: Services,
    driver: BotStatus,
    user: User,
    game_id: int,
    change: Ending,
    expected_version: int,
) -> GamePayload:
    def work(conn: Connection) -> tuple[GameRecord, list[SeatInfo], GamePayload]:
        record = records.fetch_game(conn, game_id, lock=True)
        if ending.overdue(record, now()):
            raise Overdue
        record, seats = change(conn, services.pool, user, record, expected_version)
        if record.status in ("finished", "aborted"):
            services.pool.reveal_ready(conn)
        return record, seats, reading.rated_payload(conn, record, seats, user)

    done: tuple[GameRecord, list[SeatInfo], GamePayload]
    try:
        done = await run_db(services, write, services, work)
    except Overdue:
        await settle(services, game_id)
        done = await run_db(services, write, services, work)
    record, seats, payload = done
    notify(services, record, seats)
    return driver.describe(payload)


@router.post(
    "/games/{game_id}/resign",
    operation_id="games-resign",
    response_model=Game,
    responses=errors(400, 401, 403, 404, 409, 422, 503),
)
async def resign(
    game_id: GameId, body: AtVersion, user: CurrentUser, services: ServicesDep, driver: DriverDep
) -> GamePayload:
    """Resign my seat. In a 2-seat game the other seat wins; in a game of 3+ seats the
    game's autopilot bot plays my seat to the end and I rank last of those still in. Asking
    again answers the game as it is."""
    return await _end(services, driver, user, game_id, ending.resign, body.expected_version)


@router.post(
    "/games/{game_id}/abort",
    operation_id="games-abort",
    response_model=Game,
    responses=errors(400, 401, 403, 404, 409, 422, 503),
)
async def abort(
    game_id: GameId, body: AtVersion, user: CurrentUser, services: ServicesDep, driver: DriverDep
) -> GamePayload:
    """Call off a started game while some person at it has not moved yet: status
    ``aborted``, no result, no rating. Asking again answers the game as it is."""
    return await _end(services, driver, user, game_id, ending.abort, body.expected_version)


@router.post(
    "/games/{game_id}/take-back",
    operation_id="games-take-back",
    response_model=Game,
    responses=errors(400, 401, 403, 404, 409, 422, 503),
)
async def take_back(
    game_id: GameId, body: AtVersion, user: CurrentUser, services: ServicesDep, driver: DriverDep
) -> GamePayload:
    """Take my seat back from the autopilot (it plays a seat that ran out of time in a game
    of 3+ seats) before the game ends: my next turns wait for me again."""
    return await _end(services, driver, user, game_id, ending.take_back, body.expected_version)
