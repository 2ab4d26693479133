"""Secrets and digests: session and API tokens are random, and only their SHA-256 is stored."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import timedelta

from sqlalchemy.orm import Session

from dicehall.server.core.clock import now
from dicehall.server.core.models import ApiToken, AuthSession, User

SESSION_COOKIE = "dicehall_session"
CSRF_HEADER = "x-csrf-token"
CSRF_FIELD = "csrf_token"


def new_secret() -> str:
    """A fresh random secret, URL-safe."""
    return secrets.token_urlsafe(32)


def digest(secret: str) -> str:
    """The stored form of a secret."""
    return hashlib.sha256(secret.encode()).hexdigest()


def same(a: str, b: str) -> bool:
    """Constant-time comparison."""
    return hmac.compare_digest(a.encode(), b.encode())


def open_session(db: Session, user: User, days: int) -> tuple[str, AuthSession]:
    """Start a signed-in session; return the cookie secret and the stored row."""
    secret = new_secret()
    moment = now()
    row = AuthSession(
        id=digest(secret),
        user_pk=user.id,
        csrf_token=new_secret(),
        created_at=moment,
        expires_at=moment + timedelta(days=days),
    )
    db.add(row)
    return secret, row


def issue_api_token(db: Session, user: User, name: str) -> tuple[str, ApiToken]:
    """A new bearer token for programs; the secret is shown once and never stored."""
    secret = "dh_" + new_secret()
    row = ApiToken(token_hash=digest(secret), user_pk=user.id, name=name, created_at=now())
    db.add(row)
    return secret, row
