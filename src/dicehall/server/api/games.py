"""The games API: create, join, list, view, move, and the log of a finished game."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Depends, Header, Query, Request, status
from pydantic import BaseModel, Field
from sqlalchemy import Connection
from sqlalchemy.exc import IntegrityError

from dicehall import games
from dicehall.engine import codec
from dicehall.games import strengths
from dicehall.server.api.deps import CurrentUser, OptionalUser, ServicesDep
from dicehall.server.api.errors import ApiError
from dicehall.server.api.params import GameId
from dicehall.server.api.schemas import (
    Game,
    GameEvents,
    GameKind,
    GameLog,
    GameMove,
    GameSummary,
    WaitingOnMe,
    errors,
)
from dicehall.server.api.settling import Overdue, read_settled, settle
from dicehall.server.core.clock import now
from dicehall.server.core.models import User
from dicehall.server.domain import gameservice
from dicehall.server.domain.gameservice import Answer, GameRecord, SeatInfo
from dicehall.server.domain.reliability import limits_of
from dicehall.server.domain.services import Services
from dicehall.server.domain.work import notify, read, run_db, write
from dicehall.server.workers.driver import BotDriver

router = APIRouter(prefix="/api/v1", tags=["games"])

OptionValue = str | int | bool | None
T = TypeVar("T")


class CreateGame(BaseModel):
    """A new game: which game, its options, its seats in order, its pace, and who may
    watch."""

    game: str = Field(max_length=30)
    options: dict[str, OptionValue] = Field(default_factory=dict, max_length=20)
    seats: list[Annotated[str, Field(max_length=40)]] = Field(min_length=1, max_length=8)
    pace: Annotated[str, Field(max_length=20)] | dict[str, int] | None = Field(
        default=None,
        description="A preset (`live`, `brisk`, `daily`, `relaxed`, `days-1` to `days-14`, "
        "`none`) or `{initial, increment, cap}` in seconds. Default: `daily` between "
        "people, `none` for one person against bots.",
    )
    vacation: bool = Field(
        default=True, description="A seat's vacation allowance may save it from a timeout."
    )
    private: bool = Field(
        default=False, description="Only the players (and users they invite) may watch."
    )
    rated: bool | None = Field(
        default=None,
        description="The result changes the players' ratings. Default: rated when every "
        "seat is a person (a user or an open seat); true with a bot seat is 422 "
        "`not_rateable`.",
    )


class JoinGame(BaseModel):
    """Which open seat to take (the first one when left out)."""

    seat: int | None = Field(default=None, ge=0, le=7)


class PostAction(BaseModel):
    """A move: the action as JSON, and the version of the game the client saw."""

    action: dict[str, Any]
    expected_version: int = Field(ge=0)


async def _driver(request: Request) -> BotDriver:
    driver: BotDriver = request.app.state.driver
    return driver


DriverDep = Annotated[BotDriver, Depends(_driver)]


@router.get("/games/kinds", operation_id="games-kinds", response_model=list[GameKind])
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
                "bots": [bot for bot, _ in entry.ranked_bots()],
                "bot_notes": dict(entry.ranked_bots()),
                "bot_strengths": {
                    ladder.kind: {found.bot: found.to_json() for found in ladder.bots}
                    for ladder in strengths.ladders_of(name)
                },
            }
        )
    return out


@router.post(
    "/games",
    status_code=status.HTTP_201_CREATED,
    operation_id="games-create",
    response_model=Game,
    responses=errors(400, 401, 403, 422, 429, 503),
)
async def create(
    body: CreateGame, user: CurrentUser, services: ServicesDep, driver: DriverDep
) -> dict[str, Any]:
    """Create a game; with no open seats it starts at once (bots move, dice are rolled)."""

    def work(conn: Connection) -> tuple[GameRecord, list[SeatInfo], dict[str, Any]]:
        record, seats = gameservice.create_game(
            conn,
            services.pool,
            user,
            body.game,
            dict(body.options),
            body.seats,
            pace=body.pace,
            vacation=body.vacation,
            private=body.private,
            rated=body.rated,
            limits=limits_of(services.settings),
        )
        return record, seats, gameservice.rated_payload(conn, record, seats, user)

    record, seats, payload = await run_db(services, write, services, work)
    notify(services, record, seats)
    return driver.describe(payload)


@router.get(
    "/games", operation_id="games-list", response_model=list[GameSummary], responses=errors(401)
)
async def mine(user: CurrentUser, services: ServicesDep) -> list[dict[str, Any]]:
    """My games: those waiting on me first (the seed's "game status")."""
    return await run_db(services, read, services, lambda conn: gameservice.my_games(conn, user))


@router.get(
    "/games/waiting-on-me",
    operation_id="games-waiting-on-me",
    response_model=WaitingOnMe,
    responses=errors(401),
)
async def waiting_on_me(user: CurrentUser, services: ServicesDep) -> dict[str, int]:
    """How many of my games wait on me: my turn, and invitations to answer."""
    return await run_db(
        services, read, services, lambda conn: gameservice.waiting_on_me(conn, user)
    )


@router.get(
    "/games/open",
    operation_id="games-open",
    response_model=list[GameSummary],
    responses=errors(422),
)
async def waiting_room(
    services: ServicesDep,
    viewer: OptionalUser,
    limit: Annotated[int, Query(ge=1, le=gameservice.OPEN_PAGE_MAX)] = gameservice.OPEN_PAGE,
    before: Annotated[int | None, Query(ge=1, le=2**31 - 1)] = None,
) -> list[dict[str, Any]]:
    """Games with open seats that anyone may join, newest first; ``before=ID`` (the last id
    of a page) gives the next page. A signed-in viewer does not see games where someone
    across an ignore with them sits."""
    viewer_pk = viewer.id if viewer is not None else None
    return await run_db(
        services,
        read,
        services,
        lambda conn: gameservice.open_games(conn, limit, before, viewer_pk),
    )


@router.get(
    "/games/{game_id}",
    operation_id="games-get",
    response_model=Game,
    responses=errors(401, 404, 422),
)
async def get_game(
    game_id: GameId, services: ServicesDep, user: OptionalUser, driver: DriverDep
) -> dict[str, Any]:
    """The game as my seat sees it, with my legal actions and the version; others spectate.

    ``bot_turn`` says when the game waits on a bot (or dice) rather than a person: which
    seat and bot, and whether a slow bot is still warming up (with about how many seconds).
    """
    return driver.describe(await read_settled(services, game_id, user))


@router.post(
    "/games/{game_id}/join",
    operation_id="games-join",
    response_model=Game,
    responses=errors(400, 401, 403, 404, 409, 422, 429, 503),
)
async def join(
    game_id: GameId, body: JoinGame, user: CurrentUser, services: ServicesDep, driver: DriverDep
) -> dict[str, Any]:
    """Take an open seat; the last seat taken starts the game."""
    return await _seat_change(
        services,
        driver,
        user,
        game_id,
        lambda conn, record: gameservice.join_game(
            conn, services.pool, user, record, body.seat, limits_of(services.settings)
        ),
    )


async def _seat_change(
    services: Services,
    driver: BotDriver,
    user: User,
    game_id: int,
    change: Callable[[Connection, GameRecord], tuple[GameRecord, list[SeatInfo]]],
) -> dict[str, Any]:
    def work(conn: Connection) -> tuple[GameRecord, list[SeatInfo], dict[str, Any]]:
        record, _ = change(conn, gameservice.fetch_game(conn, game_id, lock=True))
        # Read the seats back: a change builds only the seats it touched.
        seats = gameservice.seats_of(conn, game_id)
        return record, seats, gameservice.rated_payload(conn, record, seats, user)

    record, seats, payload = await run_db(services, write, services, work)
    notify(services, record, seats)
    return driver.describe(payload)


@router.post(
    "/games/{game_id}/accept",
    operation_id="games-accept",
    response_model=Game,
    responses=errors(401, 403, 404, 409, 422, 503),
)
async def accept(
    game_id: GameId, user: CurrentUser, services: ServicesDep, driver: DriverDep
) -> dict[str, Any]:
    """Accept an invitation to play (a seat the creator named me for); the game starts once
    every seat is taken and every invitation accepted."""
    return await _answer(services, driver, user, game_id, "accept")


@router.post(
    "/games/{game_id}/decline",
    operation_id="games-decline",
    response_model=Game,
    responses=errors(401, 403, 404, 409, 422, 503),
)
async def decline(
    game_id: GameId, user: CurrentUser, services: ServicesDep, driver: DriverDep
) -> dict[str, Any]:
    """Decline an invitation: the game is called off (status ``cancelled``)."""
    return await _answer(services, driver, user, game_id, "decline")


@router.post(
    "/games/{game_id}/cancel",
    operation_id="games-cancel",
    response_model=Game,
    responses=errors(401, 403, 404, 409, 422, 503),
)
async def cancel(
    game_id: GameId, user: CurrentUser, services: ServicesDep, driver: DriverDep
) -> dict[str, Any]:
    """Withdraw a game I created that has not started (status ``cancelled``)."""
    return await _answer(services, driver, user, game_id, "cancel")


async def _answer(
    services: Services, driver: BotDriver, user: User, game_id: int, answer: Answer
) -> dict[str, Any]:
    return await _seat_change(
        services,
        driver,
        user,
        game_id,
        lambda conn, record: gameservice.answer_game(conn, services.pool, user, record, answer),
    )


@router.post(
    "/games/{game_id}/actions",
    operation_id="games-move",
    response_model=GameMove,
    responses=errors(400, 401, 403, 404, 409, 422, 503),
)
async def post_action(
    game_id: GameId,
    body: PostAction,
    user: CurrentUser,
    services: ServicesDep,
    driver: DriverDep,
    idempotency_key: Annotated[str | None, Header(max_length=100)] = None,
) -> dict[str, Any]:
    """Make a move at the version I saw. A retry with the same Idempotency-Key applies once."""
    key = idempotency_key.strip() if idempotency_key else None
    bound_to = gameservice.request_hash(game_id, body.action, body.expected_version)

    Changed = tuple[GameRecord, list[SeatInfo]]

    def work(conn: Connection) -> dict[str, Any] | Changed:
        # Lock first, then look the key up: a twin request that committed while we waited
        # for the lock is then seen, and answered as a replay rather than as stale.
        record = gameservice.fetch_game(conn, game_id, lock=True)
        if gameservice.overdue(record, now()):
            raise Overdue
        if key is not None:
            done = gameservice.find_replay(conn, user, key, bound_to)
            if done is not None:
                return _replayed(conn, done, game_id, user)
        record, seats = gameservice.apply_move(
            conn, services.pool, user, record, body.action, body.expected_version, key
        )
        if record.status == "finished":
            services.pool.reveal_ready(conn)
        return record, seats

    def move() -> tuple[dict[str, Any], Changed | None]:
        done = write(services, work)
        if isinstance(done, dict):
            return done, None
        # The answer's ratings are read after the commit: the write lock is held for the
        # move alone, not for a read every other writer would wait on.
        with services.read_conn() as conn:
            payload = {**gameservice.rated_payload(conn, *done, user), "replayed": False}
        return payload, done

    def replay_after_race(conn: Connection) -> dict[str, Any]:
        assert key is not None
        done = gameservice.find_replay(conn, user, key, bound_to)
        if done is None:
            raise ApiError(409, "conflict", "the move conflicted with another; try again")
        return _replayed(conn, done, game_id, user)

    try:
        try:
            payload, changed = await run_db(services, move)
        except Overdue:
            # The mover's clock (or another's) ran out: that is applied first, on its own.
            await settle(services, game_id)
            payload, changed = await run_db(services, move)
    except IntegrityError:
        # The same key raced in from a second request and won: answer as a replay.
        if key is None:
            raise
        return driver.describe(await run_db(services, read, services, replay_after_race))
    if changed is not None:
        notify(services, *changed)
    return driver.describe(payload)


def _replayed(conn: Connection, stored_game: int, game_id: int, user: User) -> dict[str, Any]:
    if stored_game != game_id:
        raise ApiError(422, "key_reused", "this Idempotency-Key was already used for another game")
    return {**gameservice.read_game(conn, game_id, user), "replayed": True}


@router.get(
    "/games/{game_id}/log",
    operation_id="games-log",
    response_model=GameLog,
    responses=errors(401, 404, 409, 422),
)
async def log(game_id: GameId, services: ServicesDep, user: OptionalUser) -> dict[str, Any]:
    """A finished game's full event log, every die revealed, for replay and audit."""
    return await run_db(
        services, read, services, lambda conn: gameservice.event_log(conn, game_id, user)
    )


@router.get(
    "/games/{game_id}/events",
    operation_id="games-events",
    response_model=GameEvents,
    responses=errors(401, 404, 422),
)
async def events(
    game_id: GameId,
    services: ServicesDep,
    user: OptionalUser,
    since: Annotated[int, Query(ge=0, le=2**31 - 1)] = 0,
) -> dict[str, Any]:
    """The game's events from ``since`` on, as my seat may know them now (a spectator's
    otherwise), each told in sentences: hidden dice stay hidden until shown. ``last_own`` is
    my last move; ``outcome`` says, once it is over, whether I won."""
    return await run_db(
        services,
        read,
        services,
        lambda conn: gameservice.event_story(conn, game_id, user, since),
    )


@router.post(
    "/games/{game_id}/rematch",
    status_code=status.HTTP_201_CREATED,
    operation_id="games-rematch",
    response_model=Game,
    responses=errors(401, 403, 404, 409, 422, 429, 503),
)
async def rematch(
    game_id: GameId, user: CurrentUser, services: ServicesDep, driver: DriverDep
) -> dict[str, Any]:
    """A new game like this finished one: same game, options and seats (bots sit down at
    once, the other players are invited again); it starts at once when only bots join me."""

    def work(conn: Connection) -> tuple[GameRecord, list[SeatInfo], dict[str, Any]]:
        record, seats = gameservice.rematch(
            conn, services.pool, user, gameservice.fetch_game(conn, game_id)
        )
        return record, seats, gameservice.rated_payload(conn, record, seats, user)

    record, seats, payload = await run_db(services, write, services, work)
    notify(services, record, seats)
    return driver.describe(payload)
