"""API tokens for programs and bots: made from a signed-in browser only (an API token may
not make more of itself), listed without their secrets, revoked one by one."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, status

from dicehall.server.api.accounts import SignedInDep, Text, _Body, browser_only
from dicehall.server.api.deps import CurrentUser, DbDep, ServicesDep
from dicehall.server.api.errors import ApiError
from dicehall.server.api.params import in_id_range
from dicehall.server.api.rules import Rule, stripped_line
from dicehall.server.api.schemas import ApiToken, NewApiToken, TokenRevoked, errors
from dicehall.server.domain import accounts
from dicehall.server.domain.account_checks import TOKEN_NAME_MAX
from dicehall.server.infra.push import token_credential

router = APIRouter(prefix="/api/v1", tags=["accounts"])


class NewToken(_Body):
    """A name for a new API token, to tell tokens apart (e.g. "my bot")."""

    name: Annotated[Text, Rule(pattern=stripped_line(TOKEN_NAME_MAX))]


@router.post(
    "/tokens",
    status_code=status.HTTP_201_CREATED,
    operation_id="tokens-create",
    response_model=NewApiToken,
    responses=errors(400, 401, 403, 409, 422, 503),
)
def create_token(body: NewToken, signed_in: SignedInDep, services: ServicesDep) -> dict[str, Any]:
    """A new API token, made from a signed-in browser with its CSRF token (403
    ``not_a_session`` with an API token): its secret is in this answer only, so keep it
    now."""
    user, _session = browser_only(signed_in, "API tokens are made")
    secret, row = accounts.create_token(services, user, body.name)
    return {**accounts.token_payload(row), "token": secret}


@router.get(
    "/tokens", operation_id="tokens-list", response_model=list[ApiToken], responses=errors(401)
)
def list_tokens(user: CurrentUser, db: DbDep) -> list[dict[str, Any]]:
    """My API tokens (names and dates, never the secrets)."""
    return accounts.list_tokens(db, user)


@router.delete(
    "/tokens/{token_id}",
    operation_id="tokens-revoke",
    response_model=TokenRevoked,
    responses=errors(401, 403, 404, 422, 503),
)
def revoke_token(token_id: int, user: CurrentUser, services: ServicesDep) -> dict[str, Any]:
    """Revoke one of my API tokens; programs using it get 401 from now on."""
    if not in_id_range(token_id):
        raise ApiError(404, "no_such_token", f"you have no API token {token_id}")
    token_hash = accounts.revoke_token(services, user, token_id)
    services.broker.end_credentials(user.id, [token_credential(token_hash)], "token revoked")
    return {"revoked": token_id, "message": f"API token {token_id} is revoked"}


__all__ = ["router"]
