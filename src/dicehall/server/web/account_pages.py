"""Account pages: sign up, log in and out, profile, password."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from starlette.concurrency import run_in_threadpool

from dicehall.server.core.security import SESSION_COOKIE, digest
from dicehall.server.domain import account_checks, accounts, login_guard
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.notices.zones import known_zones
from dicehall.server.domain.people import settings
from dicehall.server.domain.services import Services
from dicehall.server.http.session_cookie import (
    DEVICE_COOKIE,
    clear_session_cookie,
    set_device_cookie,
    set_session_cookie,
)
from dicehall.server.infra.push import session_credential, token_credential
from dicehall.server.web import forms, vacation_pages
from dicehall.server.web.common import (
    EXPIRED,
    Member,
    held_up,
    member_token_ok,
    report,
    see,
    sentence,
    services_of,
    visitor,
)
from dicehall.server.web.forms import Form
from dicehall.server.web.render import page

router = APIRouter(include_in_schema=False)


def _visitor_form(
    request: Request, template: str, form: Form, status_code: int = 200, **context: Any
) -> HTMLResponse:
    services = services_of(request)
    token = forms.visitor_token(request)
    response = page(
        request,
        template,
        user=None,
        form=form,
        form_token=token,
        status_code=status_code,
        **context,
    )
    forms.set_visitor_token(response, token, services.settings.secure_cookies)
    return response


def _limited(request: Request, kind: str, user_id: str, *, own: bool = False) -> str | None:
    address = request.client.host if request.client else "unknown"
    wait = accounts.count_attempt(services_of(request), kind, address, user_id, own=own)
    return None if wait is None else f"Too many attempts; please try again in {wait} seconds."


_SIGNUP_FIELDS = {
    "invalid_user_id": "user_id",
    "user_id_taken": "user_id",
    "invalid_password": "password",
    "invalid_display_name": "display_name",
}


@router.get("/signup", response_class=HTMLResponse)
def signup_form(request: Request, next: str | None = None) -> Response:
    """The sign-up form."""
    if visitor(request).user is not None:
        return see("/status")
    return _visitor_form(request, "signup.html", Form({"next": forms.safe_next(next)}))


def _credentials(
    request: Request, form: Form, *, missing_id: str, missing_password: str
) -> tuple[str, str]:
    """The user id and password a visitor's form sent, with its token and blanks checked."""
    user_id = form.get("user_id").strip()
    password = form.get("password")
    if not forms.visitor_token_ok(request, form):
        form.problem = EXPIRED
    elif not user_id:
        form.error("user_id", missing_id)
    if not password:
        form.error("password", missing_password)
    return user_id, password


def _signed_in(form: Form, services: Services, cookie: str) -> Response:
    """On to where the form was going, with the new session's cookie."""
    response = see(forms.safe_next(form.get("next")))
    set_session_cookie(response, services.settings, cookie)
    return response


@router.post("/signup", response_class=HTMLResponse)
async def signup(request: Request) -> Response:
    """Create an account from the form and sign in."""
    form = await forms.read_form(request, secret=("password", "password_again"))
    signed = await sign_up_from(request, form)
    if signed is not None:
        services = services_of(request)
        response = _signed_in(form, services, signed.cookie)
        proof = await run_in_threadpool(login_guard.device_proof, services, signed.user.key)
        set_device_cookie(response, services.settings, proof)  # the owner's first browser
        return response
    return _visitor_form(request, "signup.html", form, status_code=422)


async def sign_up_from(request: Request, form: Form) -> accounts.SignedIn | None:
    """Create the account a visitor's sign-up form asks for (checked, rate limited); None
    with what is wrong marked on ``form``. The caller sets the new session's cookie."""
    display = form.get("display_name").strip()
    user_id, password = _credentials(
        request, form, missing_id="choose a user id", missing_password="choose a password"
    )
    if form.ok:
        _check_signup(form, user_id, password, display)
    # A form without the repeat field (a script's) is taken as it is; the page's form has it.
    if password and "password_again" in form.values and form.get("password_again") != password:
        form.error("password_again", "The two passwords differ; type the same one twice.")
    if form.ok:
        form.problem = _limited(request, "signup", user_id)
    if not form.ok:
        return None
    services = services_of(request)
    try:
        signed = await run_in_threadpool(
            accounts.sign_up,
            services,
            user_id,
            password,
            display or None,
            request.cookies.get(SESSION_COOKIE),
        )
    except Refused as exc:
        report(form, exc, _SIGNUP_FIELDS)
        return None
    zone = form.get("time_zone").strip()
    if zone in known_zones():  # the browser's guess; an unknown one leaves UTC
        await run_in_threadpool(_set_time_zone, services, signed.user.id, zone)
    return signed


def _set_time_zone(services: Services, user_pk: int, zone: str) -> None:
    with services.write_conn() as conn:
        settings.change(conn, user_pk, {"time_zone": zone})


def _check_signup(form: Form, user_id: str, password: str, display: str) -> None:
    """Every broken rule at once (the accounts service stops at the first)."""
    checks: list[tuple[str, Callable[[], object]]] = [
        ("user_id", lambda: account_checks.check_user_id(user_id)),
        ("password", lambda: account_checks.check_password(password, user_id)),
    ]
    if display:
        checks.append(("display_name", lambda: account_checks.check_display_name(display)))
    for field, check in checks:
        try:
            check()
        except Refused as exc:
            form.error(field, sentence(exc.message))


@router.get("/login", response_class=HTMLResponse)
def login_form(request: Request, next: str | None = None) -> Response:
    """The log-in form."""
    if visitor(request).user is not None:
        return see(forms.safe_next(next))
    return _visitor_form(request, "login.html", Form({"next": forms.safe_next(next)}))


