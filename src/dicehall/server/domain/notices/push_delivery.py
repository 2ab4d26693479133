"""Notices sent by Web Push: what a push says, and sending it to a user's browsers.

A push's payload is the JSON ``{"title", "body", "tag", "url", "id"}`` that the site's
service worker (``/sw.js``) shows as a notification: ``tag`` is one per game, so a game's
notices replace one another on the screen (and, as the ``Topic``, at the push service),
and a click opens ``url``. Encrypting, signing and posting are
:mod:`dicehall.server.infra.webpush`'s.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from sqlalchemy import Connection

from dicehall.server.core.clock import now
from dicehall.server.domain.notices.kinds import DeliveryFailed, Notice
from dicehall.server.domain.notices.push_subscriptions import (
    Subscription,
    drop,
    of_user,
    record_error,
)
from dicehall.server.domain.notices.vapid import site_vapid_key
from dicehall.server.domain.services import Services
from dicehall.server.domain.work import read, write
from dicehall.server.infra.webpush import (
    MAX_PAYLOAD,
    PushFailed,
    PushTarget,
    VapidKey,
    send,
    topic_of,
)

#: How long a push service keeps a push for a browser that is offline (a notice older than
#: a day is stale; the bell still has it).
PUSH_TTL = 24 * 3600


def payload_of(notice: Notice) -> bytes:
    """What the service worker is sent about ``notice`` (UTF-8 JSON, within one record)."""
    fields = {
        "title": notice.title,
        "body": notice.text,
        "tag": notice.tag,
        "url": notice.url,
        "id": notice.id,
    }
    data = json.dumps(fields, ensure_ascii=False).encode()
    while len(data) > MAX_PAYLOAD and fields["body"]:
        # Only a body far longer than any notice's could get here; shorten it, keep the rest.
        body = str(fields["body"])
        fields["body"] = body[: len(body) // 2] + "…"
        data = json.dumps(fields, ensure_ascii=False).encode()
    return data


def deliver(
    target: PushTarget,
    notice: Notice,
    key: VapidKey,
    subject: str,
    *,
    timeout: float,
    allow: Sequence[str],
) -> None:
    """Push ``notice`` to one browser (blocking). Raises :class:`DeliveryFailed`: ``gone``
    when the push service says the subscription has ended (404, 410: drop it),
    ``permanent`` when trying again cannot help (a refused address, another 4xx), else
    temporary (5xx, 408, 429, a timeout)."""
    try:
        send(
            target,
            payload_of(notice),
            key,
            subject,
            ttl=PUSH_TTL,
            topic=topic_of(notice.tag),
            urgency="high" if notice.kind == "time_low" else "normal",
            now=time.time(),
            timeout=timeout,
            allow=allow,
        )
    except PushFailed as exc:
        raise DeliveryFailed(str(exc), permanent=exc.permanent, gone=exc.gone) from exc


@dataclass(frozen=True)
class PushReport:
    """How a push to each of a user's browsers went."""

    #: How many browsers' push services took it.
    sent: int
    #: ``(subscription id, push service host, what went wrong)`` for each that did not;
    #: a subscription that has ended (404, 410) is dropped.
    errors: list[tuple[int, str, str]]


def deliver_to_user(services: Services, notice: Notice) -> PushReport:
    """Push ``notice`` to every browser of its user at once (blocking: run it in a thread,
    outside a transaction), dropping the subscriptions that have ended and noting each
    one's last error. No subscription: nothing sent, no error."""
    subscriptions = read(services, lambda conn: of_user(conn, notice.user_pk))
    if not subscriptions:
        return PushReport(0, [])
    key = site_vapid_key(services)
    settings = services.settings

    def one(subscription: Subscription) -> DeliveryFailed | None:
        try:
            deliver(
                subscription.target,
                notice,
                key,
                settings.vapid_subject,
                timeout=settings.outbound_timeout,
                allow=settings.outbound_allow,
            )
        except DeliveryFailed as exc:
            return exc
        return None

    with ThreadPoolExecutor(max_workers=len(subscriptions)) as pool:
        outcomes = list(pool.map(one, subscriptions))

    def note(conn: Connection) -> None:
        for subscription, failed in zip(subscriptions, outcomes, strict=True):
            if failed is not None and failed.gone:
                drop(conn, subscription.id)
            elif failed is not None or subscription.last_error is not None:
                record_error(conn, subscription.id, None if failed is None else str(failed))

    write(services, note)
    errors = [
        (subscription.id, subscription.host, str(failed))
        for subscription, failed in zip(subscriptions, outcomes, strict=True)
        if failed is not None
    ]
    return PushReport(sum(1 for failed in outcomes if failed is None), errors)


def trial_notice(services: Services, user_pk: int) -> Notice:
    """The notice ``POST /api/v1/push/test`` sends: it opens the settings page."""
    return Notice(
        id=0,
        user_pk=user_pk,
        kind="message",
        game_id=None,
        title="dicehall: push works",
        text="This browser will be told when it is your turn.",
        url=services.settings.site_url.rstrip("/") + "/settings",
        created_at=now(),
    )


__all__ = ["PUSH_TTL", "PushReport", "deliver", "deliver_to_user", "payload_of", "trial_notice"]
