"""What every page shares: who is looking, redirects, the 404 page, refusals as sentences."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, TypeVar
from urllib.parse import quote

import anyio.to_thread
from fastapi import Depends, FastAPI, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy import select
from starlette.exceptions import HTTPException as StarletteHTTPException

from dicehall import games
from dicehall.server.core.clock import aware, now
from dicehall.server.core.db import DATABASE_ERRORS
from dicehall.server.core.models import AuthSession, User
from dicehall.server.core.security import SESSION_COOKIE, digest, same
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.moderation.standing import barred
from dicehall.server.domain.people import here
from dicehall.server.domain.services import Services
from dicehall.server.http.accesslog import note_user
from dicehall.server.web import forms
from dicehall.server.web.forms import Form
from dicehall.server.web.render import page

T = TypeVar("T")


def blurbs() -> dict[str, str]:
    """Each installed game's one-sentence blurb, for the cards of the home and new-game pages."""
    return {name: games.get(name).blurb for name in games.available()}


@dataclass(frozen=True)
class Visitor:
    """Who is looking at a page, and the CSRF token their forms and scripts must send."""

    user: User | None
    csrf: str | None


def visitor(request: Request) -> Visitor:
    """The signed-in user and their session's CSRF token (noted as here), or an anonymous
    visitor."""
    services: Services = request.app.state.services
    cookie = request.cookies.get(SESSION_COOKIE)
    if not cookie:
        return Visitor(None, None)
    with services.sessions() as db:
        row = db.scalar(select(AuthSession).where(AuthSession.id == digest(cookie)))
        if row is None or aware(row.expires_at) <= now():
            return Visitor(None, None)
        # Looked up here rather than through the API's checks: a form sends its CSRF token
        # in a field, which the form's handler compares with ``csrf``.
        user = db.get(User, row.user_pk)
        note_user(request, user.user_id if user is not None else None)
    if user is None or barred(user, now()) is not None:
        return Visitor(None, None)
    # A page opened: here (Who is here), at what the page is about.
    here.note_user_soon(services, user, here.activity_of_path(request.url.path))
    return Visitor(user, row.csrf_token)


@dataclass(frozen=True)
class SignedIn(Visitor):
    """A signed-in member looking at a page, and their session's CSRF token."""

    user: User


class LoginRequired(Exception):
    """A member's page was asked for by a visitor: send them to log in, then back."""

    def __init__(self, target: str) -> None:
        super().__init__(target)
        self.target = target


def member(request: Request) -> SignedIn:
    """The signed-in member, or :class:`LoginRequired` (answered with the log-in page)."""
    who = visitor(request)
    if who.user is None:
        raise LoginRequired(
            request.url.path + (f"?{request.url.query}" if request.url.query else "")
        )
    return SignedIn(who.user, who.csrf)


#: A page for members only: visitors are sent to log in and brought back.
Member = Annotated[SignedIn, Depends(member)]


def install_page_not_found(app: FastAPI) -> None:
    """Answer a 404 outside the API and the static files with the site's own page (the
    API's JSON answer is kept for ``/api/`` and ``/static/``)."""
    json_answer = app.exception_handlers[StarletteHTTPException]

    async def not_found_page(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, StarletteHTTPException)
        if exc.status_code != 404 or request.url.path.startswith(("/api/", "/static/")):
            answer = json_answer(request, exc)
            return await answer if inspect.isawaitable(answer) else answer
        who = await anyio.to_thread.run_sync(visitor, request)
        return not_found(request, who, "There is no page at this address.")

    app.add_exception_handler(StarletteHTTPException, not_found_page)


def install_page_unavailable(app: FastAPI) -> None:
    """Answer a dropped database connection under a page with the site's own 503 page (the
    API keeps its JSON answer; the status and Retry-After are the API handler's, which also
    logs it and re-raises any other database error as unexpected)."""
    for kind in DATABASE_ERRORS:
        json_answer = app.exception_handlers[kind]

        async def unavailable_page(
            request: Request, exc: Exception, json_answer: Callable[..., object] = json_answer
        ) -> Response:
            answer = json_answer(request, exc)
            response = await answer if inspect.isawaitable(answer) else answer
            assert isinstance(response, Response)
            if request.url.path.startswith(("/api/", "/static/")):
                return response
            # No visitor here: finding who is looking takes the database.
            html = page(
                request,
                "message.html",
                user=None,
                status_code=response.status_code,
                heading="Back in a moment",
                message="The site cannot reach its database just now. "
                "Please try again in a few seconds.",
            )
            html.headers["Retry-After"] = response.headers["Retry-After"]
            return html

        app.add_exception_handler(kind, unavailable_page)


def install_login_redirect(app: FastAPI) -> None:
    """Answer :class:`LoginRequired` with a redirect to the log-in page."""

    async def to_login_page(_request: Request, exc: Exception) -> Response:
        assert isinstance(exc, LoginRequired)
        return RedirectResponse(f"/login?next={quote(exc.target)}", status_code=303)

    app.add_exception_handler(LoginRequired, to_login_page)


def services_of(request: Request) -> Services:
    services: Services = request.app.state.services
    return services


def see(path: str) -> RedirectResponse:
    return RedirectResponse(path, status_code=303)


def member_token_ok(who: Visitor, form: Form) -> bool:
    sent = form.get(forms.CSRF_FIELD)
    return who.csrf is not None and bool(sent) and same(sent, who.csrf)


EXPIRED = "This form had expired or came from elsewhere; please check it and send it again."


def not_found(request: Request, who: Visitor, message: str) -> HTMLResponse:
    return page(
        request,
        "message.html",
        user=who.user,
        csrf=who.csrf,
        status_code=404,
        heading="Not found",
        message=message,
    )


def report(form: Form, exc: Refused, fields: Mapping[str, str]) -> None:
    """Put the service's refusal next to its field (by error code), else above the form."""
    field = fields.get(exc.code)
    if field:
        form.error(field, sentence(exc.message))
    else:
        form.problem = sentence(exc.message)


def held_up(response: Response, exc: Refused | None) -> Response:
    """``response`` (a form shown again with ``exc``'s sentence) answered 429 with
    ``Retry-After`` when ``exc`` is a rate limit's refusal, as the API answers it."""
    wait = None if exc is None else exc.extra.get("retry_after")
    if exc is not None and exc.kind == "too_many" and wait is not None:
        response.status_code = 429
        response.headers["Retry-After"] = str(wait)
    return response


def sentence(message: str) -> str:
    text = message.strip()
    if not text:
        return text
    return text[0].upper() + text[1:] + ("" if text.endswith((".", "?", "!")) else ".")
