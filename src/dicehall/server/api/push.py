"""The Web Push API: the site's public key, my browsers' subscriptions, and a test push.

A page turns pushes on with ``/static/js/webpush.js``: it subscribes the browser with the
key ``GET /push/key`` gives and posts ``PushSubscription.toJSON()`` as it is to
``POST /push/subscriptions``. Notices then reach that browser through its push service
(see ``domain.notices.push_delivery``).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field, StrictFloat

from dicehall.server.api.deps import CurrentUser, ServicesDep
from dicehall.server.api.params import Digits, db_id
from dicehall.server.api.rules import base64url, web_url
from dicehall.server.api.schemas import _Answer, _moment, errors
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.notices import push_delivery, push_subscriptions
from dicehall.server.domain.notices.vapid import site_vapid_key
from dicehall.server.domain.services import Services
from dicehall.server.domain.work import read, run_db, write
from dicehall.server.domain.write_rates import check_write_rate

router = APIRouter(prefix="/api/v1", tags=["notices"])


class PushKey(_Answer):
    """The site's VAPID public key."""

    public_key: str = Field(
        description="The uncompressed P-256 point in base64url: the `applicationServerKey` "
        "to subscribe with (`pushManager.subscribe`)."
    )


class PushKeys(BaseModel):
    """The browser's keys for encrypting pushes to it (RFC 8291)."""

    # A record in the Push API: keys a later browser may add are ignored.
    model_config = ConfigDict(extra="ignore")

    p256dh: Annotated[str, base64url(65, first="B[A-P]")] = Field(
        min_length=1, max_length=200, description="Its P-256 public key, base64url."
    )
    auth: Annotated[str, base64url(16)] = Field(
        min_length=1, max_length=100, description="Its 16-byte secret, base64url."
    )


class PushSubscriptionIn(BaseModel):
    """A browser's subscription exactly as ``PushSubscription.toJSON()`` gives it."""

    model_config = ConfigDict(extra="forbid")

    endpoint: Annotated[str, web_url(schemes="https")] = Field(
        min_length=1,
        max_length=1000,
        description="The push service's URL for this browser (https).",
    )
    expirationTime: StrictFloat | None = Field(
        default=None, description="When the subscription ends (ms since the epoch), or null."
    )
    keys: PushKeys


class PushSubscribed(_Answer):
    """A subscription stored (or an endpoint already known, now mine)."""

    id: int


class PushSubscriptionOut(_Answer):
    """One of my browsers' subscriptions (the endpoint's host only)."""

    id: int
    host: str = Field(description="The push service's host name.")
    created_at: str = _moment()
    last_error: str | None = Field(description="How the last push failed; null: it went through.")


class PushSubscriptionList(_Answer):
    """My browsers' subscriptions, oldest first."""

    subscriptions: list[PushSubscriptionOut]


class PushSubscriptionRemoved(_Answer):
    """A subscription forgotten."""

    removed: int


class PushError(_Answer):
    """A subscription a test push did not reach."""

    id: int
    host: str
    error: str


class PushTestSent(_Answer):
    """How a test push to each of my browsers went."""

    sent: int = Field(description="How many push services took it.")
    errors: list[PushError] = Field(
        description="Those that did not (a subscription that has ended is dropped)."
    )


def _key(services: Services) -> str:
    try:
        return site_vapid_key(services).public_b64
    except ValueError as exc:
        raise Refused("unavailable", "push_unavailable", f"web push is not set up: {exc}") from None


@router.get(
    "/push/key",
    operation_id="push-key",
    response_model=PushKey,
    responses=errors(503),
)
async def push_key(services: ServicesDep) -> dict[str, str]:
    """The key browsers subscribe with; the same for every process of the site."""
    return {"public_key": await run_db(services, _key, services)}


@router.post(
    "/push/subscriptions",
    operation_id="push-subscribe",
    status_code=201,
    response_model=PushSubscribed,
    responses=errors(400, 401, 403, 422, 503),
)
async def subscribe(
    body: PushSubscriptionIn, user: CurrentUser, services: ServicesDep
) -> dict[str, int]:
    """Push my notices to this browser too. 422 `invalid_subscription` for an endpoint that
    is not https or points at a private address, or keys that are not a P-256 point and a
    16-byte secret; nothing is stored then. At most 10 browsers: the oldest is dropped."""
    new_id = await run_db(
        services,
        push_subscriptions.add,
        services,
        user.id,
        body.endpoint,
        body.keys.p256dh,
        body.keys.auth,
    )
    return {"id": new_id}


@router.get(
    "/push/subscriptions",
    operation_id="push-subscriptions",
    response_model=PushSubscriptionList,
    responses=errors(401),
)
async def my_subscriptions(user: CurrentUser, services: ServicesDep) -> dict[str, Any]:
    """My browsers that are pushed my notices."""
    found = await run_db(
        services, read, services, lambda conn: push_subscriptions.of_user(conn, user.id)
    )
    return {
        "subscriptions": [
            {
                "id": s.id,
                "host": s.host,
                "created_at": s.created_at.isoformat(),
                "last_error": s.last_error,
            }
            for s in found
        ]
    }


@router.delete(
    "/push/subscriptions/{subscription_id}",
    operation_id="push-unsubscribe",
    response_model=PushSubscriptionRemoved,
    responses=errors(400, 401, 403, 404, 422, 503),
)
async def unsubscribe(
    subscription_id: Annotated[int, db_id("push subscription"), Digits],
    user: CurrentUser,
    services: ServicesDep,
) -> dict[str, int]:
    """Stop pushing to one of my browsers (404 `no_subscription` if it is not mine)."""
    removed = await run_db(
        services,
        write,
        services,
        lambda conn: push_subscriptions.unsubscribe(conn, user.id, subscription_id),
    )
    if not removed:
        raise Refused(
            "not_found", "no_subscription", f"you have no push subscription {subscription_id}"
        )
    return {"removed": subscription_id}


@router.post(
    "/push/test",
    operation_id="push-test",
    response_model=PushTestSent,
    responses=errors(401, 403, 429, 503),
)
async def test_push(user: CurrentUser, services: ServicesDep) -> dict[str, Any]:
    """Push a test notice to each of my browsers now, and say how it went (429
    `rate_limited` beyond a few a minute)."""

    def send() -> push_delivery.PushReport:
        check_write_rate(services, "push_test", user.id)
        try:
            return push_delivery.deliver_to_user(
                services, push_delivery.trial_notice(services, user.id)
            )
        except ValueError as exc:  # a configured VAPID key that is not valid
            raise Refused(
                "unavailable", "push_unavailable", f"web push is not set up: {exc}"
            ) from None

    report = await run_db(services, send)
    return {
        "sent": report.sent,
        "errors": [
            {"id": sub_id, "host": host, "error": error} for sub_id, host, error in report.errors
        ],
    }


__all__ = ["router"]
