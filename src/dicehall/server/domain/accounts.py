"""Accounts: sign up, log in, log out, password change, profile edits and API tokens (what
an account may hold is checked in :mod:`account_checks`).

Every function checks what a client sent and raises :class:`Refused` with a sentence a
person can act on. Password hashing (argon2id through ``services.hasher``) runs outside the
write transactions (``services.write()``), so a slow hash never holds the write lock.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from dicehall.server.core.clock import aware, now
from dicehall.server.core.models import ApiToken, AuthSession, User
from dicehall.server.core.security import digest, issue_api_token, open_session
from dicehall.server.domain.account_checks import (
    _USER_ID_SHAPE,
    PASSWORD_MAX,
    TOKENS_PER_USER,
    USER_ID_MAX,
    WRONG_LOGIN,
    check_about,
    check_display_name,
    check_password,
    check_token_name,
    check_user_id,
    look_alike,
    refuse_look_alike_name,
    user_key,
)
from dicehall.server.domain.auth_cache import credentials_changed
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.moderation.standing import barred, may_write
from dicehall.server.domain.people import search
from dicehall.server.domain.people.settings import parse as parse_settings
from dicehall.server.domain.services import Services
from dicehall.server.domain.vacation import SIGN_UP_ALLOWANCE
from dicehall.server.domain.write_rates import check_write_rate
from dicehall.server.infra.ratelimit import attempt_buckets, bucket


def _iso(moment: datetime) -> str:
    return aware(moment).isoformat()


def user_payload(user: User) -> dict[str, Any]:
    """A user's profile as anyone may see it."""
    return {
        "user_id": user.user_id,
        "display_name": user.display_name,
        "about": user.about,
        "created_at": _iso(user.created_at),
    }


def my_payload(user: User) -> dict[str, Any]:
    """A user's profile as they see it themselves (with their e-mail address)."""
    return {
        **user_payload(user),
        "email": user.email,
        "email_verified": user.email is not None and user.email_verified_at is not None,
    }


def token_payload(token: ApiToken) -> dict[str, Any]:
    """An API token as its owner sees it in a list: never the secret."""
    return {"id": token.id, "name": token.name, "created_at": _iso(token.created_at)}


@dataclass(frozen=True)
class SignedIn:
    """A new browser session: the user, the cookie's secret and the session's CSRF token."""

    user: User
    cookie: str
    csrf_token: str


@functools.lru_cache(maxsize=8)
def _dummy_hash(time_cost: int, memory_cost: int, parallelism: int) -> str:
    return PasswordHasher(
        time_cost=time_cost, memory_cost=memory_cost, parallelism=parallelism
    ).hash("not anyone's password")


def _verify(hasher: PasswordHasher, stored: str, password: str) -> bool:
    try:
        return hasher.verify(stored, password)
    except (VerificationError, InvalidHashError):
        return False


def _replace_session(db: Session, previous_cookie: str | None) -> None:
    # The browser is about to get a new cookie; its old session would only linger unused.
    if previous_cookie:
        db.execute(delete(AuthSession).where(AuthSession.id == digest(previous_cookie)))


def sign_up(
    services: Services,
    user_id: str,
    password: str,
    display_name: str | None,
    previous_cookie: str | None = None,
) -> SignedIn:
    """Create an account and sign it in; 422 for a broken rule, 409 for a taken user id."""
    key = check_user_id(user_id)
    check_password(password, user_id)
    name = check_display_name(display_name) if display_name is not None else user_id
    with services.sessions() as db:
        if db.scalar(select(User.id).where(User.key == key)) is not None:
            raise _taken()
        _refuse_look_alike_id(db, user_id, key)
    password_hash = services.hasher.hash(password)
    try:
        with services.write() as db:
            if db.scalar(select(User.id).where(User.key == key)) is not None:
                raise _taken()
            _refuse_look_alike_id(db, user_id, key)
            user = User(
                user_id=user_id,
                key=key,
                password_hash=password_hash,
                display_name=name,
                about="",
                created_at=now(),
                vacation_seconds=float(SIGN_UP_ALLOWANCE),
                vacation_accrued_at=now(),
            )
            if display_name is not None:
                refuse_look_alike_name(db, name, user)
            db.add(user)
            db.flush()
            search.put_terms(db.connection(), user.id, user.user_id, user.display_name)
            _replace_session(db, previous_cookie)
            secret, row = open_session(db, user, services.settings.session_days)
    except IntegrityError as exc:
        # Someone took the same id between our check and our insert.
        raise _taken() from exc
    if previous_cookie:
        credentials_changed()
    return SignedIn(user, secret, row.csrf_token)


