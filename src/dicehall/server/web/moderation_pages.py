"""The moderators' pages: the queue (open reports, newest first, each with what was reported
and a form to act on it; testimonials waiting for approval), one user (where they stand,
every action, the reports about them) and the audit log. Every form works without scripts;
anyone else gets a 403 page.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from sqlalchemy import Connection

from dicehall.server.core.clock import aware, now
from dicehall.server.core.ids import id_in
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.moderation import actions, audit, reports, testimonials
from dicehall.server.domain.moderation.content import HIDEABLE, KIND_WORDS
from dicehall.server.domain.moderation.standing import is_moderator, require_moderator, standing
from dicehall.server.domain.people.lookup import other_person
from dicehall.server.domain.services import Services
from dicehall.server.domain.work import read, run_db, write
from dicehall.server.web import forms
from dicehall.server.web.common import EXPIRED, Member, member_token_ok, see, sentence, services_of
from dicehall.server.web.forms import Form
from dicehall.server.web.render import page
from dicehall.server.web.report_pages import safe_back

router = APIRouter(include_in_schema=False)

#: The lengths a mute or suspension form offers (minutes, words).
DURATIONS = [
    (60, "1 hour"),
    (24 * 60, "1 day"),
    (3 * 24 * 60, "3 days"),
    (7 * 24 * 60, "1 week"),
    (30 * 24 * 60, "30 days"),
]


@dataclass(frozen=True)
class Outcome:
    """What the page says above everything: an action done, or why it was refused."""

    done: dict[str, Any] | None = None
    problem: str | None = None


def _forbidden(request: Request, who: Member) -> HTMLResponse:
    return page(
        request,
        "message.html",
        user=who.user,
        csrf=who.csrf,
        status_code=403,
        heading="Moderators only",
        message="Only the site's moderators may see this page.",
    )


def _entry(conn: Connection, request: Request) -> dict[str, Any] | None:
    """The audit entry ``?done=ID`` names (the action a form just took)."""
    entry = id_in(request.query_params.get("done", ""))
    if entry is None:
        return None
    found = audit.listing(conn, None, entry + 1, 1)["entries"]
    return found[0] if found and found[0]["id"] == entry else None


def _common(request: Request, who: Member, outcome: Outcome) -> dict[str, Any]:
    return {
        "user": who.user,
        "csrf": who.csrf,
        "status_code": 422 if outcome.problem else 200,
        "done": outcome.done,
        "problem": outcome.problem,
        "durations": DURATIONS,
        "kind_words": KIND_WORDS,
        "reason_words": reports.REASON_WORDS,
        "action_words": audit.ACTION_WORDS,
        "hideable": HIDEABLE,
    }


async def _queue_page(request: Request, who: Member, problem: str | None = None) -> Response:
    services = services_of(request)

    def load(conn: Connection) -> dict[str, Any] | None:
        if not is_moderator(conn, who.user.id):
            return None
        return {
            "queue": reports.queue(conn, "open"),
            "waiting": testimonials.listing(conn, "pending")["testimonials"],
            "done": None if problem else _entry(conn, request),
        }

    found = await run_db(services, read, services, load)
    if found is None:
        return _forbidden(request, who)
    return page(
        request,
        "moderation.html",
        reports=found["queue"]["reports"],
        waiting=found["waiting"],
        **_common(request, who, Outcome(found["done"], problem)),
    )


@router.get("/moderation", response_class=HTMLResponse)
async def queue_page(request: Request, who: Member) -> Response:
    """The open reports, newest first, and the testimonials waiting for approval."""
    return await _queue_page(request, who)


def _user_view(conn: Connection, moderator_pk: int, user_id: str) -> dict[str, Any]:
    require_moderator(conn, moderator_pk)
    shown = other_person(conn, -1, user_id, "")
    return {
        "shown": shown,
        "standing": standing(conn, shown.pk),
        "entries": audit.listing(conn, shown.pk)["entries"],
        "reports": reports.queue(conn, "open", target_pk=shown.pk)["reports"],
    }


async def _user_page(
    request: Request, who: Member, user_id: str, problem: str | None = None
) -> Response:
    services = services_of(request)

    def load(conn: Connection) -> dict[str, Any]:
        view = _user_view(conn, who.user.id, user_id)
        return {**view, "done": None if problem else _entry(conn, request)}

    try:
        found = await run_db(services, read, services, load)
    except Refused as exc:
        if exc.code == "not_moderator":
            return _forbidden(request, who)
        return page(
            request,
            "message.html",
            user=who.user,
            csrf=who.csrf,
            status_code=exc.status,
            heading="Not found",
            message=sentence(exc.message),
        )
    at = now()
    held = found["standing"]
    return page(
        request,
        "moderation_user.html",
        shown=found["shown"],
        held=held,
        muted_until=_iso(held.muted_until) if held.muted(at) else None,
        suspended_until=_iso(held.suspended_until) if held.suspended(at) else None,
        entries=found["entries"],
        reports=found["reports"],
        **_common(request, who, Outcome(found["done"], problem)),
    )


@router.get("/moderation/users/{user_id}", response_class=HTMLResponse)
async def user_page(request: Request, who: Member, user_id: str) -> Response:
    """One user as the moderators see them: where they stand, what was done, what is open."""
    return await _user_page(request, who, user_id)


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else aware(moment).isoformat()


def _order(form: Form) -> actions.Order:
    minutes = form.get("minutes").strip()
    return actions.Order(
        action=form.get("action"),
        reason=form.get("reason"),
        user_id=form.get("user_id").strip() or None,
        content_kind=form.get("content_kind").strip() or None,
        content_id=id_in(form.get("content_id")),
        minutes=int(minutes)
        if minutes.isascii() and minutes.isdigit() and len(minutes) < 10
        else None,
        report_id=id_in(form.get("report_id")),
    )


@router.post("/moderation/act", response_class=HTMLResponse)
async def act(request: Request, who: Member) -> Response:
    """Carry out a moderation form's action; back to its page, saying what was done."""
    form = await forms.read_form(request)
    back = safe_back(form.get("back") or "/moderation")
    if not back.startswith("/moderation"):
        back = "/moderation"
    problem: str | None = None
    if not member_token_ok(who, form):
        problem = EXPIRED
    else:
        services = services_of(request)
        order = _order(form)
        try:
            done = await run_db(
                services, write, services, lambda conn: actions.act(conn, who.user.id, order, now())
            )
        except Refused as exc:
            if exc.code == "not_moderator":
                return _forbidden(request, who)
            problem = sentence(exc.message)
        else:
            actions.end_access(services, done)
            return see(f"{back}?done={done.entry}")
    prefix = "/moderation/users/"
    if back.startswith(prefix):
        return await _user_page(request, who, back.removeprefix(prefix), problem)
    return await _queue_page(request, who, problem)


