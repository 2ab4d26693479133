"""The signed links the site mails: prove an e-mail address, reset a password, turn one kind
of e-mail off. Each is signed with the site's secret and its own salt; a reset link names a
fingerprint of the password it replaces, so it works once (the new password retires it)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from itsdangerous import BadSignature, SignatureExpired

from dicehall.server.domain.errors import Refused
from dicehall.server.domain.notices.kinds import KINDS, NoticeKind
from dicehall.server.domain.site_secrets import link_serializer

#: How long each link works.
VERIFY_LIFETIME = timedelta(hours=48)
RESET_LIFETIME = timedelta(minutes=30)

_VERIFY = "dicehall-verify-email"
_RESET = "dicehall-password-reset"
_UNSUBSCRIBE = "dicehall-unsubscribe"


def _load(secret: str, salt: str, token: str, max_age: timedelta | None, what: str) -> Any:
    try:
        return link_serializer(secret, salt).loads(
            token, max_age=None if max_age is None else int(max_age.total_seconds())
        )
    except SignatureExpired as exc:
        raise Refused("invalid", "link_expired", f"this {what} link has expired") from exc
    except BadSignature as exc:
        raise Refused("invalid", "invalid_link", f"this {what} link is not valid") from exc


def verify_token(secret: str, user_pk: int, email: str) -> str:
    """The token of the link that proves ``email`` is ``user_pk``'s."""
    return str(link_serializer(secret, _VERIFY).dumps([user_pk, email]))


def verified_by(secret: str, token: str) -> tuple[int, str]:
    """The user and address a verification token names (refused: forged or expired)."""
    found = _load(secret, _VERIFY, token, VERIFY_LIFETIME, "verification")
    if not (isinstance(found, list) and len(found) == 2 and isinstance(found[0], int)):
        raise Refused("invalid", "invalid_link", "this verification link is not valid")
    return int(found[0]), str(found[1])


def password_fingerprint(password_hash: str) -> str:
    """A short fingerprint of a stored password hash (a reset link names the password it
    replaces, so it stops working once that password is replaced)."""
    return hashlib.sha256(password_hash.encode()).hexdigest()[:24]


def reset_token(secret: str, user_pk: int, password_hash: str) -> str:
    """The token of a link that sets a new password for ``user_pk``."""
    return str(
        link_serializer(secret, _RESET).dumps([user_pk, password_fingerprint(password_hash)])
    )


def reset_target(secret: str, token: str) -> tuple[int, str]:
    """The user and password fingerprint a reset token names (refused: forged or expired)."""
    found = _load(secret, _RESET, token, RESET_LIFETIME, "password reset")
    if not (isinstance(found, list) and len(found) == 2 and isinstance(found[0], int)):
        raise Refused("invalid", "invalid_link", "this password reset link is not valid")
    return int(found[0]), str(found[1])


def unsubscribe_token(secret: str, user_pk: int, kinds: NoticeKind | Sequence[NoticeKind]) -> str:
    """The token of the link that turns e-mails of ``kinds`` off for ``user_pk`` (one
    kind for a notice's mail, those it holds for a digest); it does not expire: an old
    mail's link still works."""
    named: Any = kinds if isinstance(kinds, str) else [k for k in KINDS if k in kinds]
    return str(link_serializer(secret, _UNSUBSCRIBE).dumps([user_pk, named]))


def unsubscribe_target(secret: str, token: str) -> tuple[int, list[NoticeKind]]:
    """The user and the kinds an unsubscribe token names."""
    found = _load(secret, _UNSUBSCRIBE, token, None, "unsubscribe")
    if isinstance(found, list) and len(found) == 2 and isinstance(found[0], int):
        named = [found[1]] if isinstance(found[1], str) else found[1]
        if isinstance(named, list) and named and all(k in KINDS for k in named):
            return int(found[0]), [k for k in KINDS if k in named]
    raise Refused("invalid", "invalid_link", "this unsubscribe link is not valid")
