"""Password reset by e-mail: ask for a link, then set a new password with it.

``POST /api/v1/auth/password-reset`` answers 202 whether or not the address is known (nobody
learns which addresses have accounts); an account whose *verified* address it is gets a
link, valid once for 30 minutes. ``POST /api/v1/auth/password-reset/confirm`` sets the new
password with the link's token; every browser session of the account ends, and every API
token unless ``keep_tokens`` is true.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Request, status
from fastapi.responses import JSONResponse
from pydantic import Field, StrictBool

from dicehall.server.api.accounts import PasswordText, Text, _Body, _over_limit
from dicehall.server.api.deps import ServicesDep
from dicehall.server.api.rules import Rule, email_address
from dicehall.server.api.schemas import _Answer, errors
from dicehall.server.domain.notices import account_mail
from dicehall.server.infra.push import token_credential

router = APIRouter(prefix="/api/v1", tags=["accounts"])


class ResetRequest(_Body):
    """The address the account's reset link is mailed to."""

    email: Annotated[Text, email_address()]


class ResetConfirm(_Body):
    """The token from the mailed link, and the new password."""

    token: Annotated[Text, Rule(pattern="^[A-Za-z0-9_.-]+$")] = Field(
        description="The token at the end of the mailed link."
    )
    password: PasswordText
    keep_tokens: StrictBool = Field(
        False, description="Keep the account's API tokens valid (by default the reset ends them)."
    )


class ResetAsked(_Answer):
    """The request was taken (the same answer for any well-formed address)."""

    message: str


class ResetDone(_Answer):
    """The password is set; every session of the account ended, and every API token unless
    kept."""

    user_id: str
    ended_sessions: int
    ended_tokens: int
    message: str


@router.post(
    "/auth/password-reset",
    operation_id="auth-password-reset",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=ResetAsked,
    responses=errors(400, 422, 429, 503),
)
def ask_reset(
    body: ResetRequest, request: Request, services: ServicesDep
) -> dict[str, Any] | JSONResponse:
    """Mail a password reset link to the accounts whose verified address this is. The
    answer is 202 whether or not such an account exists; a malformed address: 422
    ``invalid_email``."""
    address = account_mail.check_email(body.email)
    limited = _over_limit(request, services, "reset", address)
    if limited is not None:
        return limited
    account_mail.request_reset(services, address)
    return {
        "message": "if an account has this verified address, a link to set a new password "
        "is on its way (it works once, for 30 minutes)"
    }


@router.post(
    "/auth/password-reset/confirm",
    operation_id="auth-password-reset-confirm",
    response_model=ResetDone,
    responses=errors(400, 422, 429, 503),
)
def confirm_reset(
    body: ResetConfirm, request: Request, services: ServicesDep
) -> dict[str, Any] | JSONResponse:
    """Set a new password with a reset link's token; every session of the account ends, and
    every API token unless ``keep_tokens``. Refused (422): ``invalid_link``,
    ``link_expired``, ``link_used`` (a link works once), ``invalid_password``."""
    limited = _over_limit(request, services, "reset-confirm", "-")
    if limited is not None:
        return limited
    done = account_mail.confirm_reset(services, body.token, body.password, body.keep_tokens)
    broker = services.broker
    broker.end_sessions_except(done.user_pk, None, "the password was reset")
    if done.token_hashes:
        credentials = [token_credential(h) for h in done.token_hashes]
        broker.end_credentials(done.user_pk, credentials, "the password was reset")
    return {
        "user_id": done.user_id,
        "ended_sessions": done.sessions,
        "ended_tokens": len(done.token_hashes),
        "message": "your password is set; every session "
        + ("" if body.keep_tokens else "and API token ")
        + "of the account ended: sign in with the new password",
    }


__all__ = ["router"]
