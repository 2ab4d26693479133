"""The games API: create, join, list, view, move, and the log of a finished game."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Depends, Header, Query, Request, Response, status
from pydantic import BaseModel, Field, StrictBool, StrictInt
from sqlalchemy import Connection

from dicehall import games
from dicehall.engine import codec
from dicehall.games import strengths
from dicehall.server.api.answers import json_answer
from dicehall.server.api.deps import CurrentUser, OptionalUser, ServicesDep
from dicehall.server.api.params import Digits, GameId, QueryId
from dicehall.server.api.rules import PACE_SECONDS, GameName, Rule, pace_names, words
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
from dicehall.server.api.settling import read_settled
from dicehall.server.core.models import User
from dicehall.server.domain.games import reading, records, seating, story
from dicehall.server.domain.games import rematch as rematching
from dicehall.server.domain.games.moving import Move, make_move
from dicehall.server.domain.games.payloads import GamePayload
from dicehall.server.domain.games.records import GameRecord, SeatInfo
from dicehall.server.domain.games.seating import Answer
from dicehall.server.domain.reliability import limits_of
from dicehall.server.domain.services import Services
from dicehall.server.domain.work import notify, read, run_db, write
from dicehall.server.workers.botstatus import BotStatus

router = APIRouter(prefix="/api/v1", tags=["games"])

OptionValue = str | StrictInt | StrictBool | None
T = TypeVar("T")


class CreateGame(BaseModel):
    """A new game: which game, its options, its seats in order, its pace, and who may
    watch."""

    game: GameName
    options: dict[str, OptionValue] = Field(default_factory=dict, max_length=20)
    seats: Annotated[
        list[Annotated[str, Field(max_length=40)]],
        Rule(contains={"pattern": words("me")}),
    ] = Field(min_length=1, max_length=8, description="`me`, `open`, `bot:NAME`, `user:ID`.")
    pace: (
        Annotated[str, Field(max_length=20), pace_names(none=True)]
        | Annotated[dict[str, StrictInt], PACE_SECONDS]
        | None
    ) = Field(
        default=None,
        description="A preset (`live`, `brisk`, `daily`, `relaxed`, `days-1` to `days-14`, "
        "`none`) or `{initial, increment, cap}` in seconds. Default: `daily` between "
        "people, `none` for one person against bots.",
    )
    vacation: StrictBool | None = Field(
        default=None,
        description="A seat's vacation allowance may save it from a timeout. Default: on at "
        "paces of a day or more (and without a clock), off at paces under a day (`live`); "
        "true at such a pace is 422 `invalid_vacation`.",
    )
    private: StrictBool = Field(
        default=False, description="Only the players (and users they invite) may watch."
    )
    rated: StrictBool | None = Field(
        default=None,
        description="The result changes the players' ratings. Default: rated when every "
        "seat is a person (a user or an open seat); true with a bot seat is 422 "
        "`not_rateable`.",
    )


class JoinGame(BaseModel):
    """Which open seat to take (the first one when left out)."""

    seat: StrictInt | None = Field(default=None, ge=0, le=7)


class PostAction(BaseModel):
    """A move: the action as JSON, and the version of the game the client saw."""

    action: dict[str, Any]
    expected_version: StrictInt = Field(ge=0)


def _driver_of(request: Request) -> BotStatus:
    driver: BotStatus = request.app.state.driver
    return driver


async def _driver(request: Request) -> BotStatus:
    return _driver_of(request)


DriverDep = Annotated[BotStatus, Depends(_driver)]


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
                "title": entry.title,
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
) -> GamePayload:
    """Create a game; with no open seats it starts at once (bots move, dice are rolled)."""

    def work(conn: Connection) -> tuple[GameRecord, list[SeatInfo], GamePayload]:
        record, seats = seating.create_game(
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
        return record, seats, reading.rated_payload(conn, record, seats, user)

    done: tuple[GameRecord, list[SeatInfo], GamePayload]
    done = await run_db(services, write, services, work)
    record, seats, payload = done
    notify(services, record, seats)
    return driver.describe(payload)


@router.get(
    "/games", operation_id="games-list", response_model=list[GameSummary], responses=errors(401)
)
async def mine(user: CurrentUser, services: ServicesDep) -> list[dict[str, Any]]:
    """My games: those waiting on me first (the seed's "game status")."""
    return await run_db(services, read, services, lambda conn: reading.my_games(conn, user))


@router.get(
    "/games/waiting-on-me",
    operation_id="games-waiting-on-me",
    response_model=WaitingOnMe,
    responses=errors(401),
)
async def waiting_on_me(user: CurrentUser, services: ServicesDep) -> dict[str, int]:
    """How many of my games wait on me: my turn, and invitations to answer."""
    return await run_db(services, read, services, lambda conn: reading.waiting_on_me(conn, user))


@router.get(
    "/games/open",
    operation_id="games-open",
    response_model=list[GameSummary],
    responses=errors(422),
)
async def waiting_room(
    services: ServicesDep,
    viewer: OptionalUser,
    limit: Annotated[int, Query(ge=1, le=reading.OPEN_PAGE_MAX)] = reading.OPEN_PAGE,
    before: QueryId = None,
) -> list[dict[str, Any]]:
    """Games with open seats that anyone may join, newest first; ``before=ID`` (the last id
    of a page) gives the next page. A signed-in viewer does not see games where someone
    across an ignore with them sits."""
    viewer_pk = viewer.id if viewer is not None else None
    return await run_db(
        services,
        read,
        services,
        lambda conn: reading.open_games(conn, limit, before, viewer_pk),
    )


@router.get(
    "/games/{game_id}",
    operation_id="games-get",
    response_model=Game,
    responses=errors(401, 404, 422),
)
async def get_game(
    game_id: GameId, services: ServicesDep, user: OptionalUser, driver: DriverDep
) -> Response:
    """The game as my seat sees it, with my legal actions and the version; others spectate.

    ``bot_turn`` says when the game waits on a bot (or dice) rather than a person: which
    seat and bot, and whether a slow bot is still warming up (with about how many seconds).
    """
    return json_answer(driver.describe(await read_settled(services, game_id, user)), Game)


@router.post(
    "/games/{game_id}/join",
    operation_id="games-join",
    response_model=Game,
    responses=errors(400, 401, 403, 404, 409, 422, 429, 503),
)
async def join(
    game_id: GameId, body: JoinGame, user: CurrentUser, services: ServicesDep, driver: DriverDep
) -> GamePayload:
    """Take an open seat; the last seat taken starts the game."""
    return await _seat_change(
        services,
        driver,
        user,
        game_id,
        lambda conn, record: seating.join_game(
            conn, services.pool, user, record, body.seat, limits_of(services.settings)
        ),
    )


async def _seat_change(
    services: Services,
    driver: BotStatus,
    user: User,
    game_id: int,
    change: Callable[[Connection, GameRecord], tuple[GameRecord, list[SeatInfo]]],
) -> GamePayload:
    def work(conn: Connection) -> tuple[GameRecord, list[SeatInfo], GamePayload]:
        record, _ = change(conn, records.fetch_game(conn, game_id, lock=True))
        # Read the seats back: a change builds only the seats it touched.
        seats = records.seats_of(conn, game_id)
        return record, seats, reading.rated_payload(conn, record, seats, user)

    done: tuple[GameRecord, list[SeatInfo], GamePayload]
    done = await run_db(services, write, services, work)
    record, seats, payload = done
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
) -> GamePayload:
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
) -> GamePayload:
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
) -> GamePayload:
    """Withdraw a game I created that has not started (status ``cancelled``)."""
    return await _answer(services, driver, user, game_id, "cancel")


