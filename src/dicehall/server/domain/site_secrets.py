"""Secrets every process of the site shares (to sign the links it hands out).

The setting ``secret_key`` (``DICEHALL_SECRET_KEY``) wins when it is set; otherwise a random
secret is made on first need and kept in the ``site_secrets`` table, so that every process
and machine serving the same database signs and checks alike. Processes that race to make it
all insert theirs ignoring a conflict, then read back the one that was kept. Each process
keeps what it read, so the table is read once per process.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
from collections.abc import Callable
from typing import Any, cast

from itsdangerous import TimestampSigner, URLSafeTimedSerializer
from sqlalchemy import Connection, Table, select
from sqlalchemy.dialects import postgresql, sqlite

from dicehall.server.core.clock import now
from dicehall.server.core.models import SiteSecret
from dicehall.server.domain.services import Services

SECRETS = cast(Table, SiteSecret.__table__)

#: The secret that signs links; each kind of link adds its own salt.
SIGNING = "signing"

_known: dict[tuple[str, str], str] = {}
_lock = threading.Lock()


def site_secret(services: Services, name: str = SIGNING) -> str:
    """The site's secret ``name`` (blocking: call it in a thread, outside a transaction)."""
    configured = services.settings.secret_key.get_secret_value()
    if configured:
        # One secret per name, all derived from the configured key.
        return hmac.new(configured.encode(), name.encode(), hashlib.sha256).hexdigest()
    return table_secret(services, name)


def table_secret(services: Services, name: str, make: Callable[[], str] | None = None) -> str:
    """The secret ``name`` from the table (made by ``make`` on first need), whatever the
    settings say: for secrets that cannot be derived from ``secret_key`` (a key pair).
    Blocking: call it in a thread, outside a transaction."""
    key = (services.engine.url.render_as_string(hide_password=False), name)
    known = _known.get(key)
    if known is not None:
        return known
    with _lock:
        if key not in _known:
            with services.write_conn() as conn:
                _known[key] = kept_secret(conn, name, make)
        return _known[key]


def kept_secret(conn: Connection, name: str, make: Callable[[], str] | None = None) -> str:
    """The secret ``name`` from the table, made now if there is none yet (caller commits):
    by ``make`` (at most 128 characters), or random text."""
    made = make() if make is not None else secrets.token_urlsafe(48)
    dialect = sqlite if conn.dialect.name == "sqlite" else postgresql
    statement: Any = dialect.insert(SECRETS).values(name=name, value=made)
    conn.execute(statement.on_conflict_do_nothing(index_elements=[SECRETS.c.name]))
    return str(conn.execute(select(SECRETS.c.value).where(SECRETS.c.name == name)).scalar_one())


def forget_known() -> None:
    """Forget what this process has read (tests that replace the table's secret)."""
    with _lock:
        _known.clear()


class _StampSigner(TimestampSigner):
    """A timestamp signer on the site's clock; ``stamp`` signs as of that second (so a link
    made for a stored moment is the same every time it is shown)."""

    def __init__(self, *args: Any, stamp: int | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.stamp = stamp

    def get_timestamp(self) -> int:
        return self.stamp if self.stamp is not None else int(now().timestamp())


def link_serializer(secret: str, salt: str, stamp: int | None = None) -> URLSafeTimedSerializer:
    """Signs and checks one kind of link (``salt``) with ``secret``, timed by the site's
    clock (``stamp``: as of that second)."""
    return URLSafeTimedSerializer(
        secret,
        salt=salt,
        signer=_StampSigner,
        signer_kwargs={"stamp": stamp, "digest_method": hashlib.sha256},
    )
