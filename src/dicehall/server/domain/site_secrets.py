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
from typing import Any, cast

from sqlalchemy import Connection, Table, select
from sqlalchemy.dialects import postgresql, sqlite

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
    key = (services.engine.url.render_as_string(hide_password=False), name)
    known = _known.get(key)
    if known is not None:
        return known
    with _lock:
        if key not in _known:
            with services.write_conn() as conn:
                _known[key] = kept_secret(conn, name)
        return _known[key]


def kept_secret(conn: Connection, name: str) -> str:
    """The secret ``name`` from the table, made now if there is none yet (caller commits)."""
    made = secrets.token_urlsafe(48)
    dialect = sqlite if conn.dialect.name == "sqlite" else postgresql
    statement: Any = dialect.insert(SECRETS).values(name=name, value=made)
    conn.execute(statement.on_conflict_do_nothing(index_elements=[SECRETS.c.name]))
    return str(conn.execute(select(SECRETS.c.value).where(SECRETS.c.name == name)).scalar_one())


def forget_known() -> None:
    """Forget what this process has read (tests that replace the table's secret)."""
    with _lock:
        _known.clear()
