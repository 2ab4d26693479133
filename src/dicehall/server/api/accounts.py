"""Accounts API: sign up, log in, log out, the session, password and profiles (API tokens:
:mod:`.tokens`).

Browsers sign in with a session cookie (HttpOnly, SameSite=Lax) and send the session's CSRF
token in ``X-CSRF-Token`` with every write; programs send ``Authorization: Bearer TOKEN``
and need no CSRF token; API tokens are made, and the password changed, only from a browser.
Log-in and sign-up are rate limited per client address and per address and user id (429
with ``Retry-After``); log-in also per user id, by a growing delay that spares the browsers
that logged in to it before (``domain.login_guard``).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request, Response, status
from fastapi.responses import JSONResponse
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictBool
from sqlalchemy.orm import Session

from dicehall.server.api.deps import CurrentUser, DbDep, OptionalUser, ServicesDep, authenticate
from dicehall.server.api.errors import ApiError
from dicehall.server.api.people_schemas import FullProfile
from dicehall.server.api.rules import (
    USER_ID,
    Rule,
    email_address,
    some_of,
    stripped_line,
    stripped_text,
)
from dicehall.server.api.schemas import (
    MyProfile,
    PasswordChanged,
    SignedIn,
    SignedOut,
    errors,
)
from dicehall.server.core.models import AuthSession, User
from dicehall.server.core.security import SESSION_COOKIE
from dicehall.server.domain import accounts, login_guard, reliability
from dicehall.server.domain.account_checks import (
    ABOUT_MAX,
    DISPLAY_NAME_MAX,
    PASSWORD_MAX,
    PASSWORD_MIN,
)
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.notices import account_mail
from dicehall.server.domain.people.profile import profile_extras
from dicehall.server.domain.ratings.views import profile_ratings
from dicehall.server.domain.services import Services
from dicehall.server.http.session_cookie import (
    DEVICE_COOKIE,
    clear_session_cookie,
    set_device_cookie,
    set_session_cookie,
)
from dicehall.server.infra.push import session_credential, token_credential

router = APIRouter(prefix="/api/v1", tags=["accounts"])


def _unicode(text: str) -> str:
    # JSON may carry lone surrogates ("\ud800"); they cannot be hashed or stored.
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("text must be valid Unicode (it has a lone surrogate)") from None
    return text


Text = Annotated[str, AfterValidator(_unicode)]
#: The rules sign-up and the profile check (with their own codes), stated in the schema.
UserIdText = Annotated[Text, USER_ID]
PasswordText = Annotated[Text, Rule(minLength=PASSWORD_MIN, maxLength=PASSWORD_MAX)]
DisplayName = Annotated[Text, Rule(pattern=stripped_line(DISPLAY_NAME_MAX))]
EmailOrBlank = Annotated[Text, email_address(blank=True)]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SignUp(_Body):
    """A new account: user id, password and an optional display name (the user id if left out)."""

    user_id: UserIdText
    password: PasswordText
    display_name: DisplayName | None = None


class LogIn(_Body):
    """Credentials for log-in."""

    user_id: Text
    password: Text


class PasswordChange(_Body):
    """The current password and the new one; every API token ends too, unless kept."""

    old_password: Text
    new_password: PasswordText
    keep_tokens: StrictBool = Field(
        False, description="Keep my API tokens valid (by default the change ends them all)."
    )


class ProfileEdit(_Body):
    """The profile fields to change; those left out (or null) stay as they are."""

    model_config = ConfigDict(
        extra="forbid", json_schema_extra=some_of("display_name", "about", "email")
    )

    display_name: DisplayName | None = None
    about: Annotated[Text, Rule(pattern=stripped_text(ABOUT_MAX))] | None = None
    email: EmailOrBlank | None = Field(
        None,
        description='My e-mail address; a link to prove it is mailed to it. "" removes it.',
    )


def _address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def _over_limit(
    request: Request, services: Services, kind: str, user_id: str, *, own: bool = False
) -> JSONResponse | None:
    """Count an attempt; the 429 answer when this address, or this address trying this user
    id, is over the limit. ``own``: the user is signed in, so the user id alone counts too
    (nobody else can spend that count)."""
    wait = accounts.count_attempt(services, kind, _address(request), user_id, own=own)
    if wait is None:
        return None
    return JSONResponse(
        {
            "error": f"too many attempts; try again in {wait} seconds",
            "code": "rate_limited",
            "retry_after": wait,
        },
        status_code=status.HTTP_429_TOO_MANY_REQUESTS,
        headers={"Retry-After": str(wait)},
    )


def _ended(exc: Refused, services: Services) -> JSONResponse:
    """The 401 for an ended session, also telling the browser to drop the dead cookie."""
    answer = JSONResponse({"error": exc.message, "code": exc.code}, status_code=exc.status)
    clear_session_cookie(answer, services.settings)
    return answer


def _signed_in(request: Request, db: DbDep) -> tuple[User, AuthSession | None]:
    found = authenticate(request, db)
    if found is None:
        raise ApiError(401, "unauthenticated", "sign in first (session cookie or bearer token)")
    return found


SignedInDep = Annotated[tuple[User, AuthSession | None], Depends(_signed_in)]


def _signed_in_payload(signed: accounts.SignedIn) -> dict[str, Any]:
    return {"user": accounts.user_payload(signed.user), "csrf_token": signed.csrf_token}


@router.post(
    "/auth/signup",
    status_code=status.HTTP_201_CREATED,
    operation_id="auth-signup",
    response_model=SignedIn,
    responses=errors(400, 409, 422, 429, 503),
)
def signup(
    body: SignUp, request: Request, response: Response, services: ServicesDep
) -> dict[str, Any] | JSONResponse:
    """Create an account and sign in: the session cookie is set, the CSRF token returned."""
    limited = _over_limit(request, services, "signup", body.user_id)
    if limited is not None:
        return limited
    signed = accounts.sign_up(
        services,
        body.user_id,
        body.password,
        body.display_name,
        request.cookies.get(SESSION_COOKIE),
    )
    set_session_cookie(response, services.settings, signed.cookie)
    # The browser that made the account is its owner's: spared the per-user-id delay.
    proof = login_guard.device_proof(services, signed.user.key)
    set_device_cookie(response, services.settings, proof)
    return _signed_in_payload(signed)


@router.post(
    "/auth/login",
    operation_id="auth-login",
    response_model=SignedIn,
    responses=errors(400, 401, 422, 429, 503),
)
def login(
    body: LogIn, request: Request, response: Response, services: ServicesDep
) -> dict[str, Any] | JSONResponse:
    """Sign in: the session cookie is set, the CSRF token returned; one 401 for any mistake.
    Held up per client and per user id (429 ``rate_limited``); a browser keeps a device
    proof (cookie ``dicehall_device``) that spares it the per-user-id delay."""
    done = login_guard.log_in(
        services,
        _address(request),
        body.user_id,
        body.password,
        request.cookies.get(SESSION_COOKIE),
        request.cookies.get(DEVICE_COOKIE),
    )
    set_session_cookie(response, services.settings, done.signed.cookie)
    set_device_cookie(response, services.settings, done.device)
    return _signed_in_payload(done.signed)


def _browser_session(
    request: Request, db: Session, services: Services
) -> tuple[User, AuthSession | None] | JSONResponse:
    """Who is signed in; for an expired session, the 401 answer that also clears the cookie."""
    try:
        found = authenticate(request, db)
    except Refused as exc:
        if exc.code != "session_expired":
            raise
        return _ended(exc, services)
    if found is None:
        raise ApiError(401, "unauthenticated", "you are not signed in")
    return found


@router.post(
    "/auth/logout",
    operation_id="auth-logout",
    response_model=SignedOut,
    responses=errors(400, 401, 403, 503),
)
def logout(
    request: Request, response: Response, db: DbDep, services: ServicesDep
) -> dict[str, Any] | JSONResponse:
    """End this browser session and clear its cookie (needs the CSRF token)."""
    found = _browser_session(request, db, services)
    if isinstance(found, JSONResponse):
        return found
    _user, session = found
    if session is None:
        raise ApiError(
            400,
            "not_a_session",
            "log out ends a browser session; to stop an API token, revoke it with "
            "DELETE /api/v1/tokens/{id}",
        )
    accounts.log_out(services, session.id)
    services.broker.end_credentials(_user.id, [session_credential(session.id)], "signed out")
    clear_session_cookie(response, services.settings)
    return {"signed_out": True, "message": "you are signed out"}


@router.get(
    "/auth/session", operation_id="auth-session", response_model=SignedIn, responses=errors(401)
)
def current_session(
    request: Request, db: DbDep, services: ServicesDep
) -> dict[str, Any] | JSONResponse:
    """The signed-in browser's user and CSRF token; 401 for visitors and ended sessions."""
    found = _browser_session(request, db, services)
    if isinstance(found, JSONResponse):
        return found
    user, session = found
    if session is None:
        raise ApiError(
            401,
            "not_a_session",
            "this is an API token, not a browser session; API tokens need no CSRF token",
        )
    return {"user": accounts.user_payload(user), "csrf_token": session.csrf_token}


