"""An account's e-mail address: set it (a link proves it), and reset a forgotten password
through it (a signed link that works once, for half an hour; every session, push
subscription and webhook of the account ends with the reset, and every API token unless
the owner keeps them).

The mails go out through the ``deliveries`` job like every notice (a request never waits on
an SMTP server, and an unreachable one loses nothing: the mail is retried). Their links are
signed when the mail is written, not stored: a reset link is made from the account's password
hash as it is then.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import Connection, Table, delete, func, select, update
from sqlalchemy.dialects import postgresql, sqlite

from dicehall.server.core.clock import aware, now
from dicehall.server.core.models import (
    ApiToken,
    AuthSession,
    Delivery,
    PushSubscription,
    User,
    Webhook,
)
from dicehall.server.domain import jobs
from dicehall.server.domain.account_checks import check_password
from dicehall.server.domain.auth_cache import credentials_changed
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.notices import links
from dicehall.server.domain.notices.outbox import JOB
from dicehall.server.domain.services import Services
from dicehall.server.domain.site_secrets import site_secret

USERS = cast(Table, User.__table__)
DELIVERIES = cast(Table, Delivery.__table__)
SESSIONS = cast(Table, AuthSession.__table__)
TOKENS = cast(Table, ApiToken.__table__)
PUSH = cast(Table, PushSubscription.__table__)
WEBHOOKS = cast(Table, Webhook.__table__)

#: The delivery kinds of an account's own mails (not notices: no settings turn them off).
VERIFY = "verify_email"
RESET = "password_reset"
#: The most reset mails one address is sent in an hour (the request answers 202 anyway).
RESETS_PER_HOUR = 3

# A practical address check (RFC 5322's full grammar admits addresses no mail server takes):
# one @, a local part of printable characters, a domain of labels with a dot.
_LOCAL = re.compile(r"^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}$")
_LABEL = re.compile(r"^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$")


def check_email(text: str) -> str:
    """``text`` as an address the site will mail (the domain lower-cased), or 422
    ``invalid_email`` saying what is wrong with it."""
    address = text.strip()
    if len(address) > 254:
        raise _invalid("an e-mail address has at most 254 characters")
    local, at, domain = address.rpartition("@")
    if not at or not local or not domain:
        raise _invalid("an e-mail address looks like name@example.org")
    if not _LOCAL.match(local) or local.startswith(".") or ".." in local:
        raise _invalid(f"{local[:64]!r} is not a valid name before the @")
    try:
        ascii_domain = domain.encode("idna").decode("ascii").lower()
    except UnicodeError:
        raise _invalid(f"{domain[:80]!r} is not a valid domain") from None
    labels = ascii_domain.split(".")
    if len(labels) < 2 or not all(_LABEL.match(label) for label in labels):
        raise _invalid(f"{domain[:80]!r} is not a valid domain (it needs a dot: example.org)")
    return f"{local}@{ascii_domain}"


def _invalid(message: str) -> Refused:
    return Refused("invalid", "invalid_email", message)


def _queue(conn: Connection, user_pk: int, kind: str, address: str, path: str) -> None:
    """Queue one account mail to ``address`` (sent by the deliveries job)."""
    moment = now()
    dialect = sqlite if conn.dialect.name == "sqlite" else postgresql
    statement: Any = dialect.insert(DELIVERIES).values(
        user_pk=user_pk,
        channel="email",
        event=f"{kind}:{secrets.token_hex(8)}",
        kind=kind,
        game_id=None,
        # An account mail's title is the address it goes to (a change of address while it
        # waits must not send the link elsewhere).
        title=address,
        text="",
        path=path,
        created_at=moment,
        status="pending",
        due_at=moment,
        attempts=0,
    )
    conn.execute(statement)
    jobs.wake(conn, JOB)


def set_email(services: Services, user_pk: int, email: str | None) -> None:
    """Set (or, with None or "", remove) ``user_pk``'s address; a new address is unverified
    until the link mailed to it is opened."""
    address = check_email(email) if email else None
    with services.write_conn() as conn:
        current = conn.execute(
            select(USERS.c.email, USERS.c.email_verified_at).where(USERS.c.id == user_pk)
        ).one()
        if address is not None and address == current.email and current.email_verified_at:
            return
        conn.execute(
            update(USERS).where(USERS.c.id == user_pk).values(email=address, email_verified_at=None)
        )
        if address is not None:
            _queue(conn, user_pk, VERIFY, address, "/verify-email")
    credentials_changed()


def verify(services: Services, token: str) -> str:
    """Mark the address a verification link names as proved; the account's user id. Refused
    when the link is forged or expired, or the account's address has changed since."""
    user_pk, address = links.verified_by(site_secret(services), token)
    with services.write_conn() as conn:
        row = conn.execute(
            select(USERS.c.user_id, USERS.c.email, USERS.c.email_verified_at).where(
                USERS.c.id == user_pk
            )
        ).one_or_none()
        if row is None or row.email != address:
            raise Refused(
                "invalid",
                "email_changed",
                "this link is for an address the account no longer has; set it again",
            )
        if row.email_verified_at is None:
            conn.execute(update(USERS).where(USERS.c.id == user_pk).values(email_verified_at=now()))
    credentials_changed()
    return str(row.user_id)


