"""The testimonials page: what members say about the site (approved ones, for everyone), and
for a member the form to write, edit or delete their own (one each; shown as awaiting
approval until a moderator approves it)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from sqlalchemy import Connection

from dicehall.server.core.clock import now
from dicehall.server.core.ids import id_in
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.moderation import testimonials
from dicehall.server.domain.work import read, run_db, write
from dicehall.server.domain.write_rates import check_write_rate
from dicehall.server.web import forms
from dicehall.server.web.common import (
    EXPIRED,
    Member,
    Visitor,
    member_token_ok,
    report,
    see,
    services_of,
    visitor,
)
from dicehall.server.web.forms import Form
from dicehall.server.web.moments import moment
from dicehall.server.web.render import page

router = APIRouter(include_in_schema=False)

#: What the page says after a change (``?done=``).
DONE = {
    "saved": "Your testimonial is saved. It shows here once a moderator has approved it.",
    "deleted": "Your testimonial is deleted.",
}


def _load(services: Any, user_pk: int | None, before: int | None) -> dict[str, Any]:
    def work(conn: Connection) -> dict[str, Any]:
        shown = testimonials.listing(conn, "approved", before)
        mine = testimonials.mine(conn, user_pk) if user_pk is not None else None
        return {**shown, "mine": mine}

    found: dict[str, Any] = read(services, work)
    return found


async def _page(
    request: Request,
    who: Visitor,
    form: Form | None = None,
    status_code: int = 200,
) -> HTMLResponse:
    services = services_of(request)
    before = id_in(request.query_params.get("before", ""))
    user_pk = None if who.user is None else who.user.id
    found = await run_db(services, _load, services, user_pk, before)
    mine = found["mine"]
    shown = [{**t, "when": moment(t["updated_at"])} for t in found["testimonials"]]
    return page(
        request,
        "testimonials.html",
        user=who.user,
        csrf=who.csrf,
        status_code=status_code,
        shown=shown,
        older=found["next"],
        paged=before is not None,
        mine=mine,
        form=form or Form({"body": "" if mine is None else mine["body"]}),
        most=testimonials.BODY_MOST,
        done=DONE.get(request.query_params.get("done", "")) if status_code == 200 else None,
    )


@router.get("/testimonials", response_class=HTMLResponse)
async def testimonials_page(request: Request) -> Response:
    """The approved testimonials, newest first; a member's own, in whatever status."""
    who = await run_db(services_of(request), visitor, request)
    return await _page(request, who)


@router.post("/testimonials", response_class=HTMLResponse)
async def save_testimonial(request: Request, who: Member) -> Response:
    """Write or rewrite my testimonial (it waits for approval again)."""
    form = await forms.read_form(request)
    if not member_token_ok(who, form):
        form.problem = EXPIRED
    else:
        try:
            testimonials.clean_body(form.get("body"))
        except Refused as exc:
            report(form, exc, {"invalid_body": "body"})
    if form.ok:
        services = services_of(request)

        def work() -> None:
            check_write_rate(services, "testimonial", who.user.id)
            write(
                services, lambda conn: testimonials.save(conn, who.user.id, form.get("body"), now())
            )

        try:
            await run_db(services, work)
        except Refused as exc:
            report(form, exc, {"invalid_body": "body"})
        else:
            return see("/testimonials?done=saved#mine")
    return await _page(request, who, form, 422)


@router.post("/testimonials/delete", response_class=HTMLResponse)
async def delete_testimonial(request: Request, who: Member) -> Response:
    """Delete my testimonial."""
    form = await forms.read_form(request)
    if not member_token_ok(who, form):
        form.problem = EXPIRED
        return await _page(request, who, form, 422)
    services = services_of(request)
    await run_db(services, write, services, lambda conn: testimonials.remove(conn, who.user.id))
    return see("/testimonials?done=deleted#mine")