@router.post("/login", response_class=HTMLResponse)
async def login(request: Request) -> Response:
    """Sign in from the form."""
    form = await forms.read_form(request, secret=("password",))
    services = services_of(request)
    user_id, password = _credentials(
        request, form, missing_id="Type your user id.", missing_password="Type your password."
    )
    if form.ok:
        address = request.client.host if request.client else "unknown"
        try:
            done = await run_in_threadpool(
                login_guard.log_in,
                services,
                address,
                user_id,
                password,
                request.cookies.get(SESSION_COOKIE),
                request.cookies.get(DEVICE_COOKIE),
            )
        except Refused as exc:
            if exc.code == "wrong_login":
                form.error("password", "Wrong user id or password.")
            else:
                form.problem = sentence(exc.message)
        else:
            response = _signed_in(form, services, done.signed.cookie)
            set_device_cookie(response, services.settings, done.device)
            return response
    return _visitor_form(request, "login.html", form, status_code=422)


@router.post("/logout", response_class=HTMLResponse)
async def logout(request: Request) -> Response:
    """End this browser's session."""
    form = await forms.read_form(request)
    who = visitor(request)
    services = services_of(request)
    if who.user is None:
        gone = see("/")
        clear_session_cookie(gone, services.settings)  # an ended session's cookie, if any
        return gone
    if not member_token_ok(who, form):
        return page(
            request,
            "message.html",
            user=who.user,
            csrf=who.csrf,
            status_code=403,
            heading="Log out",
            message="That log-out form had expired; use the Log out button above again.",
        )
    cookie = request.cookies.get(SESSION_COOKIE, "")
    await run_in_threadpool(accounts.log_out, services, digest(cookie))
    services.broker.end_credentials(who.user.id, [session_credential(digest(cookie))], "signed out")
    response = see("/?signed_out=1")
    clear_session_cookie(response, services.settings)
    return response


@router.get("/profile", response_class=HTMLResponse)
async def profile_form(
    request: Request, who: Member, saved: int = 0, away: int = 0, back: int = 0
) -> Response:
    """My profile, with the form to edit it, and my vacation."""
    form = Form({"display_name": who.user.display_name, "about": who.user.about})
    done = "away" if away else "back" if back else None
    return page(
        request,
        "profile.html",
        user=who.user,
        csrf=who.csrf,
        form=form,
        saved=bool(saved),
        vacation_done=done,
        **await vacation_pages.vacation_context(request, who.user),
    )


_PROFILE_FIELDS = {"invalid_display_name": "display_name", "invalid_about": "about"}


@router.post("/profile", response_class=HTMLResponse)
async def profile_edit(request: Request, who: Member) -> Response:
    """Save my display name and about text."""
    form = await forms.read_form(request)
    for field, check in (
        ("display_name", account_checks.check_display_name),
        ("about", account_checks.check_about),
    ):
        try:
            check(form.get(field))
        except Refused as exc:
            form.error(field, sentence(exc.message))
    refused: Refused | None = None
    if not member_token_ok(who, form):
        form.problem = EXPIRED
    elif form.ok:
        try:
            await run_in_threadpool(
                accounts.update_profile,
                services_of(request),
                who.user,
                form.get("display_name"),
                form.get("about").replace("\r\n", "\n"),
            )
        except Refused as exc:
            report(form, exc, _PROFILE_FIELDS)
            refused = exc
        else:
            return see("/profile?saved=1")
    vacation_ = await vacation_pages.vacation_context(request, who.user)
    shown = page(
        request,
        "profile.html",
        user=who.user,
        csrf=who.csrf,
        form=form,
        status_code=422,
        **vacation_,
    )
    return held_up(shown, refused)


@router.get("/password", response_class=HTMLResponse)
def password_form(request: Request, who: Member) -> Response:
    """The change-password form."""
    return page(request, "password.html", user=who.user, csrf=who.csrf, form=Form())


@router.post("/password", response_class=HTMLResponse)
async def password_change(request: Request, who: Member) -> Response:
    """Change my password; my other browser sessions end."""
    secret = ("old_password", "new_password", "confirm_password")
    form = await forms.read_form(request, secret=secret)
    old, new, again = (form.get(name) for name in secret)
    if not member_token_ok(who, form):
        form.problem = EXPIRED
    if not old:
        form.error("old_password", "Type your current password.")
    if not new:
        form.error("new_password", "Choose a new password.")
    elif new != again:
        form.error("confirm_password", "The two new passwords differ; type the same one twice.")
    if form.ok:
        form.problem = _limited(request, "password", who.user.user_id, own=True)
    done: str | None = None
    if form.ok:
        keep = digest(request.cookies.get(SESSION_COOKIE, ""))
        services = services_of(request)
        keep_tokens = form.get("keep_tokens") == "on"
        try:
            changed = await run_in_threadpool(
                accounts.change_password, services, who.user, keep, old, new, keep_tokens
            )
        except Refused as exc:
            if exc.code == "wrong_password":
                form.error("old_password", "That is not your current password.")
            else:
                report(form, exc, {"invalid_password": "new_password"})
        else:
            broker = services.broker
            broker.end_sessions_except(who.user.id, keep, "the password was changed")
            if changed.token_hashes:
                credentials = [token_credential(h) for h in changed.token_hashes]
                broker.end_credentials(who.user.id, credentials, "the password was changed")
            done = sentence(changed.words())
    form.values = {}  # passwords are never shown again
    return page(
        request,
        "password.html",
        user=who.user,
        csrf=who.csrf,
        form=form,
        done=done,
        status_code=200 if done else 422,
    )