@router.post("/moderation/testimonials/{testimonial_id}/approve", response_class=HTMLResponse)
async def approve(request: Request, who: Member, testimonial_id: str) -> Response:
    """Approve a testimonial from the queue."""
    form = await forms.read_form(request)
    number = id_in(testimonial_id)
    if not member_token_ok(who, form):
        return await _queue_page(request, who, EXPIRED)
    services = services_of(request)

    def work(conn: Connection) -> int:
        return testimonials.approve(conn, who.user.id, number or 0, now()).entry

    try:
        entry = await run_db(services, write, services, work)
    except Refused as exc:
        if exc.code == "not_moderator":
            return _forbidden(request, who)
        return await _queue_page(request, who, sentence(exc.message))
    return see(f"/moderation?done={entry}")


def _audit(services: Services, moderator_pk: int, before: int | None) -> dict[str, Any] | None:
    def load(conn: Connection) -> dict[str, Any] | None:
        if not is_moderator(conn, moderator_pk):
            return None
        return audit.listing(conn, None, before)

    found: dict[str, Any] | None = read(services, load)
    return found


@router.get("/moderation/audit", response_class=HTMLResponse)
async def audit_page(request: Request, who: Member, before: str = "") -> Response:
    """The audit log, newest first: who did what to whom, why, until when."""
    older = id_in(before)
    services = services_of(request)
    found = await run_db(services, _audit, services, who.user.id, older)
    if found is None:
        return _forbidden(request, who)
    return page(
        request,
        "moderation_audit.html",
        entries=found["entries"],
        older=found["next"],
        paged=older is not None,
        **_common(request, who, Outcome()),
    )