@router.post(
    "/auth/password",
    operation_id="auth-password",
    response_model=PasswordChanged,
    responses=errors(400, 401, 403, 409, 422, 429, 503),
)
def change_password(
    body: PasswordChange, request: Request, signed_in: SignedInDep, services: ServicesDep
) -> dict[str, Any] | JSONResponse:
    """Change the password from a signed-in browser (403 ``not_a_session`` with an API
    token); every other session of the user ends, and every API token unless
    ``keep_tokens``."""
    user, session = browser_only(signed_in, "the password is changed")
    # The old password is a guess like a log-in's, so a stolen session cannot brute-force it.
    limited = _over_limit(request, services, "password", user.user_id, own=True)
    if limited is not None:
        return limited
    done = accounts.change_password(
        services, user, session.id, body.old_password, body.new_password, body.keep_tokens
    )
    services.broker.end_sessions_except(user.id, session.id, "the password was changed")
    if done.token_hashes:
        credentials = [token_credential(h) for h in done.token_hashes]
        services.broker.end_credentials(user.id, credentials, "the password was changed")
    return {
        "user": accounts.user_payload(user),
        "ended_sessions": done.sessions,
        "ended_tokens": len(done.token_hashes),
        "message": done.words(),
    }


def browser_only(signed_in: tuple[User, AuthSession | None], what: str) -> tuple[User, AuthSession]:
    """The user and their browser session; 403 ``not_a_session`` for an API token: a
    token, once leaked, must not be able to make more of itself or take the account."""
    user, session = signed_in
    if session is None:
        raise ApiError(
            403,
            "not_a_session",
            f"{what} from a signed-in browser (session cookie and CSRF token), "
            "not with an API token",
        )
    return user, session


