"""The forms of the settings page's Notifications section: my e-mail address, how and which
notices reach me (with my time zone and reminders), and my webhook.

Each form posts with the session's CSRF token and comes back to ``/settings#notices`` saying
what it did; a form with a mistake shows the whole settings page again, the message next to
its field. Pushes to this browser are turned on and off by static/js/notice-settings.js.
"""

from __future__ import annotations

import re
from typing import Any, get_args

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from starlette.concurrency import run_in_threadpool

from dicehall.server.core.clock import now
from dicehall.server.domain import accounts
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.notices import account_mail, webhook_store
from dicehall.server.domain.notices import reminders as reminder_marks
from dicehall.server.domain.notices.kinds import KINDS, WebhookFormat
from dicehall.server.domain.notices.zones import check_time_zone
from dicehall.server.domain.people import settings
from dicehall.server.domain.services import Services
from dicehall.server.domain.work import write
from dicehall.server.web import forms, notice_view, settings_pages
from dicehall.server.web.common import (
    EXPIRED,
    Member,
    held_up,
    member_token_ok,
    see,
    sentence,
    services_of,
)
from dicehall.server.web.forms import Form

router = APIRouter(include_in_schema=False)

_MODES = {value for value, _, _ in notice_view.EMAIL_MODES}
_FORMATS: tuple[WebhookFormat, ...] = get_args(WebhookFormat)


def _back(done: str) -> Response:
    return see(f"/settings?notices={done}#notices")


async def _again(
    request: Request, who: Member, form: Form, changes: dict[str, Any] | None = None
) -> HTMLResponse:
    """The settings page with this section's failed form (422)."""
    services = services_of(request)
    section = await notice_view.section(services, who.user, form=form, changes=changes)
    return await settings_pages.full_page(request, who, status_code=422, **section)


def _limited(request: Request, kind: str, user_id: str) -> str | None:
    address = request.client.host if request.client else "unknown"
    wait = accounts.count_attempt(services_of(request), kind, address, user_id, own=True)
    return None if wait is None else f"Too many attempts; please try again in {wait} seconds."


# -- how and which notices -----------------------------------------------------------------


def changes_of(form: Form) -> dict[str, Any]:
    """The notice settings as the form sent them; what is wrong is marked on its field."""
    changes: dict[str, Any] = {}
    mode = form.get("email_mode")
    if mode in _MODES:
        changes["email_mode"] = mode
    else:
        form.error("email_mode", "Choose one of the options.")
    hour = form.get("digest_hour").strip()
    if hour.isdigit() and 0 <= int(hour) <= 23:
        changes["digest_hour"] = int(hour)
    else:
        form.error("digest_hour", "Choose an hour from 0 to 23.")
    for channel, _, _ in notice_view.CHANNELS:
        changes[f"{channel}_kinds"] = [
            kind for kind in KINDS if form.get(notice_view.kind_field(channel, kind)) == "on"
        ]
    zone = form.get("time_zone").strip()
    try:
        changes["time_zone"] = check_time_zone(zone)
    except ValueError as exc:
        message = str(exc) if zone else "choose a time zone, such as Europe/Paris or UTC"
        form.error("time_zone", sentence(message))
        changes["time_zone"] = zone
    marks = [mark for mark in re.split(r"[,;\s]+", form.get("reminders")) if mark]
    try:
        changes["reminders"] = reminder_marks.check(marks)
    except ValueError as exc:
        form.error("reminders", sentence(str(exc)))
        changes["reminders"] = marks
    return changes


@router.post("/settings/notices", response_class=HTMLResponse)
async def save_notices(request: Request, who: Member) -> Response:
    """Save how and which notices reach me, my time zone and my reminders."""
    form = await forms.read_form(request)
    changes = changes_of(form)
    if not member_token_ok(who, form):
        form.problem = EXPIRED
    refused: Refused | None = None
    if form.ok:
        try:
            await run_in_threadpool(settings.save, services_of(request), who.user.id, changes)
        except Refused as exc:
            form.problem = sentence(exc.message)
            refused = exc
        else:
            return _back("saved")
    return held_up(await _again(request, who, form, changes), refused)


# -- my e-mail address ---------------------------------------------------------------------


@router.post("/settings/email", response_class=HTMLResponse)
async def save_email(request: Request, who: Member) -> Response:
    """Set, change or remove my address; a new one is mailed a link that verifies it."""
    form = await forms.read_form(request)
    remove = form.get("action") == "remove"
    address = form.get("email").strip()
    if not member_token_ok(who, form):
        form.problem = EXPIRED
    elif not remove and not address:
        form.error("email", "Type your e-mail address (or remove the one you have).")
    elif not remove:
        try:
            address = account_mail.check_email(address)
        except Refused as exc:
            form.error("email", sentence(exc.message))
    if form.ok and not remove:
        form.problem = await run_in_threadpool(_limited, request, "email", who.user.user_id)
    if not form.ok:
        return await _again(request, who, form)
    services = services_of(request)
    try:
        await run_in_threadpool(
            account_mail.set_email, services, who.user.id, None if remove else address
        )
    except Refused as exc:
        form.error("email", sentence(exc.message))
        return await _again(request, who, form)
    if remove:
        return _back("email-removed")
    if address == who.user.email and who.user.email_verified_at is not None:
        return _back("saved")  # the same verified address: nothing to prove
    return _back("email-sent")


# -- my webhook ----------------------------------------------------------------------------


def _store_webhook(services: Services, user_pk: int, url: str, fmt: WebhookFormat) -> None:
    config = services.settings
    checked = webhook_store.validate(
        url, fmt, config.outbound_allow, timeout=config.outbound_timeout
    )
    write(services, lambda conn: webhook_store.set_webhook(conn, user_pk, checked, fmt, now()))


def _test_webhook(services: Services, user_pk: int) -> bool:
    """Post a test notice to my saved webhook, and record how it went; whether it arrived."""
    return webhook_store.trial(services, user_pk) is None


_WEBHOOK_FIELDS = {"invalid_format": "format", "no_webhook": "url"}


@router.post("/settings/webhook", response_class=HTMLResponse)
async def save_webhook(request: Request, who: Member) -> Response:
    """Save, test or remove my webhook (the button pressed says which)."""
    form = await forms.read_form(request)
    action = form.get("action", "save")
    fmt = form.get("format")
    if not member_token_ok(who, form):
        form.problem = EXPIRED
    elif action not in ("save", "test", "remove"):
        form.problem = "Choose to save, test or remove the webhook."
    elif action == "save" and fmt not in _FORMATS:
        form.error("format", "Choose one of the formats.")
    if not form.ok:
        return await _again(request, who, form)
    services = services_of(request)
    user_pk = who.user.id
    try:
        if action == "remove":
            await run_in_threadpool(
                write, services, lambda conn: webhook_store.remove(conn, user_pk)
            )
            return _back("webhook-removed")
        if action == "test":
            arrived = await run_in_threadpool(_test_webhook, services, user_pk)
            return _back("webhook-ok" if arrived else "webhook-failed")
        chosen: WebhookFormat = next(f for f in _FORMATS if f == fmt)
        await run_in_threadpool(_store_webhook, services, user_pk, form.get("url"), chosen)
    except Refused as exc:
        form.error(_WEBHOOK_FIELDS.get(exc.code, "url"), sentence(exc.message))
        return await _again(request, who, form)
    return _back("webhook-saved")


__all__ = ["router"]
