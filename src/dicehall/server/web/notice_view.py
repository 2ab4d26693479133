"""What the Notifications section of the settings page shows: my e-mail address, how and
which notices reach me on each channel, my time zone and reminders, my webhook and the
browsers pushed to. Its forms are handled by :mod:`notice_settings_pages`."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from starlette.concurrency import run_in_threadpool

from dicehall.server.core.models import User
from dicehall.server.domain.notices import push_subscriptions, webhook_store
from dicehall.server.domain.notices.kinds import KIND_LABELS, KINDS, Channel, WebhookFormat
from dicehall.server.domain.notices.zones import known_zones
from dicehall.server.domain.people import settings
from dicehall.server.domain.services import Services
from dicehall.server.web import moments
from dicehall.server.web.forms import Form

#: The channels as the table's columns head them, and as a checkbox's label ends.
CHANNELS: tuple[tuple[Channel, str, str], ...] = (
    ("email", "E-mail", "by e-mail"),
    ("push", "Push", "by push"),
    ("webhook", "Webhook", "by webhook"),
)
#: The e-mail modes: (value, label, hint).
EMAIL_MODES = (
    ("digest", "One digest a day", "At the hour below, one mail with a line per game."),
    (
        "immediate",
        "A mail for each notice",
        "Sent once you have not had that game open for a while.",
    ),
    ("off", "No e-mail", "Nothing is mailed; pushes and the webhook still go."),
)
#: The webhook formats: (value, label).
WEBHOOK_FORMATS: tuple[tuple[WebhookFormat, str], ...] = (
    ("json", "Plain JSON"),
    ("discord", "Discord"),
    ("slack", "Slack"),
    ("ntfy", "ntfy (a topic URL)"),
)
#: What a form of the section did, by the code the page is sent back with.
DONE = {
    "saved": "Your notice settings are saved.",
    "email-sent": "A link was sent to your new address: open it to verify the address.",
    "email-removed": "Your e-mail address is removed; nothing is mailed to you any more.",
    "webhook-saved": "Your webhook is saved: your notices are posted to it from now on.",
    "webhook-ok": "The test notice reached your webhook.",
    "webhook-failed": "The test notice did not reach your webhook; see the last error below.",
    "webhook-removed": "Your webhook is removed.",
}
#: The names of the section's fields, for the summary of a form's problems.
LABELS = {
    "email": "E-mail address",
    "email_mode": "How notices are mailed",
    "digest_hour": "Digest hour",
    "time_zone": "Time zone",
    "reminders": "Reminders",
    "url": "Webhook URL",
    "format": "Webhook format",
}


@functools.cache
def zone_names() -> tuple[str, ...]:
    """The time zones offered in the list: the regions' names (any known one is taken)."""
    legacy = ("Etc/", "SystemV/", "US/", "posix", "right/")
    named = [z for z in known_zones() if "/" in z and not z.startswith(legacy)]
    return ("UTC", *sorted(named))


def kind_field(channel: str, kind: str) -> str:
    """The name of the checkbox of ``kind`` on ``channel``."""
    return f"{channel}-{kind}"


@dataclass(frozen=True)
class Device:
    """A browser pushed to, as the list shows it."""

    id: int
    host: str
    since: str
    last_error: str | None


@dataclass(frozen=True)
class NoticeView:
    """The section's state for one user."""

    email: str | None
    verified: bool
    #: The settings the form shows (the stored ones, or what a failed form sent).
    shown: dict[str, Any]
    zone: str
    webhook: webhook_store.WebhookRow | None
    webhook_ok: str | None
    webhook_error_at: str | None
    devices: tuple[Device, ...]


def when(moment: datetime | None, zone: str) -> str | None:
    """A moment as the site words it in the user's zone (None for none)."""
    return None if moment is None else moments.exact(moment, zone)


def load(services: Services, user: User, changes: dict[str, Any] | None = None) -> NoticeView:
    """The section for ``user``; ``changes``: what a failed form sent, shown again."""
    with services.read_conn() as conn:
        current = settings.of(conn, user.id)
        hook = webhook_store.get(conn, user.id)
        subscriptions = push_subscriptions.of_user(conn, user.id)
    zone = current.time_zone
    shown = {**current.model_dump(), **(changes or {})}
    if isinstance(shown.get("reminders"), list):
        shown["reminders"] = ", ".join(shown["reminders"])
    return NoticeView(
        email=user.email,
        verified=user.email is not None and user.email_verified_at is not None,
        shown=shown,
        zone=zone,
        webhook=hook,
        webhook_ok=when(hook.last_ok_at, zone) if hook else None,
        webhook_error_at=when(hook.last_error_at, zone) if hook else None,
        devices=tuple(
            Device(s.id, s.host, when(s.created_at, zone) or "", s.last_error)
            for s in subscriptions
        ),
    )


async def section(
    services: Services,
    user: User,
    *,
    form: Form | None = None,
    changes: dict[str, Any] | None = None,
    done: str = "",
) -> dict[str, Any]:
    """The settings page's context for the section: ``form`` a failed form of it (with
    ``changes``, what it sent), ``done`` the code of what a form just did."""
    view = await run_in_threadpool(load, services, user, changes)
    hook = view.webhook
    defaults = {
        "email": view.email or "",
        "url": hook.url if hook else "",
        "format": hook.format if hook else "json",
    }
    failed = form or Form()
    shown = Form({**defaults, **failed.values}, dict(failed.errors), failed.problem)
    return {
        "notices": view,
        "notice_form": shown,
        "notice_done": DONE.get(done),
        "notice_labels": LABELS,
        "notice_kinds": [(kind, KIND_LABELS[kind]) for kind in KINDS],
        "notice_channels": CHANNELS,
        "email_modes": EMAIL_MODES,
        "webhook_formats": WEBHOOK_FORMATS,
        "zone_names": zone_names(),
        "kind_field": kind_field,
    }