def _taken() -> Refused:
    return Refused("conflict", "user_id_taken", "that user id is taken")


def _refuse_look_alike_id(db: Session, user_id: str, key: str) -> None:
    other = look_alike(db, user_id, None)
    if other is not None and check_user_id(other) == key:
        # The same id, committed by a racing sign-up after our own check: taken, not a look-alike.
        raise _taken()
    if other is not None:
        raise Refused(
            "invalid",
            "invalid_user_id",
            f"the user id {user_id!r} looks too much like the existing user id {other!r}; "
            "please choose another",
        )


def log_in(
    services: Services, user_id: str, password: str, previous_cookie: str | None = None
) -> SignedIn:
    """Check the password and open a session; 401 with one message for any wrong id or password.

    A stored hash made with older argon2 parameters is replaced by one with the current ones.
    """
    hasher = services.hasher
    user: User | None = None
    if _USER_ID_SHAPE.fullmatch(user_id) and len(password) <= PASSWORD_MAX:
        with services.sessions() as db:
            user = db.scalar(select(User).where(User.key == user_key(user_id)))
    if user is None:
        # Hash anyway, so the answer takes as long as for a real user id with a wrong password.
        _verify(
            hasher,
            _dummy_hash(hasher.time_cost, hasher.memory_cost, hasher.parallelism),
            password[:PASSWORD_MAX],
        )
        raise Refused("unauthenticated", "wrong_login", WRONG_LOGIN)
    if not _verify(hasher, user.password_hash, password):
        raise Refused("unauthenticated", "wrong_login", WRONG_LOGIN)
    # Only whoever knows the password learns that the account is suspended or closed.
    refused = barred(user, now(), parse_settings(user.settings).time_zone)
    if refused is not None:
        raise refused
    rehashed = hasher.hash(password) if hasher.check_needs_rehash(user.password_hash) else None
    with services.write() as db:
        fresh = db.get(User, user.id)
        if fresh is None:  # pragma: no cover - deleted while signing in
            raise Refused("unauthenticated", "wrong_login", WRONG_LOGIN)
        if rehashed is not None and fresh.password_hash == user.password_hash:
            fresh.password_hash = rehashed
        db.execute(
            delete(AuthSession).where(
                AuthSession.user_pk == fresh.id, AuthSession.expires_at <= now()
            )
        )
        _replace_session(db, previous_cookie)
        secret, row = open_session(db, fresh, services.settings.session_days)
    credentials_changed()
    return SignedIn(fresh, secret, row.csrf_token)


def log_out(services: Services, session_id: str) -> None:
    """End one browser session."""
    with services.write() as db:
        db.execute(delete(AuthSession).where(AuthSession.id == session_id))
    credentials_changed()


@dataclass(frozen=True)
class PasswordChanged:
    """A password changed: how many browser sessions ended, and the API tokens that ended
    (their stored hashes, to close their push sockets)."""

    sessions: int
    token_hashes: list[str]

    def words(self) -> str:
        """What the change did, as the answer and the page say it."""
        ended = "session was" if self.sessions == 1 else "sessions were"
        tokens = len(self.token_hashes)
        also = f" and {tokens} API token{'' if tokens == 1 else 's'} ended" if tokens else ""
        return f"your password is changed; {self.sessions} other browser {ended} signed out{also}"


def change_password(
    services: Services,
    user: User,
    keep_session: str | None,
    old_password: str,
    new_password: str,
    keep_tokens: bool = False,
) -> PasswordChanged:
    """Set a new password and end every session of the user but ``keep_session``, and
    every API token unless ``keep_tokens`` (the user keeps them on purpose).

    403 ``wrong_password`` when the old password is wrong; 422 when the new one breaks a
    rule or equals the old one.
    """
    if len(old_password) > PASSWORD_MAX or not _verify(
        services.hasher, user.password_hash, old_password
    ):
        raise Refused("forbidden", "wrong_password", "the old password is wrong")
    check_password(new_password, user.user_id)
    if new_password == old_password:
        raise Refused(
            "invalid", "invalid_password", "the new password must be different from the old one"
        )
    new_hash = services.hasher.hash(new_password)
    with services.write() as db:
        fresh = db.get(User, user.id)
        if fresh is None:  # pragma: no cover - deleted while changing the password
            raise Refused("unauthenticated", "unauthenticated", "sign in first")
        if fresh.password_hash != user.password_hash:
            raise Refused(
                "conflict",
                "password_changed",
                "the password was changed by another request meanwhile; sign in again",
            )
        fresh.password_hash = new_hash
        doomed = delete(AuthSession).where(AuthSession.user_pk == fresh.id)
        if keep_session is not None:
            doomed = doomed.where(AuthSession.id != keep_session)
        ended = db.execute(doomed.returning(AuthSession.id)).all()
        hashes: list[str] = []
        if not keep_tokens:
            hashes = list(
                db.execute(
                    delete(ApiToken)
                    .where(ApiToken.user_pk == fresh.id)
                    .returning(ApiToken.token_hash)
                ).scalars()
            )
    credentials_changed()
    return PasswordChanged(len(ended), hashes)


