"""A user's webhook (one at most): where their notices are posted, in which format, and how
the last delivery went.

A URL is checked (:func:`validate`: its scheme, its host's addresses) before the write
transaction that stores it, since the check looks the host up in DNS; deliveries check it
again, as the addresses a name resolves to may change.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Connection, Table, delete, select, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from dicehall.server.core.clock import aware, now
from dicehall.server.core.models import Webhook
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.notices.kinds import (
    WEBHOOK_FORMATS,
    DeliveryFailed,
    Notice,
    WebhookFormat,
)
from dicehall.server.domain.services import Services
from dicehall.server.domain.write_rates import check_write_rate
from dicehall.server.infra import webhooks
from dicehall.server.infra.outbound import OutboundError, OutboundRefused, check_url

WEBHOOKS = cast(Table, Webhook.__table__)
#: The longest URL stored, and the longest error kept.
MAX_URL = 1000
MAX_ERROR = 300


@dataclass(frozen=True)
class WebhookRow:
    """A user's webhook as stored."""

    user_pk: int
    url: str
    format: WebhookFormat
    created_at: datetime
    last_ok_at: datetime | None
    last_error: str | None
    last_error_at: datetime | None


def _row(found: Any) -> WebhookRow:
    def moment(value: datetime | None) -> datetime | None:
        return aware(value) if value is not None else None

    return WebhookRow(
        user_pk=found.user_pk,
        url=found.url,
        format=cast(WebhookFormat, found.format),
        created_at=aware(found.created_at),
        last_ok_at=moment(found.last_ok_at),
        last_error=found.last_error,
        last_error_at=moment(found.last_error_at),
    )


def get(conn: Connection, user_pk: int) -> WebhookRow | None:
    """The user's webhook, or None."""
    found = conn.execute(select(WEBHOOKS).where(WEBHOOKS.c.user_pk == user_pk)).first()
    return _row(found) if found is not None else None


def validate(url: str, fmt: str, allow: Sequence[str], *, timeout: float = 10.0) -> str:
    """The URL to store (``url`` without surrounding spaces), or :class:`Refused`: 422
    ``invalid_format`` for a format not offered, ``invalid_url`` for a URL too long or not
    http(s), ``unsafe_url`` for one that points at a private address or nowhere; 503
    ``lookup_failed`` when its host cannot be looked up now. Looks the host up: call it
    outside any transaction."""
    if fmt not in WEBHOOK_FORMATS:
        offered = ", ".join(WEBHOOK_FORMATS)
        raise Refused("invalid", "invalid_format", f"the format must be one of {offered}")
    url = url.strip()
    if not url:
        raise Refused("invalid", "invalid_url", "the webhook URL must not be empty")
    if len(url) > MAX_URL:
        raise Refused(
            "invalid", "invalid_url", f"the webhook URL must be at most {MAX_URL} characters long"
        )
    if not url.lower().startswith(("http://", "https://")):
        raise Refused(
            "invalid", "invalid_url", "the webhook URL must start with http:// or https://"
        )
    try:
        check_url(url, allow, timeout=timeout)
    except OutboundRefused as exc:
        raise Refused("invalid", "unsafe_url", f"webhook URL refused: {exc.reason}") from None
    except OutboundError as exc:
        raise Refused(
            "unavailable", "lookup_failed", f"the webhook URL could not be checked now: {exc}"
        ) from None
    return url


def set_webhook(
    conn: Connection, user_pk: int, url: str, fmt: WebhookFormat, at: datetime
) -> WebhookRow:
    """Store ``url`` (checked by :func:`validate`) as the user's webhook in format ``fmt``,
    replacing the one they had and its history."""
    maker = postgresql_insert if conn.dialect.name == "postgresql" else sqlite_insert
    fresh = {
        "url": url,
        "format": fmt,
        "created_at": at,
        "last_ok_at": None,
        "last_error": None,
        "last_error_at": None,
    }
    statement = maker(WEBHOOKS).values(user_pk=user_pk, **fresh)
    conn.execute(statement.on_conflict_do_update(index_elements=["user_pk"], set_=fresh))
    return WebhookRow(
        user_pk=user_pk,
        url=url,
        format=fmt,
        created_at=at,
        last_ok_at=None,
        last_error=None,
        last_error_at=None,
    )


