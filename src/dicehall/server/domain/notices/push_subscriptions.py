"""Users' Web Push subscriptions: the browsers that asked to be pushed notices.

A subscription is what a browser's ``PushSubscription.toJSON()`` gives: the push service's
URL (``endpoint``) and the browser's keys (``p256dh``, ``auth``). An endpoint belongs to one
browser, so one already known moves to whoever subscribes with it last. A user keeps at
most :data:`MAX_PER_USER`; a new one beyond that drops the oldest.

:func:`checked` looks the endpoint's host up (no pushes to private or local addresses:
no server-side request forgery), which may block: do it before the write transaction, as
:func:`add` does.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast
from urllib.parse import urlsplit

from cryptography.hazmat.primitives.asymmetric import ec
from sqlalchemy import Connection, Table, delete, select, update
from sqlalchemy.dialects import postgresql, sqlite

from dicehall.server.core.clock import aware, now
from dicehall.server.core.models import PushSubscription
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.services import Services
from dicehall.server.domain.work import write
from dicehall.server.infra import outbound
from dicehall.server.infra.webpush import PushTarget, b64url, unb64url

SUBSCRIPTIONS = cast(Table, PushSubscription.__table__)

#: The most subscriptions (browsers) one user keeps.
MAX_PER_USER = 10
_MAX_ENDPOINT = 1000
_MAX_ERROR = 300


@dataclass(frozen=True)
class Subscription:
    """One stored subscription."""

    id: int
    user_pk: int
    endpoint: str
    p256dh: str
    auth: str
    created_at: datetime
    #: How the last push to it failed (None: it went through, or none was sent yet).
    last_error: str | None

    @property
    def target(self) -> PushTarget:
        """Where and how to push to it."""
        return PushTarget(self.endpoint, self.p256dh, self.auth)

    @property
    def host(self) -> str:
        """The push service's host name (all a page shows of the endpoint)."""
        return urlsplit(self.endpoint).hostname or ""


def _invalid(message: str) -> Refused:
    return Refused("invalid", "invalid_subscription", message)


def check_keys(p256dh: str, auth: str) -> tuple[str, str]:
    """The browser's keys, checked and written in base64url without padding: ``p256dh`` an
    uncompressed P-256 point on the curve (65 bytes), ``auth`` 16 bytes. Refused (422)
    otherwise."""
    try:
        point = unb64url(p256dh)
    except ValueError:
        raise _invalid("keys.p256dh must be base64url") from None
    if len(point) != 65 or point[0] != 4:
        raise _invalid(
            f"keys.p256dh must be an uncompressed P-256 public key (65 bytes), not {len(point)} "
            "bytes"
        )
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except ValueError:
        raise _invalid("keys.p256dh is not a point on the P-256 curve") from None
    try:
        secret = unb64url(auth)
    except ValueError:
        raise _invalid("keys.auth must be base64url") from None
    if len(secret) != 16:
        raise _invalid(f"keys.auth must be 16 bytes, not {len(secret)}")
    return b64url(point), b64url(secret)


def _host_allowed(host: str, allow: Sequence[str]) -> bool:
    """``host`` is named in ``outbound_allow`` (as itself, or inside a listed network)."""
    host = host.lower().strip("[]")
    for entry in allow:
        entry = entry.strip().lower()
        if entry == host:
            return True
        try:
            if ipaddress.ip_address(host) in ipaddress.ip_network(entry, strict=False):
                return True
        except ValueError:
            continue
    return False


def check_endpoint(endpoint: str, allow: Sequence[str]) -> str:
    """The endpoint, checked: an https URL (http only for a host in ``allow``) of a host
    that is not private or local unless allowed. Blocking (it looks the host up); Refused
    (422) otherwise, or (503) when its host cannot be looked up for now."""
    endpoint = endpoint.strip()
    if not endpoint:
        raise _invalid("endpoint must be the push service's URL")
    if len(endpoint) > _MAX_ENDPOINT:
        raise _invalid(f"endpoint is longer than {_MAX_ENDPOINT} characters")
    try:
        parts = urlsplit(endpoint)
        parts.port  # noqa: B018 - a bad port raises here
    except ValueError:
        raise _invalid("endpoint is not a valid URL") from None
    host = parts.hostname or ""
    if not host:
        raise _invalid("endpoint must be an absolute https URL")
    if parts.username is not None or parts.password is not None:
        raise _invalid("endpoint must not carry a user name or password")
    if parts.scheme == "http":
        if not _host_allowed(host, allow):
            raise _invalid("endpoint must be an https URL")
    elif parts.scheme != "https":
        raise _invalid("endpoint must be an https URL")
    try:
        outbound.check_url(endpoint, allow)
    except outbound.OutboundRefused as exc:
        raise _invalid(f"this push endpoint cannot be used: {exc.reason}") from None
    except outbound.OutboundError as exc:
        raise Refused(
            "unavailable", "lookup_failed", f"the push endpoint's host cannot be checked now: {exc}"
        ) from None
    return endpoint