def find_user(db: Session, user_id: str) -> User:
    """The user with this id (any case); 404 ``no_such_user`` otherwise (``account_closed``
    for a closed account)."""
    user = None
    if _USER_ID_SHAPE.fullmatch(user_id):
        user = db.scalar(select(User).where(User.key == user_key(user_id)))
    if user is not None and user.closed_at is not None:
        raise Refused("not_found", "account_closed", f"the account {user.user_id!r} is closed")
    if user is None:
        shown = user_id if len(user_id) <= USER_ID_MAX else user_id[:USER_ID_MAX] + "..."
        raise Refused("not_found", "no_such_user", f"there is no user {shown!r}")
    return user


def update_profile(
    services: Services, user: User, display_name: str | None, about: str | None
) -> User:
    """Change the display name and/or the about text; fields left out stay as they are
    (403 ``muted`` while a moderator's mute lasts)."""
    name = check_display_name(display_name) if display_name is not None else None
    text = check_about(about) if about is not None else None
    check_write_rate(services, "profile", user.id)  # 429 ``rate_limited`` past the limit
    with services.write() as db:
        fresh = db.get(User, user.id)
        if fresh is None:  # pragma: no cover - deleted while editing
            raise Refused("unauthenticated", "unauthenticated", "sign in first")
        may_write(db.connection(), fresh.id, now())
        if name is not None:
            refuse_look_alike_name(db, name, fresh)
            fresh.display_name = name
            search.put_terms(db.connection(), fresh.id, fresh.user_id, name)
        if text is not None:
            fresh.about = text
    credentials_changed()
    return fresh


def reloaded(services: Services, user: User) -> User:
    """``user`` as stored now."""
    with services.write() as db:
        fresh = db.get(User, user.id)
        if fresh is None:  # pragma: no cover - deleted meanwhile
            raise Refused("unauthenticated", "unauthenticated", "sign in first")
    return fresh


def list_tokens(db: Session, user: User) -> list[dict[str, Any]]:
    """The user's API tokens, oldest first, without secrets."""
    rows = db.scalars(select(ApiToken).where(ApiToken.user_pk == user.id).order_by(ApiToken.id))
    return [token_payload(row) for row in rows]


def create_token(services: Services, user: User, name: str) -> tuple[str, ApiToken]:
    """A new API token named ``name``: its secret (shown once) and its row."""
    cleaned = check_token_name(name)
    with services.write() as db:
        # Lock the user's row first, so that parallel requests count one after another
        # (PostgreSQL; SQLite's writers are serialized anyway).
        db.execute(select(User.id).where(User.id == user.id).with_for_update())
        count = db.scalar(
            select(func.count()).select_from(ApiToken).where(ApiToken.user_pk == user.id)
        )
        if (count or 0) >= TOKENS_PER_USER:
            raise Refused(
                "conflict",
                "too_many_tokens",
                f"you already have {TOKENS_PER_USER} API tokens; revoke one you no longer use",
            )
        secret, row = issue_api_token(db, user, cleaned)
        db.flush()
    return secret, row


def revoke_token(services: Services, user: User, token_id: int) -> str:
    """Delete one of the user's own tokens and return its stored hash; 404 for any other id."""
    with services.write() as db:
        row = db.get(ApiToken, token_id)
        if row is None or row.user_pk != user.id:
            raise Refused("not_found", "no_such_token", f"you have no API token {token_id}")
        token_hash = row.token_hash
        db.delete(row)
    credentials_changed()
    return token_hash


def count_attempt(
    services: Services,
    kind: str,
    address: str,
    user_id: str,
    *,
    own: bool = False,
    device: str | None = None,
) -> int | None:
    """Count an attempt (``kind``: signup, login, password) from ``address`` at ``user_id``;
    the seconds to wait when it is over the limit, else None.

    It counts on the client's network and on the pair of address and user id, never on the
    user id alone, unless ``own``: the user is signed in, so nobody else can spend that count;
    and on ``device`` (a device proof's nonce, see ``login_guard``) when one is given.
    """
    keys = attempt_buckets(kind, address, user_key(user_id))
    if own:
        keys.append(bucket(kind, "user", user_key(user_id)))
    if device is not None:
        keys.append(bucket(kind, "device", device))
    return services.limiter.hit(keys)