@router.get("/users/me", operation_id="users-me", response_model=MyProfile, responses=errors(401))
def my_profile(user: CurrentUser) -> dict[str, Any]:
    """My profile, with my e-mail address and whether it is verified."""
    return accounts.my_payload(user)


@router.patch(
    "/users/me",
    operation_id="users-me-update",
    response_model=MyProfile,
    responses=errors(400, 401, 403, 422, 429, 503),
)
def edit_profile(
    body: ProfileEdit, request: Request, user: CurrentUser, services: ServicesDep
) -> dict[str, Any] | JSONResponse:
    """Change my display name, about text and/or e-mail address. A new address is mailed a
    link (opening it verifies the address); until then ``email_verified`` is false. The
    address changes only from a signed-in browser (403 ``not_a_session`` with an API token).
    A malformed address: 422 ``invalid_email``, and nothing changes; setting addresses is rate
    limited like log-ins, and so are changes of the name and about text (429
    ``rate_limited``)."""
    if body.display_name is None and body.about is None and body.email is None:
        raise ApiError(422, "nothing_to_change", "send display_name, about and/or email to change")
    if body.email is not None:
        # The address is where a password reset goes: a leaked token must not redirect it.
        with services.sessions() as db:
            browser_only(_signed_in(request, db), "the e-mail address is changed")
    if body.email:
        account_mail.check_email(body.email)  # refused before anything else is stored
        # Each new address is mailed a link: counted, so no account floods an inbox.
        limited = _over_limit(request, services, "email", user.user_id, own=True)
        if limited is not None:
            return limited
    updated = user
    if body.display_name is not None or body.about is not None:
        updated = accounts.update_profile(services, user, body.display_name, body.about)
    if body.email is not None:
        account_mail.set_email(services, user.id, body.email)
        updated = accounts.reloaded(services, user)
    return accounts.my_payload(updated)


@router.get(
    "/users/{user_id}",
    operation_id="users-get",
    response_model=FullProfile,
    responses=errors(404, 422),
)
def profile(user_id: str, db: DbDep, viewer: OptionalUser) -> dict[str, Any]:
    """Anyone's public profile, by user id (any case), with their reliability (games
    finished, timeouts, the median time they take over a turn), the day they were last
    here and their current public games; a signed-in viewer also gets their head-to-head
    record against them and what they said about them (buddy or ignore, and a note); and
    their ratings, of the kinds they chose to show."""
    user = accounts.find_user(db, user_id)
    conn = db.connection()
    shown = reliability.reliability(conn, user.id)
    extras = profile_extras(conn, user.id, None if viewer is None else viewer.id)
    ratings = profile_ratings(conn, user.id)
    return {**accounts.user_payload(user), "reliability": shown, **extras, "ratings": ratings}


__all__ = ["router"]
