"""A player's history: their games newest first, a page at a time, and their record."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from sqlalchemy import Connection

from dicehall import games
from dicehall.server.api.deps import OptionalUser, ServicesDep
from dicehall.server.api.rules import Rule, enum_of
from dicehall.server.api.schemas import GameHistory, PlayerRecord, errors
from dicehall.server.domain import history
from dicehall.server.domain.work import read, run_db

router = APIRouter(prefix="/api/v1", tags=["users"])


@router.get(
    "/users/{user_id}/games",
    operation_id="users-games",
    response_model=GameHistory,
    responses=errors(401, 404, 422),
)
async def user_games(
    user_id: str,
    services: ServicesDep,
    viewer: OptionalUser,
    state: Annotated[
        Annotated[str, Rule(enum=["", *history.STATES])] | None,
        Query(max_length=10, description="`finished` (the default) or `active`."),
    ] = None,
    game: Annotated[
        Annotated[str, enum_of(lambda: ["", *games.available()])] | None,
        Query(max_length=30, description="Only this game, e.g. `tenthousand`."),
    ] = None,
    result: Annotated[
        Annotated[str, Rule(enum=["", *history.RESULTS])] | None,
        Query(
            max_length=10,
            description="Only games the player `win`, `loss` or `draw` (finished games).",
        ),
    ] = None,
    vs: Annotated[
        str | None, Query(max_length=40, description="Only games this user also played in.")
    ] = None,
    kind: Annotated[
        Annotated[str, Rule(enum=["", *history.KINDS])] | None,
        Query(max_length=10, description="`ladder`: only ladder games."),
    ] = None,
    cursor: Annotated[
        str | None, Query(max_length=200, description="`next` of the previous page.")
    ] = None,
    limit: Annotated[
        int,
        Query(description=f"Games per page, 1 to {history.PAGE_MAX}."),
        Rule(minimum=1, maximum=history.PAGE_MAX),
    ] = history.PAGE,
) -> dict[str, Any]:
    """The player's games, newest first (finished: by when they ended; in progress: newest
    game first), a page at a time: follow ``next`` until it is null. Private games are
    listed only to their players. Bad parameters are 422 ``invalid_state``,
    ``invalid_result``, ``unknown_game``, ``unknown_user`` (``vs``), ``invalid_kind``,
    ``invalid_cursor`` or ``invalid_limit``."""

    def work(conn: Connection) -> dict[str, Any]:
        player = history.find_player(conn, user_id)
        query = history.history_query(
            conn,
            state=state,
            game=game,
            result=result,
            vs=vs,
            cursor=cursor,
            limit=limit,
            kind=kind,
        )
        return history.history(conn, player, query, None if viewer is None else viewer.id)

    return await run_db(services, read, services, work)


@router.get(
    "/users/{user_id}/record",
    operation_id="users-record",
    response_model=PlayerRecord,
    responses=errors(401, 404, 422),
)
async def user_record(
    user_id: str,
    services: ServicesDep,
    viewer: OptionalUser,
    vs: Annotated[
        str | None, Query(max_length=40, description="Only games against this user.")
    ] = None,
) -> dict[str, Any]:
    """The player's wins, losses and draws per game, over the finished games I may see (a
    draw: a shared win)."""

    def work(conn: Connection) -> dict[str, Any]:
        player = history.find_player(conn, user_id)
        rival = history.find_player(conn, vs, "unknown_user") if vs else None
        return history.record(conn, player, None if viewer is None else viewer.id, rival)

    return await run_db(services, read, services, work)
