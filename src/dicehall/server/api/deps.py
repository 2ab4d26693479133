"""Request dependencies: the services, a database session, and who is asking."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any

from fastapi import Depends, Request
from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session
from starlette.requests import HTTPConnection

from dicehall.server.api.errors import ApiError
from dicehall.server.core.clock import aware, now
from dicehall.server.core.models import ApiToken, AuthSession, User
from dicehall.server.core.security import CSRF_HEADER, SESSION_COOKIE, digest, same
from dicehall.server.domain import auth_cache
from dicehall.server.domain.auth_cache import AuthCache
from dicehall.server.domain.moderation.standing import barred
from dicehall.server.domain.people import here
from dicehall.server.domain.services import Services
from dicehall.server.domain.work import run_db
from dicehall.server.http.accesslog import note_user

_SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}


async def get_services(request: Request) -> Services:
    """The application's services."""
    services: Services = request.app.state.services
    return services


def get_db(request: Request) -> Iterator[Session]:
    """A database session for this request (the handler decides about transactions)."""
    services: Services = request.app.state.services
    with services.sessions() as session:
        yield session


ServicesDep = Annotated[Services, Depends(get_services)]
DbDep = Annotated[Session, Depends(get_db)]


def authenticate(request: HTTPConnection, db: Session) -> tuple[User, AuthSession | None] | None:
    """The signed-in user and their session (None for a bearer token), or None if anonymous.

    A bearer token wins over a cookie. A cookie-authenticated write must carry the session's
    CSRF token in the ``X-CSRF-Token`` header (or the form field, checked by the form layer).
    """
    header = request.headers.get("authorization", "")
    if header:
        scheme, _, secret = header.partition(" ")
        if scheme.lower() != "bearer" or not secret.strip():
            raise ApiError(
                401, "unauthenticated", "the Authorization header must be 'Bearer TOKEN'"
            )
        user = db.scalar(
            select(User)
            .join(ApiToken, ApiToken.user_pk == User.id)
            .where(ApiToken.token_hash == digest(secret.strip()))
        )
        if user is None:
            raise ApiError(401, "unauthenticated", "this API token is not valid (revoked?)")
        _refuse_barred(user)
        note_user(request, user.user_id)
        return user, None
    cookie = request.cookies.get(SESSION_COOKIE)
    if not cookie:
        return None
    row = db.get(AuthSession, digest(cookie))
    if row is None:
        raise ApiError(401, "session_expired", "your session has ended; please sign in again")
    if aware(row.expires_at) <= now():
        db.delete(row)
        db.commit()
        raise ApiError(401, "session_expired", "your session has expired; please sign in again")
    if request.scope.get("method", "GET") not in _SAFE_METHODS:
        sent = request.headers.get(CSRF_HEADER, "")
        if not sent or not same(sent, row.csrf_token):
            raise ApiError(403, "csrf", "missing or wrong CSRF token (send X-CSRF-Token)")
    user = db.get(User, row.user_pk)
    if user is None:  # pragma: no cover - sessions cascade with their user
        raise ApiError(401, "session_expired", "your session has ended; please sign in again")
    _refuse_barred(user)
    note_user(request, user.user_id)
    return user, row


def _refuse_barred(user: User) -> None:
    """A suspended or closed account's credential is refused (403, saying until when)."""
    refused = barred(user, now())
    if refused is not None:
        raise refused


def _seen_user(request: HTTPConnection, services: Services) -> User | None:
    """:func:`quick_user`, noted as here (Who is here) at what the request's path says."""
    user = quick_user(request, services)
    if user is not None:
        here.note_user(services, user, here.activity_of_path(request.url.path))
    return user


async def _user_of_request(request: Request, services: Services) -> User | None:
    """The signed-in user or None: from the credential cache on the event loop when it
    knows the credential, else from the database in a thread."""
    user = cached_user(request)
    if user is None:
        return await run_db(services, _seen_user, request, services)
    activity = here.activity_of_path(request.url.path)
    if not here.noted_lately(services, user, activity):
        # Before the handler, as on the slow path: a player sees themselves here.
        await run_db(services, here.note_user, services, user, activity)
    return user


async def optional_user(request: Request, services: ServicesDep) -> User | None:
    """The signed-in user, or None for a visitor; a signed-in user is noted as here."""
    return await _user_of_request(request, services)


