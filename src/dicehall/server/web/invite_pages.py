"""Tell a friend: making personal invite links (``/invites``) and the page a link opens
(``/i/TOKEN``), where a visitor signs up or logs in, and a member accepts.

The site sends no e-mail: the inviter copies the link and hands it on. Accepting seats the
friend in the game the link offers (the board is next) or, for the site, brings them to
their status page; the two become buddies unless either said no.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from starlette.concurrency import run_in_threadpool

from dicehall.server.core.clock import now
from dicehall.server.core.ids import in_id_range
from dicehall.server.domain import site_secrets
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.people import invites
from dicehall.server.domain.reliability import limits_of
from dicehall.server.domain.services import Services
from dicehall.server.domain.work import notify, read, run_db, write
from dicehall.server.http.session_cookie import set_session_cookie
from dicehall.server.web import forms
from dicehall.server.web.account_pages import sign_up_from
from dicehall.server.web.common import (
    EXPIRED,
    Member,
    Visitor,
    member_token_ok,
    see,
    sentence,
    services_of,
    visitor,
)
from dicehall.server.web.forms import Form
from dicehall.server.web.render import page

router = APIRouter(include_in_schema=False)

#: A token longer than this was not made here (they are about 60 characters).
TOKEN_MOST = 200

#: What the landing page says, by the code a link was refused with.
_REFUSED_LINK = {
    "invalid_invite": (
        "This invite link does not work",
        "The link is not one this site made, or part of it is missing. Check that you "
        "copied all of it, or ask your friend to send it again.",
    ),
    "invite_withdrawn": (
        "This invite was withdrawn",
        "The person who made this link has withdrawn it. Ask them for a new one.",
    ),
    "invite_expired": (
        "This invite has expired",
        "Invite links work for 14 days. Ask your friend for a new one.",
    ),
    "invite_used": (
        "This invite has been used",
        "Each invite link works once, and this one has been accepted already. Ask your "
        "friend for a new one.",
    ),
}


def _link(request: Request, secret: str, invite: invites.InviteView) -> str:
    token = invites.token_of(secret, invite.id, invite.created)
    return f"{str(request.base_url).rstrip('/')}/i/{token}"


def _day(moment: datetime) -> str:
    return moment.strftime("%d %B %Y")


# -- my invites ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class InviteRow:
    """One of my invites as the list shows it (days in words, the link while open)."""

    invite: invites.InviteView
    state: invites.State
    title: str | None
    link: str | None
    created: str
    expires: str
    accepted: str | None


def _mine(services: Services, user_pk: int) -> tuple[list[invites.InviteView], list[Any]]:
    with services.read_conn() as conn:
        shown, _ = invites.listing(conn, user_pk, None, 100)
        return shown, invites.open_seats_of_mine(conn, user_pk)


async def _invites_page(
    request: Request,
    who: Member,
    form: Form | None = None,
    made: int | None = None,
    status_code: int = 200,
) -> HTMLResponse:
    services = services_of(request)
    secret = await run_in_threadpool(site_secrets.site_secret, services)
    shown, seats = await run_in_threadpool(_mine, services, who.user.id)
    at = now()
    rows = [
        InviteRow(
            one,
            one.state(at),
            one.game_title,
            _link(request, secret, one) if one.state(at) == "open" else None,
            _day(one.created),
            _day(one.expires),
            _day(one.accepted_at) if one.accepted_at else None,
        )
        for one in shown
    ]
    fresh = next((row for row in rows if row.invite.id == made and row.link), None)
    choices = [("site", "The site: no game, just come and play")] + [
        (
            f"{seat.game_id}:{seat.seat}",
            f"Game {seat.game_id}, {seat.game_title}: seat {seat.seat + 1} of {seat.seats}",
        )
        for seat in seats
    ]
    return page(
        request,
        "invites.html",
        user=who.user,
        csrf=who.csrf,
        form=form or Form({"target": "site", "make_buddies": "on"}),
        choices=choices,
        rows=rows,
        fresh=fresh,
        per_day=invites.PER_DAY,
        status_code=status_code,
    )


@router.get("/invites", response_class=HTMLResponse)
async def my_invites(request: Request, who: Member, made: int | None = None) -> Response:
    """Tell a friend: make a link, and see my invites and who accepted them."""
    return await _invites_page(request, who, made=made)


def _target(form: Form) -> tuple[int | None, int | None]:
    """The game and seat the form chose (None, None: the site)."""
    chosen = form.get("target").strip()
    if chosen == "site":
        return None, None
    game, _, seat = chosen.partition(":")
    if game.isdigit() and seat.isdigit() and in_id_range(int(game)) and int(seat) < 8:
        return int(game), int(seat)
    form.error("target", "Choose the site or one of the open seats in the list.")
    return None, None


@router.post("/invites", response_class=HTMLResponse)
async def make_invite(request: Request, who: Member) -> Response:
    """Make a link from the form, then show it with its copy button."""
    form = await forms.read_form(request)
    game_id, seat = _target(form)
    if not member_token_ok(who, form):
        form.problem = EXPIRED
    if not form.ok:
        return await _invites_page(request, who, form, status_code=422)
    services = services_of(request)
    user = who.user
    try:
        made: invites.InviteView = await run_db(
            services,
            write,
            services,
            lambda conn: invites.create(conn, user, game_id, seat, "make_buddies" in form.values),
        )
    except Refused as exc:
        form.error("target", sentence(exc.message))
        return await _invites_page(request, who, form, status_code=exc.status)
    return see(f"/invites?made={made.id}#new-link")


@router.post("/invites/{invite_id}/withdraw", response_class=HTMLResponse)
async def withdraw_invite(request: Request, who: Member, invite_id: int) -> Response:
    """Withdraw one of my open invites: its link stops working."""
    form = await forms.read_form(request)
    if not member_token_ok(who, form):
        return await _invites_page(request, who, Form(problem=EXPIRED), status_code=422)
    services = services_of(request)
    if in_id_range(invite_id):
        try:
            await run_db(
                services,
                write,
                services,
                lambda conn: invites.withdraw(conn, who.user.id, invite_id),
            )
        except Refused as exc:
            problem = Form(problem=sentence(exc.message))
            return await _invites_page(request, who, problem, status_code=exc.status)
    return see("/invites")


# -- the page a link opens -----------------------------------------------------------------------


def _landing(
    request: Request,
    who: Visitor,
    token: str,
    invite: invites.InviteView,
    form: Form | None = None,
    status_code: int = 200,
) -> HTMLResponse:
    """The landing page of an open invite: who invites, to what, and what to do."""
    form = form or Form({"make_buddies": "on"})
    form_token = forms.visitor_token(request) if who.user is None else None
    response = page(
        request,
        "invite.html",
        user=who.user,
        csrf=who.csrf,
        form=form,
        form_token=form_token,
        token=token,
        invite=invite,
        title=invite.game_title,
        game_open=invite.game_id is None or invite.game_status == "waiting",
        mine=who.user is not None and who.user.id == invite.inviter_pk,
        expires=_day(invite.expires),
        status_code=status_code,
    )
    if form_token is not None:
        forms.set_visitor_token(response, form_token, services_of(request).settings.secure_cookies)
    return response


def _refused_link(request: Request, who: Visitor, exc: Refused) -> HTMLResponse:
    heading, message = _REFUSED_LINK.get(exc.code, ("This invite cannot be used", exc.message))
    return page(
        request,
        "invite_gone.html",
        user=who.user,
        csrf=who.csrf,
        heading=heading,
        message=message,
        status_code=404 if exc.code == "invalid_invite" else 410,
    )


def _open_invite(services: Services, token: str) -> invites.InviteView:
    if len(token) > TOKEN_MOST:
        raise Refused("not_found", "invalid_invite", "this invite link is not valid")
    secret = site_secrets.site_secret(services)
    return read(services, lambda conn: invites.open_invite(conn, secret, token))


@router.get("/i/{token}", response_class=HTMLResponse)
async def landing(request: Request, token: str) -> Response:
    """The page an invite link opens."""
    who = await run_in_threadpool(visitor, request)
    try:
        invite = await run_in_threadpool(_open_invite, services_of(request), token)
    except Refused as exc:
        return _refused_link(request, who, exc)
    return _landing(request, who, token, invite)


def _accept(services: Services, token: str, who: Visitor, make_buddies: bool) -> invites.Accepted:
    assert who.user is not None
    user = who.user
    secret = site_secrets.site_secret(services)
    done = write(
        services,
        lambda conn: invites.accept(
            conn,
            services.pool,
            secret,
            token,
            user,
            make_buddies,
            limits_of(services.settings),
        ),
    )
    if done.game is not None:
        notify(services, *done.game)
    return done


def _after(done: invites.Accepted) -> str:
    return f"/games/{done.game_id}" if done.game_id is not None else "/status?invited=1"


async def _accepting(request: Request, who: Visitor, token: str, form: Form) -> Response:
    """Accept as ``who``; the next page: the board or the status page, else the landing
    page with the problem (or the page saying why the link no longer works)."""
    services = services_of(request)
    try:
        done = await run_in_threadpool(_accept, services, token, who, "make_buddies" in form.values)
    except Refused as exc:
        if exc.code in _REFUSED_LINK:
            return _refused_link(request, who, exc)
        form.problem = sentence(exc.message)
        try:
            invite = await run_in_threadpool(_open_invite, services, token)
        except Refused as gone:
            return _refused_link(request, who, gone)
        return _landing(request, who, token, invite, form, exc.status)
    return see(_after(done))


@router.post("/i/{token}/accept", response_class=HTMLResponse)
async def accept(request: Request, token: str) -> Response:
    """A signed-in member accepts the invite."""
    form = await forms.read_form(request)
    who = await run_in_threadpool(visitor, request)
    if who.user is None:
        return see(f"/i/{token}")
    if not member_token_ok(who, form):
        form.problem = EXPIRED
        try:
            invite = await run_in_threadpool(_open_invite, services_of(request), token)
        except Refused as exc:
            return _refused_link(request, who, exc)
        return _landing(request, who, token, invite, form, 422)
    return await _accepting(request, who, token, form)


@router.post("/i/{token}/signup", response_class=HTMLResponse)
async def signup_and_accept(request: Request, token: str) -> Response:
    """A visitor signs up on the landing page and accepts the invite at once."""
    form = await forms.read_form(request, secret=("password",))
    services = services_of(request)
    who = await run_in_threadpool(visitor, request)
    try:
        invite = await run_in_threadpool(_open_invite, services, token)
    except Refused as exc:
        return _refused_link(request, who, exc)
    if who.user is not None:
        return see(f"/i/{token}")
    signed = await sign_up_from(request, form)
    if signed is None:
        return _landing(request, who, token, invite, form, 422)
    member = Visitor(signed.user, signed.csrf_token)
    answer = await _accepting(request, member, token, form)
    set_session_cookie(answer, services.settings, signed.cookie)
    return answer