def remove(conn: Connection, user_pk: int) -> bool:
    """Forget the user's webhook; whether they had one."""
    return conn.execute(delete(WEBHOOKS).where(WEBHOOKS.c.user_pk == user_pk)).rowcount > 0


def record_ok(conn: Connection, user_pk: int, at: datetime) -> None:
    """Note a delivery that arrived (the last error stays shown with its time)."""
    conn.execute(update(WEBHOOKS).where(WEBHOOKS.c.user_pk == user_pk).values(last_ok_at=at))


def record_error(conn: Connection, user_pk: int, at: datetime, message: str) -> None:
    """Note a delivery that failed, and why."""
    if len(message) > MAX_ERROR:
        message = message[: MAX_ERROR - 1] + "\u2026"
    conn.execute(
        update(WEBHOOKS)
        .where(WEBHOOKS.c.user_pk == user_pk)
        .values(last_error=message, last_error_at=at)
    )


def sample_notice(user_pk: int, site_url: str, at: datetime) -> Notice:
    """The notice a "send a test" posts (its id is negative: no delivery has it)."""
    return Notice(
        id=-int(at.timestamp() * 1000),
        user_pk=user_pk,
        kind="message",
        game_id=None,
        title="dicehall: test notice",
        text="This webhook works: your dicehall notices will arrive here.",
        url=f"{site_url.rstrip('/')}/settings",
        created_at=at,
    )


def deliver(
    url: str, fmt: WebhookFormat, notice: Notice, *, timeout: float, allow: Sequence[str]
) -> None:
    """Post ``notice`` to the webhook at ``url`` (blocking: run it in a worker thread), or
    raise :class:`DeliveryFailed`: permanent for a refused URL, a redirect and any 4xx but
    408, 425 and 429; temporary for 5xx, those three, timeouts and refused connections."""
    try:
        webhooks.deliver(url, fmt, notice, timeout=timeout, allow=allow)
    except webhooks.WebhookFailed as exc:
        raise DeliveryFailed(str(exc), permanent=exc.permanent) from exc


def payload(row: WebhookRow) -> dict[str, Any]:
    """The webhook as the API shows it."""

    def moment(value: datetime | None) -> str | None:
        return value.isoformat() if value is not None else None

    return {
        "url": row.url,
        "format": row.format,
        "created_at": row.created_at.isoformat(),
        "last_ok_at": moment(row.last_ok_at),
        "last_error": row.last_error,
        "last_error_at": moment(row.last_error_at),
    }


__all__ = [
    "WebhookRow",
    "deliver",
    "get",
    "payload",
    "record_error",
    "record_ok",
    "remove",
    "sample_notice",
    "set_webhook",
    "validate",
]


def trial(services: Services, user_pk: int) -> str | None:
    """Post a test notice to ``user_pk``'s webhook now and record how it went; the error,
    or None when it arrived (blocking: run it in a worker thread). Refused: 404
    ``no_webhook``; 429 ``rate_limited`` beyond a few a minute (each post may hold a worker
    thread up to the timeout)."""
    check_write_rate(services, "webhook_test", user_pk)
    with services.read_conn() as conn:
        hook = get(conn, user_pk)
    if hook is None:
        raise Refused("not_found", "no_webhook", "save a webhook first, then test it")
    failed = post_and_record(
        services, hook, sample_notice(user_pk, services.settings.site_url, now())
    )
    return None if failed is None else str(failed)


def post_and_record(services: Services, hook: WebhookRow, notice: Notice) -> DeliveryFailed | None:
    """Post ``notice`` to ``hook`` and note how it went on the webhook (shown on the
    settings page); the failure, or None (blocking: run it in a worker thread)."""
    config = services.settings
    failed: DeliveryFailed | None = None
    try:
        deliver(
            hook.url,
            hook.format,
            notice,
            timeout=config.outbound_timeout,
            allow=config.outbound_allow,
        )
    except DeliveryFailed as exc:
        failed = exc
    with services.write_conn() as conn:
        if failed is None:
            record_ok(conn, hook.user_pk, now())
        else:
            record_error(conn, hook.user_pk, now(), str(failed))
    return failed