async def _answer(
    services: Services, driver: BotStatus, user: User, game_id: int, answer: Answer
) -> GamePayload:
    return await _seat_change(
        services,
        driver,
        user,
        game_id,
        lambda conn, record: seating.answer_game(conn, services.pool, user, record, answer),
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
    request: Request,
    idempotency_key: Annotated[str | None, Header(max_length=100)] = None,
) -> Response:
    """Make a move at the version I saw. A retry with the same Idempotency-Key applies once."""
    key = idempotency_key.strip() if idempotency_key else None
    move = Move(game_id, body.action, body.expected_version, key)
    done = await run_db(services, make_move, services, user, move)
    for changed in done.changed:
        notify(services, *changed)
    # Serialised once, here: the payload is the response model's shape already (a test
    # holds every answer to it), so FastAPI's validate-then-dump would only repeat it.
    return json_answer(_driver_of(request).describe(done.payload), GameMove)


@router.get(
    "/games/{game_id}/log",
    operation_id="games-log",
    response_model=GameLog,
    responses=errors(401, 404, 409, 422),
)
async def log(game_id: GameId, services: ServicesDep, user: OptionalUser) -> dict[str, Any]:
    """A finished game's full event log, every die revealed, for replay and audit."""
    return await run_db(
        services, read, services, lambda conn: reading.event_log(conn, game_id, user)
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
    since: Annotated[int, Query(ge=0, le=2**31 - 1), Digits] = 0,
) -> dict[str, Any]:
    """The game's events from ``since`` on, as my seat may know them now (a spectator's
    otherwise), each told in sentences: hidden dice stay hidden until shown. ``last_own`` is
    my last move; ``outcome`` says, once it is over, whether I won."""
    return await run_db(
        services,
        read,
        services,
        lambda conn: story.event_story(conn, game_id, user, since),
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
) -> GamePayload:
    """A new game like this finished one: same game, options and seats (bots sit down at
    once, the other players are invited again); it starts at once when only bots join me."""

    def work(conn: Connection) -> tuple[GameRecord, list[SeatInfo], GamePayload]:
        record, seats = rematching.rematch(
            conn, services.pool, user, records.fetch_game(conn, game_id)
        )
        return record, seats, reading.rated_payload(conn, record, seats, user)

    done: tuple[GameRecord, list[SeatInfo], GamePayload]
    done = await run_db(services, write, services, work)
    record, seats, payload = done
    notify(services, record, seats)
    return driver.describe(payload)
