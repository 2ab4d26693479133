"""The tournaments API: the list, creating one, one tournament with its standings and
rounds, joining and withdrawing. The rounds themselves are the tournaments job's (see
docs/site-tournaments.md)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, status
from sqlalchemy import Connection

from dicehall.server.api.deps import CurrentUser, OptionalUser, ServicesDep
from dicehall.server.api.params import Digits, db_id
from dicehall.server.api.schemas import errors
from dicehall.server.api.tournament_schemas import (
    CreateTournament,
    TournamentDetail,
    TournamentList,
)
from dicehall.server.core.clock import now
from dicehall.server.domain.tournaments import create, entry, views
from dicehall.server.domain.work import read, run_db, write

router = APIRouter(prefix="/api/v1", tags=["tournaments"])

TournamentId = Annotated[int, db_id("tournament"), Digits]


@router.get(
    "/tournaments",
    operation_id="tournaments-list",
    response_model=TournamentList,
    responses=errors(401, 422),
)
async def list_tournaments(
    services: ServicesDep,
    viewer: OptionalUser,
    status_: Annotated[
        Literal["open", "running", "finished", "cancelled"] | None,
        Query(alias="status", description="Only tournaments of this status."),
    ] = None,
    game: Annotated[str | None, Query(max_length=30, description="Only this game's.")] = None,
    limit: Annotated[int, Query(ge=1, le=views.PAGE_MAX, description="At most this many.")] = 50,
) -> dict[str, Any]:
    """Tournaments, newest first: open to join, running, finished or cancelled."""
    viewer_pk = None if viewer is None else viewer.id

    def work(conn: Connection) -> list[dict[str, Any]]:
        return views.listing(conn, viewer_pk, status_, game, limit)

    return {"tournaments": await run_db(services, read, services, work)}


@router.post(
    "/tournaments",
    status_code=status.HTTP_201_CREATED,
    operation_id="tournaments-create",
    response_model=TournamentDetail,
    responses=errors(400, 401, 403, 422, 429, 503),
)
async def create_tournament(
    body: CreateTournament, user: CurrentUser, services: ServicesDep
) -> dict[str, Any]:
    """Create a tournament, open to join (the creator joins like anyone). 422 for anything
    wrong (`invalid_size` says which cup sizes work); 429 `too_many_tournaments` with 5 of
    mine open already."""

    def work(conn: Connection) -> dict[str, Any]:
        new_id = create.create(conn, user, body.model_dump(), now())
        return views.detail(conn, new_id, user.id)

    return await run_db(services, write, services, work)


@router.get(
    "/tournaments/{tournament_id}",
    operation_id="tournaments-get",
    response_model=TournamentDetail,
    responses=errors(401, 404, 422),
)
async def get_tournament(
    tournament_id: TournamentId, services: ServicesDep, viewer: OptionalUser
) -> dict[str, Any]:
    """A tournament: its settings, whether I may join, the standings (points, tie-break,
    games) and every round's tables with their games."""
    viewer_pk = None if viewer is None else viewer.id
    return await run_db(
        services, read, services, lambda conn: views.detail(conn, tournament_id, viewer_pk)
    )


@router.post(
    "/tournaments/{tournament_id}/join",
    operation_id="tournaments-join",
    response_model=TournamentDetail,
    responses=errors(400, 401, 403, 404, 409, 422, 429, 503),
)
async def join_tournament(
    tournament_id: TournamentId, user: CurrentUser, services: ServicesDep
) -> dict[str, Any]:
    """Join an open tournament. 409 `not_open`, `already_joined`, `full`; 403
    `buddies_only`, `tournament_ban` (with `games_left`: games to finish first after
    timing out of a tournament game); 429 `too_many_tournaments` (20 at once)."""

    def work(conn: Connection) -> dict[str, Any]:
        entry.join(conn, user, tournament_id, now())
        return views.detail(conn, tournament_id, user.id)

    return await run_db(services, write, services, work)


@router.post(
    "/tournaments/{tournament_id}/withdraw",
    operation_id="tournaments-withdraw",
    response_model=TournamentDetail,
    responses=errors(400, 401, 403, 404, 409, 422, 503),
)
async def withdraw_from_tournament(
    tournament_id: TournamentId, user: CurrentUser, services: ServicesDep
) -> dict[str, Any]:
    """Leave a tournament: before its start for good; while it runs, from every later
    round (a game in progress goes on). 409 `not_joined`, `not_playing`, `finished`."""

    def work(conn: Connection) -> dict[str, Any]:
        entry.withdraw(conn, user, tournament_id, now())
        return views.detail(conn, tournament_id, user.id)

    return await run_db(services, write, services, work)


__all__ = ["router"]
