"""Vacation on the profile page: the allowance left, announcing an absence, coming back.

The profile page (:mod:`~dicehall.server.web.account_pages`) shows the section; its forms
post here. An absence is asked for in days and hours from now (no time zones to get wrong).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from starlette.concurrency import run_in_threadpool

from dicehall.server.core.clock import now
from dicehall.server.core.models import User
from dicehall.server.domain import vacation
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.games import absence
from dicehall.server.domain.games.ending import time_left
from dicehall.server.domain.services import Services
from dicehall.server.web import forms
from dicehall.server.web.common import EXPIRED, Member, member_token_ok, see, sentence, services_of
from dicehall.server.web.forms import Form
from dicehall.server.web.render import page

router = APIRouter(include_in_schema=False)

#: The longest absence the form offers, in days (the allowance's ceiling).
MOST_DAYS = vacation.MOST_ALLOWANCE // vacation.DAY


@dataclass(frozen=True)
class VacationView:
    """An account's vacation as the profile page shows it."""

    left: str
    away_until: datetime | None
    vacation_until: datetime | None


def view_of(held: vacation.Allowance) -> VacationView:
    """What the page says about ``held``: the allowance in words, the windows still ahead."""

    def ahead(end: datetime | None) -> datetime | None:
        return end if end is not None and end > held.at else None

    # To the nearest minute: a few seconds spent while away need not show as "6 d 23 h".
    left = time_left(round(held.seconds / 60) * 60)
    return VacationView(left, ahead(held.away_until), ahead(held.until))


def vacation_of(services: Services, user: User) -> VacationView:
    """``user``'s vacation now (blocking: call it in a thread)."""
    with services.read_conn() as conn:
        return view_of(vacation.allowance(conn, user.id, now()))


async def vacation_context(
    request: Request, user: User, away_form: Form | None = None
) -> dict[str, Any]:
    """What the profile page needs to show its vacation section."""
    shown = await run_in_threadpool(vacation_of, services_of(request), user)
    return {"vacation": shown, "away_form": away_form or Form(), "most_days": MOST_DAYS}


def _whole(form: Form, name: str, most: int, what: str) -> int:
    text = form.get(name).strip() or "0"
    if not text.isdigit() or int(text) > most:
        form.error(name, f"Type a whole number of {what} from 0 to {most}.")
        return 0
    return int(text)


def _profile(request: Request, who: Member, context: dict[str, Any]) -> HTMLResponse:
    """The profile page again, its vacation form with what is wrong."""
    user = who.user
    profile_form = Form({"display_name": user.display_name, "about": user.about})
    return page(
        request,
        "profile.html",
        user=user,
        csrf=who.csrf,
        form=profile_form,
        status_code=422,
        **context,
    )


@router.post("/profile/away", response_class=HTMLResponse)
async def announce(request: Request, who: Member) -> Response:
    """Announce an absence of the days and hours the form gives, paid from the allowance."""
    form = await forms.read_form(request)
    days = _whole(form, "away_days", MOST_DAYS, "days")
    hours = _whole(form, "away_hours", 23, "hours")
    if form.ok and days == 0 and hours == 0:
        form.error("away_days", "Choose how long you will be away: at least one hour.")
    if not member_token_ok(who, form):
        form.problem = EXPIRED
    if form.ok:
        moment = now()
        until = moment + timedelta(days=days, hours=hours)
        services = services_of(request)

        def work() -> None:
            with services.write_conn() as conn:
                absence.go_away(conn, who.user.id, until, moment)

        try:
            await run_in_threadpool(work)
        except Refused as exc:
            form.error("away_days", sentence(exc.message))
        else:
            return see("/profile?away=1#vacation")
    context = await vacation_context(request, who.user, form)
    return _profile(request, who, context)


@router.post("/profile/back", response_class=HTMLResponse)
async def come_back(request: Request, who: Member) -> Response:
    """End my absence now; its unused part is given back (less a floating hour for games
    still waiting on a deadline it moved)."""
    form = await forms.read_form(request)
    if not member_token_ok(who, form):
        form.problem = EXPIRED
        context = await vacation_context(request, who.user, form)
        return _profile(request, who, context)
    services = services_of(request)

    def work() -> None:
        with services.write_conn() as conn:
            absence.come_back(conn, who.user.id, now())

    await run_in_threadpool(work)
    return see("/profile?back=1#vacation")