def request_reset(services: Services, email: str) -> int:
    """Queue a reset mail to every account whose verified address is ``email``; how many
    (the caller tells nobody: the answer is the same for an unknown address). A malformed
    address is refused (422)."""
    address = check_email(email)
    since = now().timestamp() - 3600
    queued = 0
    with services.write_conn() as conn:
        accounts = conn.execute(
            # The name before the @ is matched in any case, as mail servers do.
            select(USERS.c.id, USERS.c.email).where(
                func.lower(USERS.c.email) == address.lower(),
                USERS.c.email_verified_at.is_not(None),
            )
        ).all()
        for user_pk, stored in accounts:
            recent = conn.execute(
                select(DELIVERIES.c.created_at).where(
                    DELIVERIES.c.user_pk == user_pk, DELIVERIES.c.kind == RESET
                )
            ).scalars()
            if sum(1 for at in recent if aware(at).timestamp() >= since) >= RESETS_PER_HOUR:
                continue
            _queue(conn, int(user_pk), RESET, str(stored), "/reset-password")
            queued += 1
    return queued


@dataclass(frozen=True)
class Reset:
    """A password reset done: whose, and the API tokens it ended (their stored hashes)."""

    user_pk: int
    user_id: str
    token_hashes: list[str]
    sessions: int
    #: The owner kept the account's API tokens on purpose.
    tokens_kept: bool = False


def confirm_reset(
    services: Services, token: str, password: str, keep_tokens: bool = False
) -> Reset:
    """Set a new password with a reset link's token; every session, push subscription and
    webhook of the account ends, and every API token unless ``keep_tokens``. Refused: a
    forged, expired or used link (422), a password the rules refuse (422)."""
    user_pk, fingerprint = links.reset_target(site_secret(services), token)
    with services.read_conn() as conn:
        row = conn.execute(
            select(USERS.c.user_id, USERS.c.password_hash).where(USERS.c.id == user_pk)
        ).one_or_none()
    if row is None or links.password_fingerprint(row.password_hash) != fingerprint:
        raise _used()
    check_password(password, row.user_id)
    new_hash = services.hasher.hash(password)
    with services.write_conn() as conn:
        current = conn.execute(
            select(USERS.c.password_hash).where(USERS.c.id == user_pk)
        ).scalar_one()
        if links.password_fingerprint(current) != fingerprint:
            raise _used()
        conn.execute(update(USERS).where(USERS.c.id == user_pk).values(password_hash=new_hash))
        sessions = conn.execute(
            delete(SESSIONS).where(SESSIONS.c.user_pk == user_pk).returning(SESSIONS.c.id)
        ).all()
        ended: list[str] = []
        if not keep_tokens:
            hashes = conn.execute(
                delete(TOKENS).where(TOKENS.c.user_pk == user_pk).returning(TOKENS.c.token_hash)
            ).scalars()
            ended = [str(h) for h in hashes]
        # Whoever took the account may have added a browser or a webhook to hear its
        # notices: the owner who got it back subscribes again.
        conn.execute(delete(PUSH).where(PUSH.c.user_pk == user_pk))
        conn.execute(delete(WEBHOOKS).where(WEBHOOKS.c.user_pk == user_pk))
    credentials_changed()
    return Reset(user_pk, str(row.user_id), ended, len(sessions), keep_tokens)


def _used() -> Refused:
    return Refused(
        "invalid",
        "link_used",
        "this password reset link has been used already (or the password was changed since); "
        "ask for a new one",
    )
