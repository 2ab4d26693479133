"""Request dependencies: the services, a database session, and who is asking."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy import select
from sqlalchemy.orm import Session
from starlette.requests import HTTPConnection

from dicehall.server.api.errors import ApiError
from dicehall.server.clock import aware, now
from dicehall.server.models import ApiToken, AuthSession, User
from dicehall.server.security import CSRF_HEADER, SESSION_COOKIE, digest, same
from dicehall.server.services import Services

_SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}


def get_services(request: Request) -> Services:
    """The application's services."""
    services: Services = request.app.state.services
    return services


def get_db(request: Request) -> Iterator[Session]:
    """A database session for this request (the handler decides about transactions)."""
    with get_services(request).sessions() as session:
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
    return user, row


def optional_user(request: Request, db: DbDep) -> User | None:
    """The signed-in user, or None for a visitor."""
    found = authenticate(request, db)
    return found[0] if found else None


def current_user(request: Request, db: DbDep) -> User:
    """The signed-in user; visitors get 401."""
    found = authenticate(request, db)
    if found is None:
        raise ApiError(401, "unauthenticated", "sign in first (session cookie or bearer token)")
    return found[0]


UserDep = Annotated[User, Depends(current_user)]
OptionalUserDep = Annotated[User | None, Depends(optional_user)]
