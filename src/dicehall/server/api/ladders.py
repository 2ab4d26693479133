"""The ladders API: the ladders, one ladder's positions, joining and leaving, challenges
(accepted at once: the game starts), ladder vacation, and the record of every move."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, status
from pydantic import BaseModel, ConfigDict, Field, StrictInt
from sqlalchemy import Connection

from dicehall.server.api.deps import CurrentUser, OptionalUser, ServicesDep
from dicehall.server.api.ladder_schemas import (
    LadderBoard,
    LadderChallengeOut,
    LadderHistory,
    LadderStanding,
    LadderSummary,
)
from dicehall.server.api.schemas import errors
from dicehall.server.core.clock import now
from dicehall.server.domain.ratings import ladder_challenges, ladders
from dicehall.server.domain.ratings.ladder_inactivity import VACATION_DAYS_A_YEAR
from dicehall.server.domain.reliability import limits_of
from dicehall.server.domain.work import notify, read, run_db, write

router = APIRouter(prefix="/api/v1", tags=["ladders"])


class ChallengeBody(BaseModel):
    """Whom to challenge."""

    model_config = ConfigDict(extra="forbid")

    opponent: str = Field(min_length=1, max_length=40, description="Their user id.")


class VacationBody(BaseModel):
    """How many days of ladder vacation to take."""

    model_config = ConfigDict(extra="forbid")

    days: StrictInt = Field(
        ge=1,
        le=VACATION_DAYS_A_YEAR,
        description=f"1 to {VACATION_DAYS_A_YEAR}, and no more than are left this year.",
    )


@router.get(
    "/ladders",
    operation_id="ladders-list",
    response_model=list[LadderSummary],
    responses=errors(401),
)
async def list_ladders(services: ServicesDep, viewer: OptionalUser) -> list[dict[str, Any]]:
    """Every ladder (one per two-handed rating kind), its size and my position."""
    viewer_pk = None if viewer is None else viewer.id
    return await run_db(services, read, services, lambda conn: ladders.overview(conn, viewer_pk))


@router.get(
    "/ladders/{kind}",
    operation_id="ladders-get",
    response_model=LadderBoard,
    responses=errors(401, 404, 422),
)
async def get_ladder(
    kind: str,
    services: ServicesDep,
    viewer: OptionalUser,
    start: Annotated[int, Query(ge=1, le=1_000_000, description="The first position.")] = 1,
    limit: Annotated[
        int, Query(ge=1, le=ladders.PAGE_MAX, description="Positions per page.")
    ] = ladders.PAGE,
) -> dict[str, Any]:
    """A page of the ladder's positions from ``start``, each with the player's rating of the
    ladder's kind and challenge marks; my standing and my ladder games in progress (404
    ``no_such_ladder``)."""
    viewer_pk = None if viewer is None else viewer.id
    return await run_db(
        services,
        read,
        services,
        lambda conn: ladders.board(conn, kind, viewer_pk, now(), start, limit),
    )


@router.post(
    "/ladders/{kind}/join",
    operation_id="ladders-join",
    response_model=LadderStanding,
    responses=errors(400, 401, 403, 404, 409, 422, 503),
)
async def join_ladder(kind: str, user: CurrentUser, services: ServicesDep) -> dict[str, Any]:
    """Join the ladder at the bottom (409 ``already_on_ladder``)."""
    return await run_db(
        services, write, services, lambda conn: ladders.join(conn, kind, user.id, now())
    )


@router.post(
    "/ladders/{kind}/leave",
    operation_id="ladders-leave",
    response_model=LadderStanding,
    responses=errors(400, 401, 403, 404, 409, 422, 503),
)
async def leave_ladder(kind: str, user: CurrentUser, services: ServicesDep) -> dict[str, Any]:
    """Leave the ladder: everyone below moves up one (409 ``not_on_ladder``). Ladder games
    in progress go on, but their results move nobody."""
    return await run_db(
        services, write, services, lambda conn: ladders.leave(conn, kind, user.id, now())
    )


@router.post(
    "/ladders/{kind}/challenges",
    status_code=status.HTTP_201_CREATED,
    operation_id="ladders-challenge",
    response_model=LadderChallengeOut,
    responses=errors(400, 401, 403, 404, 409, 422, 429, 503),
)
async def challenge(
    kind: str, body: ChallengeBody, user: CurrentUser, services: ServicesDep
) -> dict[str, Any]:
    """Challenge a player up to 20 places above or below me; it is accepted at once and a
    rated ladder game starts (its id is ``game_id``). Refused: 422 ``unknown_user`` or
    ``yourself``; 409 ``not_on_ladder`` (me), ``opponent_not_on_ladder`` or ``too_far``;
    403 ``not_accepted`` (their settings, or an ignore either way); 429
    ``too_many_challenges`` (2 of mine open on this ladder)."""

    def work(conn: Connection) -> ladder_challenges.Challenged:
        return ladder_challenges.challenge(
            conn, services.pool, user, kind, body.opponent, now(), limits_of(services.settings)
        )

    made: ladder_challenges.Challenged = await run_db(services, write, services, work)
    notify(services, made.record, made.seats)
    return made.challenge


@router.post(
    "/ladders/{kind}/vacation",
    operation_id="ladders-vacation",
    response_model=LadderStanding,
    responses=errors(400, 401, 403, 404, 409, 422, 503),
)
async def take_vacation(
    kind: str, body: VacationBody, user: CurrentUser, services: ServicesDep
) -> dict[str, Any]:
    """Take ``days`` of ladder vacation (up to 30 a year per ladder): inactivity does not
    drop me while it runs; it adds to a vacation already running (409 ``not_on_ladder``,
    422 ``not_enough_ladder_vacation``)."""
    return await run_db(
        services,
        write,
        services,
        lambda conn: ladders.take_vacation(conn, kind, user.id, body.days, now()),
    )


@router.get(
    "/ladders/{kind}/history",
    operation_id="ladders-history",
    response_model=LadderHistory,
    responses=errors(401, 404, 422),
)
async def ladder_history(
    kind: str,
    services: ServicesDep,
    cursor: Annotated[
        str | None, Query(max_length=20, description="`next` of the previous page.")
    ] = None,
    limit: Annotated[
        int, Query(ge=1, le=ladders.HISTORY_PAGE_MAX, description="Moves per page.")
    ] = ladders.HISTORY_PAGE,
) -> dict[str, Any]:
    """Every change of a position on the ladder, newest first, a page at a time: who, from
    where to where, why, and the ladder game that made it."""
    return await run_db(
        services, read, services, lambda conn: ladders.history(conn, kind, cursor, limit)
    )


__all__ = ["router"]
