"""The auto-match API: file a ticket (an open seat that fits is taken at once, else the
matcher seats it), my tickets and every game's queue, and cancelling a ticket."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, status
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt
from sqlalchemy import Connection

from dicehall.server.api.automatch_schemas import AutomatchList, AutomatchTicketOut
from dicehall.server.api.deps import CurrentUser, OptionalUser, ServicesDep
from dicehall.server.api.params import Digits, db_id
from dicehall.server.api.rules import PACE_SECONDS, GameName, Rule, pace_names
from dicehall.server.api.schemas import errors
from dicehall.server.core.clock import now
from dicehall.server.domain.automatch import tickets
from dicehall.server.domain.reliability import limits_of
from dicehall.server.domain.work import notify, read, run_db, write

router = APIRouter(prefix="/api/v1", tags=["automatch"])

OptionValue = str | StrictInt | StrictBool | None
TicketId = Annotated[int, db_id("auto-match ticket"), Digits]


class FileTicket(BaseModel):
    """What to be matched for."""

    model_config = ConfigDict(extra="forbid")

    game: GameName = Field(description="The game, e.g. `boatzee`.")
    options: dict[str, OptionValue] = Field(
        default_factory=dict, max_length=20, description="The game's options (its defaults)."
    )
    # 0 and 1 are the domain's to refuse (`invalid_seats`), but no table size.
    seats: list[Annotated[StrictInt, Field(ge=0, le=99), Rule(minimum=2)]] = Field(
        min_length=2,
        max_length=2,
        description="The table sizes I accept: [smallest, largest], 2 or more, within "
        "what the game allows.",
    )
    pace: (
        Annotated[str, Field(max_length=20), pace_names(none=False)]
        | Annotated[dict[str, StrictInt], PACE_SECONDS]
    ) = Field(
        default="daily",
        description="A preset (`live`, `brisk`, `daily`, `relaxed`, `days-1` to `days-14`) "
        "or `{initial, increment, cap}` in seconds; auto-match games always have a clock.",
    )
    rated: StrictBool = Field(
        default=True, description="Rated (the game must have a rating; bots make it unrated)."
    )
    bots_after: StrictInt | None = Field(
        default=None,
        ge=0,
        le=tickets.BOTS_AFTER_MAX,
        description="Minutes after which bots take the seats still missing for my smallest "
        "table (the game is then unrated); null: never.",
    )


@router.post(
    "/automatch",
    status_code=status.HTTP_201_CREATED,
    operation_id="automatch-file",
    response_model=AutomatchTicketOut,
    responses=errors(400, 401, 403, 409, 422, 429, 503),
)
async def file_ticket(body: FileTicket, user: CurrentUser, services: ServicesDep) -> dict[str, Any]:
    """File an auto-match ticket. An open waiting-room seat that fits is taken at once (the
    ticket comes back `matched` with its game); else it waits and the matcher seats me as
    soon as a table forms (a push `{"type": "automatch", "ticket", "game"}` says so).
    Refused: 422 `unknown_game`, `invalid_options`, `invalid_seats`, `invalid_pace`,
    `not_rateable`; 409 `already_waiting` (one waiting ticket per game); 429
    `too_many_tickets` (5 waiting) or too many games in progress."""
    wish = tickets.check(
        body.game, body.options, body.seats, body.pace, body.rated, body.bots_after
    )

    def work(conn: Connection) -> tickets.Filed:
        return tickets.file(conn, services.pool, user, wish, now(), limits_of(services.settings))

    filed: tickets.Filed = await run_db(services, write, services, work)
    for record, seats in filed.changed:
        notify(services, record, seats)
    return filed.ticket


@router.get(
    "/automatch",
    operation_id="automatch-list",
    response_model=AutomatchList,
    responses=errors(401),
)
async def list_tickets(services: ServicesDep, viewer: OptionalUser) -> dict[str, Any]:
    """My waiting tickets and those matched in the last day (none for a visitor), and for
    every game how many tickets wait, by table size, with the typical wait."""
    viewer_pk = None if viewer is None else viewer.id
    return await run_db(
        services, read, services, lambda conn: tickets.listing(conn, viewer_pk, now())
    )


@router.delete(
    "/automatch/{ticket_id}",
    operation_id="automatch-cancel",
    response_model=AutomatchTicketOut,
    responses=errors(400, 401, 403, 404, 409, 422, 503),
)
async def cancel_ticket(
    ticket_id: TicketId, user: CurrentUser, services: ServicesDep
) -> dict[str, Any]:
    """Cancel my waiting ticket (404 `not_found`: none of mine; 409 `already_matched`:
    it found its game)."""
    return await run_db(
        services, write, services, lambda conn: tickets.cancel(conn, user.id, ticket_id, now())
    )


__all__ = ["router"]
