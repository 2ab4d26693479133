"""The webhook API: the URL my notices are posted to (one at most), its format, how its last
delivery went, and a test post on demand.

A URL is refused (422 ``unsafe_url``) when it points at a private, local or otherwise
non-public address (no server-side request forgery), unless the site allows that host in
``DICEHALL_OUTBOUND_ALLOW``.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import Connection

from dicehall.server.api.deps import CurrentUser, ServicesDep
from dicehall.server.api.rules import web_url
from dicehall.server.api.schemas import _Answer, _moment, errors
from dicehall.server.core.clock import now
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.notices import webhook_store
from dicehall.server.domain.notices.kinds import WebhookFormat
from dicehall.server.domain.services import Services
from dicehall.server.domain.work import read, run_db, write

router = APIRouter(prefix="/api/v1", tags=["notices"])

_FORMATS = (
    "`json` (a plain JSON object), `discord` and `slack` (their incoming webhooks), or "
    "`ntfy` (a topic URL such as `https://ntfy.sh/my-topic`)."
)


class WebhookIn(BaseModel):
    """Where my notices are to be posted, and in which format."""

    model_config = ConfigDict(extra="forbid")

    url: Annotated[str, web_url()] = Field(
        max_length=webhook_store.MAX_URL,
        description="An http or https URL of a public host (no user name or password in it).",
    )
    format: WebhookFormat = Field(description=_FORMATS)


class WebhookOut(_Answer):
    """My webhook, and how its last deliveries went."""

    url: str
    format: WebhookFormat = Field(description=_FORMATS)
    created_at: str = _moment()
    last_ok_at: str | None = _moment()
    last_error: str | None = Field(description="Why the last failed delivery failed.")
    last_error_at: str | None = _moment()


class WebhookRemoved(_Answer):
    """My webhook was forgotten: no notice is posted to it any more."""

    removed: str = Field(description="The URL it had.")


class WebhookTried(_Answer):
    """How a test post went (it is recorded as the last delivery too)."""

    ok: bool
    error: str | None = Field(description="Why it failed (null when it arrived).")


def _no_webhook() -> Refused:
    return Refused("not_found", "no_webhook", "you have no webhook")


def _mine(services: Services, user_pk: int) -> webhook_store.WebhookRow:
    found = read(services, lambda conn: webhook_store.get(conn, user_pk))
    if found is None:
        raise _no_webhook()
    return found


@router.get(
    "/users/me/webhook",
    operation_id="users-me-webhook",
    response_model=WebhookOut,
    responses=errors(401, 404),
)
async def my_webhook(user: CurrentUser, services: ServicesDep) -> dict[str, Any]:
    """My webhook (404 `no_webhook` when I have none)."""
    found = await run_db(services, _mine, services, user.id)
    return webhook_store.payload(found)


@router.put(
    "/users/me/webhook",
    operation_id="users-me-webhook-set",
    response_model=WebhookOut,
    responses=errors(400, 401, 403, 422, 503),
)
async def set_webhook(body: WebhookIn, user: CurrentUser, services: ServicesDep) -> dict[str, Any]:
    """Post my notices to ``url`` in ``format`` from now on, replacing the webhook I had.
    A URL that is not http(s) or too long: 422 `invalid_url`; one whose host is private,
    local or does not resolve: 422 `unsafe_url`; nothing is stored then (nor when its host
    cannot be looked up now: 503 `lookup_failed`)."""
    settings = services.settings
    url = await run_db(
        services,
        lambda: webhook_store.validate(
            body.url, body.format, settings.outbound_allow, timeout=settings.outbound_timeout
        ),
    )
    row = await run_db(
        services,
        write,
        services,
        lambda conn: webhook_store.set_webhook(conn, user.id, url, body.format, now()),
    )
    return webhook_store.payload(row)


def _remove(services: Services, user_pk: int) -> str:
    def work(conn: Connection) -> str:
        found = webhook_store.get(conn, user_pk)
        if found is None or not webhook_store.remove(conn, user_pk):
            raise _no_webhook()
        return found.url

    return write(services, work)


@router.delete(
    "/users/me/webhook",
    operation_id="users-me-webhook-delete",
    response_model=WebhookRemoved,
    responses=errors(401, 403, 404, 503),
)
async def remove_webhook(user: CurrentUser, services: ServicesDep) -> dict[str, Any]:
    """Forget my webhook (404 `no_webhook` when I have none)."""
    url = await run_db(services, _remove, services, user.id)
    return {"removed": url}


def _try(services: Services, user_pk: int) -> dict[str, Any]:
    error = webhook_store.trial(services, user_pk)
    return {"ok": error is None, "error": error}


@router.post(
    "/users/me/webhook/test",
    operation_id="users-me-webhook-test",
    response_model=WebhookTried,
    responses=errors(401, 403, 404, 429, 503),
)
async def test_webhook(user: CurrentUser, services: ServicesDep) -> dict[str, Any]:
    """Post a test notice to my webhook now and say how it went (404 `no_webhook` when I
    have none; 429 `rate_limited` beyond a few a minute). The result shows as the
    webhook's last delivery."""
    tried: dict[str, Any] = await run_db(services, _try, services, user.id)
    return tried


__all__ = ["router"]
