"""The pages the account's mails link to: ask for a password reset, set a new password with
the mailed link, prove an e-mail address, and turn one kind of notice e-mail off.

The reset forms are a visitor's (a double-submit token, like sign-up and log-in). The
unsubscribe link's POST takes no session and no form token: mail clients post
``List-Unsubscribe=One-Click`` to it (RFC 8058), and its signed token is the only credential.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from starlette.concurrency import run_in_threadpool

from dicehall.server.core.models import User
from dicehall.server.domain import accounts
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.notices import account_mail, links
from dicehall.server.domain.notices.kinds import KIND_LABELS, NoticeKind
from dicehall.server.domain.people import settings
from dicehall.server.domain.services import Services
from dicehall.server.domain.site_secrets import site_secret
from dicehall.server.http.session_cookie import clear_session_cookie
from dicehall.server.infra.push import token_credential
from dicehall.server.web import forms
from dicehall.server.web.common import EXPIRED, Visitor, sentence, services_of, visitor
from dicehall.server.web.forms import Form
from dicehall.server.web.render import page

router = APIRouter(include_in_schema=False)

#: A token longer than this is no link of the site's (refused before it is checked).
TOKEN_MOST = 600
#: How each refused link is explained: a heading and the status of the page.
_LINK_PROBLEMS = {
    "invalid_link": ("This link does not work", 404),
    "link_expired": ("This link has expired", 410),
    "link_used": ("This link was used already", 410),
    "email_changed": ("This address is no longer the account's", 409),
}


def _visitor_page(
    request: Request,
    who: Visitor,
    template: str,
    form: Form,
    status_code: int = 200,
    **context: Any,
) -> HTMLResponse:
    """A page with a visitor's form (its double-submit token set in a cookie)."""
    token = forms.visitor_token(request)
    response = page(
        request,
        template,
        user=who.user,
        csrf=who.csrf,
        form=form,
        form_token=token,
        status_code=status_code,
        **context,
    )
    forms.set_visitor_token(response, token, services_of(request).settings.secure_cookies)
    return response


def _link_problem(
    request: Request, who: Visitor, exc: Refused, again: tuple[str, str]
) -> HTMLResponse:
    """A refused link explained, with where to ask for a new one (``again``: path, words)."""
    heading, status = _LINK_PROBLEMS.get(exc.code, ("This link does not work", 422))
    return page(
        request,
        "account_link.html",
        user=who.user,
        csrf=who.csrf,
        status_code=status,
        heading=heading,
        message=sentence(exc.message),
        link=again,
    )


def _limited(request: Request, kind: str, key: str) -> str | None:
    address = request.client.host if request.client else "unknown"
    wait = accounts.count_attempt(services_of(request), kind, address, key)
    return None if wait is None else f"Too many attempts; please try again in {wait} seconds."


# -- forgotten password --------------------------------------------------------------------

_ASK_AGAIN = ("/forgot-password", "Ask for a new link")


@router.get("/forgot-password", response_class=HTMLResponse)
async def forgot_form(request: Request) -> Response:
    """The form asking for the account's e-mail address."""
    who = await run_in_threadpool(visitor, request)
    return _visitor_page(request, who, "forgot_password.html", Form())