def checked(endpoint: str, p256dh: str, auth: str, *, allow: Sequence[str]) -> PushTarget:
    """A subscription as a browser sent it, checked (see :func:`check_keys` and
    :func:`check_endpoint`; blocking). Refused (422) with one sentence when it is not
    usable."""
    keys = check_keys(p256dh, auth)
    return PushTarget(check_endpoint(endpoint, allow), *keys)


def subscribe(conn: Connection, user_pk: int, endpoint: str, p256dh: str, auth: str) -> int:
    """Store a subscription (checked with :func:`checked` first) for ``user_pk``, moving an
    endpoint already known to them with its new keys, and dropping their oldest beyond
    :data:`MAX_PER_USER`; its id."""
    p256dh, auth = check_keys(p256dh, auth)
    values = {
        "user_pk": user_pk,
        "endpoint": endpoint,
        "p256dh": p256dh,
        "auth": auth,
        "created_at": now(),
        "last_error": None,
    }
    dialect = sqlite if conn.dialect.name == "sqlite" else postgresql
    statement: Any = dialect.insert(SUBSCRIPTIONS).values(**values)
    statement = statement.on_conflict_do_update(
        index_elements=[SUBSCRIPTIONS.c.endpoint],
        set_={name: value for name, value in values.items() if name != "endpoint"},
    ).returning(SUBSCRIPTIONS.c.id)
    new_id = int(conn.execute(statement).scalar_one())
    kept = (
        select(SUBSCRIPTIONS.c.id)
        .where(SUBSCRIPTIONS.c.user_pk == user_pk)
        .order_by(SUBSCRIPTIONS.c.created_at.desc(), SUBSCRIPTIONS.c.id.desc())
    )
    extra = [row_id for (row_id,) in conn.execute(kept.offset(MAX_PER_USER))]
    if extra:
        conn.execute(delete(SUBSCRIPTIONS).where(SUBSCRIPTIONS.c.id.in_(extra)))
    return new_id


def unsubscribe(conn: Connection, user_pk: int, endpoint_or_id: str | int) -> bool:
    """Forget ``user_pk``'s subscription with this id (an int) or endpoint (a str);
    whether there was one."""
    column = SUBSCRIPTIONS.c.id if isinstance(endpoint_or_id, int) else SUBSCRIPTIONS.c.endpoint
    done = conn.execute(
        delete(SUBSCRIPTIONS).where(SUBSCRIPTIONS.c.user_pk == user_pk, column == endpoint_or_id)
    )
    return bool(done.rowcount)


def of_user(conn: Connection, user_pk: int) -> list[Subscription]:
    """``user_pk``'s subscriptions, oldest first."""
    rows = conn.execute(
        select(SUBSCRIPTIONS)
        .where(SUBSCRIPTIONS.c.user_pk == user_pk)
        .order_by(SUBSCRIPTIONS.c.created_at, SUBSCRIPTIONS.c.id)
    )
    return [
        Subscription(
            id=row.id,
            user_pk=row.user_pk,
            endpoint=row.endpoint,
            p256dh=row.p256dh,
            auth=row.auth,
            created_at=aware(row.created_at),
            last_error=row.last_error,
        )
        for row in rows
    ]


def drop(conn: Connection, subscription_id: int) -> None:
    """Forget a subscription (its push service said it has ended)."""
    conn.execute(delete(SUBSCRIPTIONS).where(SUBSCRIPTIONS.c.id == subscription_id))


def record_error(conn: Connection, subscription_id: int, message: str | None) -> None:
    """Note how the last push to a subscription failed (None: it went through)."""
    if message is not None and len(message) > _MAX_ERROR:
        message = message[: _MAX_ERROR - 1] + "…"
    conn.execute(
        update(SUBSCRIPTIONS)
        .where(SUBSCRIPTIONS.c.id == subscription_id)
        .values(last_error=message)
    )


def add(services: Services, user_pk: int, endpoint: str, p256dh: str, auth: str) -> int:
    """Check a browser's subscription (outside any transaction: it looks the host up) and
    store it for ``user_pk``; its id (blocking: run it in a thread)."""
    target = checked(endpoint, p256dh, auth, allow=services.settings.outbound_allow)
    return write(
        services,
        lambda conn: subscribe(conn, user_pk, target.endpoint, target.p256dh, target.auth),
    )


__all__ = [
    "MAX_PER_USER",
    "Subscription",
    "add",
    "check_endpoint",
    "check_keys",
    "checked",
    "drop",
    "of_user",
    "record_error",
    "subscribe",
    "unsubscribe",
]