async def current_user(request: Request, services: ServicesDep) -> User:
    """The signed-in user, noted as here; visitors get 401."""
    user = await _user_of_request(request, services)
    if user is None:
        raise ApiError(401, "unauthenticated", "sign in first (session cookie or bearer token)")
    return user


#: The signed-in user of an API route (401 for a visitor), and the same or None.
CurrentUser = Annotated[User, Depends(current_user)]
OptionalUser = Annotated[User | None, Depends(optional_user)]


_USERS = User.__table__
_TOKENS = ApiToken.__table__
_SESSIONS = AuthSession.__table__


_USER_BY_TOKEN = (
    select(_USERS)
    .join(_TOKENS, _TOKENS.c.user_pk == _USERS.c.id)
    .where(_TOKENS.c.token_hash == bindparam("b_hash"))
)
_USER_BY_SESSION = (
    select(_USERS, _SESSIONS.c.expires_at, _SESSIONS.c.csrf_token)
    .join(_SESSIONS, _SESSIONS.c.user_pk == _USERS.c.id)
    .where(_SESSIONS.c.id == bindparam("b_id"))
)


def _auth_cache(request: HTTPConnection) -> AuthCache | None:
    cache: AuthCache | None = getattr(request.app.state, "auth_cache", None)
    return cache


def _credential(request: HTTPConnection) -> tuple[str, str] | None:
    """The request's well-formed credential as a cache key (a bearer token wins), or None."""
    header = request.headers.get("authorization", "")
    if header:
        scheme, _, secret = header.partition(" ")
        if scheme.lower() == "bearer" and secret.strip():
            return "token", digest(secret.strip())
        return None
    cookie = request.cookies.get(SESSION_COOKIE)
    return ("session", digest(cookie)) if cookie else None


def _session_allows(request: HTTPConnection, row: Any) -> bool:
    """A session row still valid, and the request safe or carrying its CSRF token."""
    if aware(row.expires_at) <= now():
        return False
    if request.scope.get("method", "GET") in _SAFE_METHODS:
        return True
    sent = request.headers.get(CSRF_HEADER, "")
    return bool(sent) and same(sent, row.csrf_token)


def cached_user(request: HTTPConnection) -> User | None:
    """The user of a credential the database accepted within the last second (see
    :mod:`~dicehall.server.api.auth_cache`), or None: then ask :func:`quick_user`."""
    cache = _auth_cache(request)
    key = _credential(request)
    if cache is None or key is None:
        return None
    row = cache.get(key)
    if row is None or (key[0] == "session" and not _session_allows(request, row)):
        return None
    if barred(row, now()) is not None:
        return None
    note_user(request, row.user_id)
    return _user_of(row)


def quick_user(request: HTTPConnection, services: Services) -> User | None:
    """Who is asking, in one Core query, for the hot game endpoints.

    Only the plain valid cases are answered here (and remembered for a second); anything
    else (no credentials aside, an unknown token, an expired session, a missing CSRF
    token) goes through :func:`authenticate`, which gives the precise error.
    """
    header = request.headers.get("authorization", "")
    cookie = request.cookies.get(SESSION_COOKIE)
    if not header and not cookie:
        return None
    key = _credential(request)
    cache = _auth_cache(request)
    if key is not None:
        read_at = auth_cache.generation()
        with services.read_conn() as conn:
            if key[0] == "token":
                row = conn.execute(_USER_BY_TOKEN, {"b_hash": key[1]}).first()
            else:
                row = conn.execute(_USER_BY_SESSION, {"b_id": key[1]}).first()
        if (
            row is not None
            and barred(row, now()) is None
            and (key[0] == "token" or _session_allows(request, row))
        ):
            if cache is not None:
                cache.put(key, row, read_at)
            note_user(request, row.user_id)
            return _user_of(row)
    with services.sessions() as db:
        found = authenticate(request, db)
    return found[0] if found else None


def _user_of(row: Any) -> User:
    return User(
        id=row.id,
        user_id=row.user_id,
        key=row.key,
        password_hash=row.password_hash,
        display_name=row.display_name,
        about=row.about,
        created_at=row.created_at,
        settings=row.settings,
        last_seen_at=row.last_seen_at,
        email=row.email,
        email_verified_at=row.email_verified_at,
        role=row.role,
        muted_until=row.muted_until,
        suspended_until=row.suspended_until,
        closed_at=row.closed_at,
    )
