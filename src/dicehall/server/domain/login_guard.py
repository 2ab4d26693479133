"""Log-in tries, held up per client and per account, with the owner's devices let through.

Every try counts per client (its network, and its address with the user id tried: see
:func:`~dicehall.server.domain.accounts.count_attempt`), and per account through a growing
delay (:mod:`~dicehall.server.infra.login_throttle`): once 5 tries at a user id failed
within 15 minutes, from any number of addresses, each next try waits 1 s, 2 s, 4 s ... (at
most 5 minutes) after the one before.

So that a stranger cannot hold the owner up that way, a browser that logs in (or signs up)
gets a device proof (OWASP's "device cookies"): a long-lived cookie holding the account's
key and a random nonce, signed with the site's secret. A try that carries a valid proof for
the user id it tries skips the per-account delay; it is counted per device (the nonce) as
well as per client instead. The delay is the same for a user id nobody has, so it tells
nobody which ids exist.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from itsdangerous import BadSignature

from dicehall.server.domain import accounts
from dicehall.server.domain.account_checks import user_key
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.services import Services
from dicehall.server.domain.site_secrets import link_serializer, site_secret
from dicehall.server.infra.ratelimit import bucket

#: How long a device proof is good for.
DEVICE_DAYS = 365
#: The longest proof worth checking (a real one is about 100 characters).
_PROOF_MOST = 400
_SALT = "device-proof"


def device_proof(services: Services, account_key: str) -> str:
    """A new device proof for the account whose key (case-folded user id) is
    ``account_key``. Blocking (the site's secret): call it in a thread."""
    serializer = link_serializer(site_secret(services), _SALT)
    return serializer.dumps([account_key, secrets.token_urlsafe(12)])


def proven_device(services: Services, proof: str | None, user_id: str) -> str | None:
    """The device's nonce when ``proof`` is a device proof, signed here within
    :data:`DEVICE_DAYS`, for the user id ``user_id`` (any case); else None."""
    if not proof or len(proof) > _PROOF_MOST:
        return None
    try:
        key, nonce = link_serializer(site_secret(services), _SALT).loads(
            proof, max_age=DEVICE_DAYS * 86400
        )
    except (BadSignature, TypeError, ValueError):
        return None
    if not isinstance(key, str) or not isinstance(nonce, str) or key != user_key(user_id):
        return None
    return nonce


@dataclass(frozen=True)
class LoggedIn:
    """A log-in that passed: the new session, and the device proof the browser keeps."""

    signed: accounts.SignedIn
    device: str


def log_in(
    services: Services,
    address: str,
    user_id: str,
    password: str,
    previous_cookie: str | None = None,
    device: str | None = None,
) -> LoggedIn:
    """:func:`~dicehall.server.domain.accounts.log_in` from ``address``, with the browser's
    device proof ``device`` (if any), held up as the module says: 429 ``rate_limited``
    (with ``retry_after``) before the password is checked. Blocking: call it in a thread."""
    nonce = proven_device(services, device, user_id)
    wait = accounts.count_attempt(services, "login", address, user_id, device=nonce)
    if wait is not None:
        raise _held_up(f"too many attempts; try again in {wait} seconds", wait)
    account = bucket("login", "account", user_key(user_id))
    if nonce is None:
        wait = services.throttle.claim(account)
        if wait is not None:
            raise _held_up(
                f"too many failed log-ins at this user id; try again in {wait} seconds "
                "(a browser that logged in to it before is not held up)",
                wait,
            )
    failed = False
    try:
        signed = accounts.log_in(services, user_id, password, previous_cookie)
    except Refused as exc:
        failed = exc.code == "wrong_login"
        raise
    finally:
        if nonce is None:  # the try claimed its turn: it lands, failed or not
            if failed:
                services.throttle.failed(account)
            else:
                services.throttle.passed(account)
    return LoggedIn(signed, device_proof(services, signed.user.key))


def _held_up(message: str, wait: int) -> Refused:
    return Refused("too_many", "rate_limited", message, retry_after=wait)