@router.post("/forgot-password", response_class=HTMLResponse)
async def forgot(request: Request) -> Response:
    """Mail a reset link to the accounts whose verified address this is; the answer is the
    same whether or not there is one."""
    form = await forms.read_form(request)
    who = await run_in_threadpool(visitor, request)
    address = form.get("email").strip()
    if not forms.visitor_token_ok(request, form):
        form.problem = EXPIRED
    if not address:
        form.error("email", "Type the e-mail address of your account.")
    else:
        try:
            address = account_mail.check_email(address)
        except Refused as exc:
            form.error("email", sentence(exc.message))
    if form.ok:
        form.problem = await run_in_threadpool(_limited, request, "reset", address)
    if not form.ok:
        return _visitor_page(request, who, "forgot_password.html", form, status_code=422)
    await run_in_threadpool(account_mail.request_reset, services_of(request), address)
    minutes = int(links.RESET_LIFETIME.total_seconds() // 60)
    return page(
        request,
        "forgot_password.html",
        user=who.user,
        csrf=who.csrf,
        form=form,
        sent=address,
        minutes=minutes,
    )


# -- a new password through the mailed link ------------------------------------------------


def _check_reset_link(services: Services, token: str) -> None:
    """Refused as the confirmation would be: a forged, expired or used link."""
    if len(token) > TOKEN_MOST:
        raise Refused("invalid", "invalid_link", "this password reset link is not valid")
    user_pk, fingerprint = links.reset_target(site_secret(services), token)
    with services.sessions() as db:
        user = db.get(User, user_pk)
        current = None if user is None else links.password_fingerprint(user.password_hash)
    if current != fingerprint:
        raise Refused(
            "invalid",
            "link_used",
            "this password reset link has been used already (or the password was changed "
            "since); ask for a new one",
        )


@router.get("/reset-password/{token}", response_class=HTMLResponse)
async def reset_form(request: Request, token: str) -> Response:
    """The form for a new password (or why the link no longer works)."""
    who = await run_in_threadpool(visitor, request)
    try:
        await run_in_threadpool(_check_reset_link, services_of(request), token)
    except Refused as exc:
        return _link_problem(request, who, exc, _ASK_AGAIN)
    return _visitor_page(request, who, "reset_password.html", Form(), token=token)


@router.post("/reset-password/{token}", response_class=HTMLResponse)
async def reset(request: Request, token: str) -> Response:
    """Set the new password; every session of the account ends, and every API token unless
    "Keep my API tokens" is ticked."""
    secret = ("password", "password_again")
    form = await forms.read_form(request, secret=secret)
    who = await run_in_threadpool(visitor, request)
    services = services_of(request)
    password, again = (form.get(name) for name in secret)
    if not forms.visitor_token_ok(request, form):
        form.problem = EXPIRED
    if not password:
        form.error("password", "Choose a new password.")
    elif password != again:
        form.error("password_again", "The two passwords differ; type the same one twice.")
    if form.ok:
        form.problem = await run_in_threadpool(_limited, request, "reset-confirm", "-")
    if form.ok:
        try:
            keep = form.get("keep_tokens") == "on"
            done = await run_in_threadpool(
                account_mail.confirm_reset, services, token, password, keep
            )
        except Refused as exc:
            if exc.code == "invalid_password":
                form.error("password", sentence(exc.message))
            else:
                return _link_problem(request, who, exc, _ASK_AGAIN)
        else:
            _end_connections(services, done)
            answer = page(request, "reset_password.html", user=None, form=Form(), done=done)
            if who.user is not None and who.user.id == done.user_pk:
                clear_session_cookie(answer, services.settings)  # its session has ended
            return answer
    form.values = {"csrf_token": form.get("csrf_token")}  # passwords are never shown again
    return _visitor_page(request, who, "reset_password.html", form, status_code=422, token=token)


def _end_connections(services: Services, done: account_mail.Reset) -> None:
    """Close the live sockets of the sessions and tokens the reset ended."""
    broker = services.broker
    broker.end_sessions_except(done.user_pk, None, "the password was reset")
    if done.token_hashes:
        credentials = [token_credential(h) for h in done.token_hashes]
        broker.end_credentials(done.user_pk, credentials, "the password was reset")


# -- proving an address --------------------------------------------------------------------


def _verify(services: Services, token: str) -> str:
    if len(token) > TOKEN_MOST:
        raise Refused("invalid", "invalid_link", "this verification link is not valid")
    return account_mail.verify(services, token)


@router.get("/verify-email/{token}", response_class=HTMLResponse)
async def verify_email(request: Request, token: str) -> Response:
    """Opening the mailed link proves the address."""
    services = services_of(request)
    try:
        user_id = await run_in_threadpool(_verify, services, token)
    except Refused as exc:
        who = await run_in_threadpool(visitor, request)
        return _link_problem(
            request, who, exc, ("/settings#notices", "Send a new link from your settings")
        )
    who = await run_in_threadpool(visitor, request)  # after: the page shows it verified
    return page(
        request,
        "account_link.html",
        user=who.user,
        csrf=who.csrf,
        heading="Your e-mail address is verified",
        message=f"The address of {user_id} is verified: the notices you choose are mailed "
        "to it, and a forgotten password can be reset through it.",
        link=("/settings#notices", "Choose which notices are mailed"),
    )


# -- one kind of e-mail off ----------------------------------------------------------------


def _unsubscribe_target(services: Services, token: str) -> tuple[int, list[NoticeKind]]:
    if len(token) > TOKEN_MOST:
        raise Refused("invalid", "invalid_link", "this unsubscribe link is not valid")
    return links.unsubscribe_target(site_secret(services), token)


def _mailed(services: Services, user_pk: int, kinds: list[NoticeKind]) -> tuple[str, bool]:
    """The account's user id, and whether any of ``kinds`` is still mailed to it."""
    with services.sessions() as db:
        user = db.get(User, user_pk)
        if user is None:
            raise Refused("invalid", "invalid_link", "this unsubscribe link is not valid")
        mailed = settings.parse(user.settings).email_kinds
        return user.user_id, any(kind in mailed for kind in kinds)


def _turn_off(services: Services, user_pk: int, kinds: list[NoticeKind]) -> str:
    """Stop mailing ``kinds`` to ``user_pk``; the account's user id."""
    user_id, _ = _mailed(services, user_pk, kinds)
    with services.write_conn() as conn:
        kept = [k for k in settings.of(conn, user_pk).email_kinds if k not in kinds]
        settings.change(conn, user_pk, {"email_kinds": kept})
    return user_id


def _labels(kinds: list[NoticeKind]) -> str:
    """ "Your turn", "Your turn and invitations", "Your turn, invitations and messages"."""
    names = [KIND_LABELS[kind] for kind in kinds]
    names[1:] = [name.lower() for name in names[1:]]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


@router.get("/unsubscribe/{token}", response_class=HTMLResponse)
async def unsubscribe_form(request: Request, token: str) -> Response:
    """What the link turns off, with the button that does it."""
    return await _unsubscribe_page(request, token, turn_off=False)


@router.post("/unsubscribe/{token}", response_class=HTMLResponse)
async def unsubscribe(request: Request, token: str) -> Response:
    """Turn the link's kind of e-mail off (the body is not read: a one-click POST sends
    ``List-Unsubscribe=One-Click``, a person the page's button)."""
    return await _unsubscribe_page(request, token, turn_off=True)


async def _unsubscribe_page(request: Request, token: str, *, turn_off: bool) -> Response:
    services = services_of(request)
    who = await run_in_threadpool(visitor, request)
    try:
        user_pk, kinds = await run_in_threadpool(_unsubscribe_target, services, token)
        if turn_off:
            user_id, mailed = await run_in_threadpool(_turn_off, services, user_pk, kinds), False
        else:
            user_id, mailed = await run_in_threadpool(_mailed, services, user_pk, kinds)
    except Refused as exc:
        return _link_problem(request, who, exc, ("/settings#notices", "Your notice settings"))
    return page(
        request,
        "unsubscribe.html",
        user=who.user,
        csrf=who.csrf,
        token=token,
        label=_labels(kinds),
        account=user_id,
        mailed=mailed,
        done=turn_off,
    )


__all__ = ["router"]
