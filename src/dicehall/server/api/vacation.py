"""The vacation API: my allowance, and announcing or ending an absence.

An absence is paid from the allowance when it is announced; while it lasts, a deadline of
mine that runs out moves to its end. Ending it early (or making any move) gives back the
unused part (less a floating hour for the games still waiting on a deadline it moved, see
:mod:`~dicehall.server.domain.games.absence`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from dicehall.server.api.deps import CurrentUser, ServicesDep
from dicehall.server.api.schemas import VacationState, errors
from dicehall.server.core.clock import now
from dicehall.server.domain import vacation
from dicehall.server.domain.games import absence
from dicehall.server.domain.work import read, run_db, write

router = APIRouter(prefix="/api/v1", tags=["vacation"])


class GoAway(BaseModel):
    """When an announced absence ends."""

    model_config = ConfigDict(extra="forbid")

    until: datetime = Field(
        description="The end of the absence, in ISO 8601 with its UTC offset; it is paid "
        "from the allowance now, from now until then."
    )


@router.get(
    "/users/me/vacation",
    operation_id="users-me-vacation",
    response_model=VacationState,
    responses=errors(401),
)
async def my_vacation(user: CurrentUser, services: ServicesDep) -> dict[str, Any]:
    """My vacation allowance left, and the absence or floating hour that covers me now."""
    held: vacation.Allowance = await run_db(
        services, read, services, lambda conn: vacation.allowance(conn, user.id, now())
    )
    return held.as_json()


@router.post(
    "/users/me/away",
    operation_id="users-me-away",
    response_model=VacationState,
    responses=errors(400, 401, 403, 422, 503),
)
async def go_away(body: GoAway, user: CurrentUser, services: ServicesDep) -> dict[str, Any]:
    """Announce an absence until ``until``, paid from my allowance (422 `not_enough_vacation`
    when it is too long, `invalid_away` when it ends in the past). Announcing again replaces
    the last absence. Any move ends it."""
    held: vacation.Allowance = await run_db(
        services,
        write,
        services,
        lambda conn: absence.go_away(conn, user.id, body.until, now()),
    )
    return held.as_json()


@router.delete(
    "/users/me/away",
    operation_id="users-me-back",
    response_model=VacationState,
    responses=errors(401, 403, 503),
)
async def come_back(user: CurrentUser, services: ServicesDep) -> dict[str, Any]:
    """End my absence now, giving back its unused part (nothing changes without one); a
    game still waiting on a deadline it moved gets a floating hour from now."""
    held: vacation.Allowance = await run_db(
        services, write, services, lambda conn: absence.come_back(conn, user.id, now())[0]
    )
    return held.as_json()


__all__ = ["router"]
