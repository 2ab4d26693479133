"""The invites API ("Tell a friend"): personal links to the site or to an open seat.

A link (``<site>/i/TOKEN``) is signed, works once and for 14 days; the site sends no e-mail,
the inviter hands it on. The friend opens it in a browser (the landing page lets a visitor
sign up there) or, with an account, accepts it here.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request, status
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt

from dicehall.server.api.deps import CurrentUser, ServicesDep
from dicehall.server.api.params import BodyId, DbId, QueryId
from dicehall.server.api.rules import needs
from dicehall.server.api.schemas import _Answer, _moment, errors
from dicehall.server.domain import site_secrets
from dicehall.server.domain.people import invites
from dicehall.server.domain.reliability import limits_of
from dicehall.server.domain.work import notify, read, run_db, write

router = APIRouter(prefix="/api/v1", tags=["invites"])


class NewInvite(BaseModel):
    """What the link invites to: the site, or a seat of a game of mine waiting for players."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=needs("seat", "game_id"))

    game_id: BodyId | None = Field(
        default=None,
        description="A game I sit in that waits for players; left out: the site only.",
    )
    seat: StrictInt | None = Field(
        default=None,
        ge=0,
        le=7,
        description="The open seat offered (from 0); left out: the game's first open seat.",
    )
    make_buddies: StrictBool = Field(
        default=True, description="Become buddies when the friend accepts (they may opt out)."
    )


class AcceptInvite(BaseModel):
    """A link's token, and whether to become the inviter's buddy."""

    model_config = ConfigDict(extra="forbid")

    token: str = Field(min_length=1, max_length=200, description="The link's last part.")
    make_buddies: StrictBool = Field(
        default=True, description="Become buddies with the inviter (unless they opted out)."
    )


class InviteOut(_Answer):
    """One of my invites."""

    id: int
    url: str | None = Field(description="The link to hand on; null once it is not open.")
    created: str = _moment()
    expires: str = _moment()
    game_id: int | None = Field(description="The game whose seat it offers; null: the site.")
    game_kind: str | None = Field(description="That game's kind (`boatzee`, ...).")
    seat: int | None = Field(description="The seat offered (from 0).")
    make_buddies: bool = Field(description="Inviter and friend become buddies on accepting.")
    accepted_by: str | None = Field(description="The user id of the friend who accepted it.")
    accepted_at: str | None = Field(description="When it was accepted (ISO 8601).")
    state: Literal["open", "accepted", "expired"]


class InviteList(_Answer):
    """A page of my invites, newest first."""

    invites: list[InviteOut]
    next: int | None = Field(
        description="Send it as `before` for the next (older) page; null on the last page."
    )


class InviteAccepted(_Answer):
    """An invite accepted: who invited me, the seat I took, and whether we are buddies."""

    inviter: str = Field(description="The inviter's user id.")
    game_id: int | None = Field(description="The game I sit in now; null for the site.")
    seat: int | None = Field(description="My seat in it (from 0).")
    buddies: bool = Field(description="We became buddies (nobody opted out).")


class InviteWithdrawn(_Answer):
    """An invite withdrawn: its link works no more."""

    withdrawn: int = Field(description="The invite's id.")


def _link(request: Request, secret: str, invite: invites.InviteView) -> str:
    base = str(request.base_url).rstrip("/")
    return f"{base}/i/{invites.token_of(secret, invite.id, invite.created)}"


@router.post(
    "/invites",
    operation_id="invites-create",
    response_model=InviteOut,
    status_code=status.HTTP_201_CREATED,
    responses=errors(400, 401, 403, 409, 422, 429, 503),
)
async def create_invite(
    body: NewInvite, request: Request, user: CurrentUser, services: ServicesDep
) -> dict[str, Any]:
    """Make a personal invite link (201): to the site, or to an open seat of a game I sit
    in that waits for players. Refused: 422 `not_your_game` (no such game of mine),
    `invalid_seat`; 409 `not_waiting`, `seat_taken`, `no_open_seat`; 429
    `too_many_invites` (50 a day). The site sends nothing: hand the `url` on yourself."""
    secret = await run_db(services, site_secrets.site_secret, services)
    made: invites.InviteView = await run_db(
        services,
        write,
        services,
        lambda conn: invites.create(conn, user, body.game_id, body.seat, body.make_buddies),
    )
    return made.as_json(_link(request, secret, made))


@router.get(
    "/invites",
    operation_id="invites-list",
    response_model=InviteList,
    responses=errors(401, 422),
)
async def my_invites(
    request: Request,
    user: CurrentUser,
    services: ServicesDep,
    before: QueryId = None,
    limit: Annotated[int, Query(ge=1, le=100)] = invites.PAGE,
) -> dict[str, Any]:
    """My invites, newest first, with who accepted each; ``before=ID`` (the answer's
    ``next``) gives the next page. Open ones carry their link again."""
    secret = await run_db(services, site_secrets.site_secret, services)
    shown, older = await run_db(
        services, read, services, lambda conn: invites.listing(conn, user.id, before, limit)
    )
    return {
        "invites": [one.as_json(_link(request, secret, one)) for one in shown],
        "next": older,
    }


@router.post(
    "/invites/accept",
    operation_id="invites-accept",
    response_model=InviteAccepted,
    responses=errors(400, 401, 403, 404, 409, 422, 429, 503),
)
async def accept_invite(
    body: AcceptInvite, user: CurrentUser, services: ServicesDep
) -> dict[str, Any]:
    """Accept a link's invite: take its seat (or another open one of its game) and become
    buddies with the inviter unless either opted out. Refused: 404 `invalid_invite`,
    `invite_withdrawn`; 409 `invite_expired`, `invite_used`, or the game's own refusal
    (`not_open`...); 422 `yourself`; 403 `not_accepted` across an ignore."""
    secret = await run_db(services, site_secrets.site_secret, services)
    done: invites.Accepted = await run_db(
        services,
        write,
        services,
        lambda conn: invites.accept(
            conn,
            services.pool,
            secret,
            body.token,
            user,
            body.make_buddies,
            limits_of(services.settings),
        ),
    )
    if done.game is not None:
        notify(services, *done.game)
    return {
        "inviter": done.invite.inviter_id,
        "game_id": done.game_id,
        "seat": done.seat,
        "buddies": done.buddies,
    }


@router.delete(
    # Digits only: `/invites/accept` names no invite, so a DELETE there is 405 (with the
    # path's Allow), not this route's 422.
    "/invites/{invite_id:int}",
    operation_id="invites-withdraw",
    response_model=InviteWithdrawn,
    responses=errors(401, 403, 404, 409, 422, 503),
)
async def withdraw_invite(
    invite_id: DbId, user: CurrentUser, services: ServicesDep
) -> dict[str, int]:
    """Withdraw one of my invites not yet accepted (409 `invite_accepted` otherwise): its
    link stops working."""
    await run_db(services, write, services, lambda conn: invites.withdraw(conn, user.id, invite_id))
    return {"withdrawn": invite_id}


__all__ = ["router"]
