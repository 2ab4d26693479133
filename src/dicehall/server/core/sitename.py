"""The site's name: the namespace of its channels and keys in a Redis that several sites share.

Redis pub/sub ignores the database number of a Redis URL, so two sites on one Redis would
hear each other's pushes unless every channel (and, to be safe, every key) carries a name of
its own site. By default the name is derived from the database URL: sites on different
databases never mix, and every process of one site (same database) agrees on it.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from dicehall.server.core.config import Settings, default_db_url

#: What a site name may look like (it becomes part of Redis channel and key names).
SITE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


def derive_site_name(db_url: str) -> str:
    """A short name for the site whose database is ``db_url`` (its password left out)."""
    try:
        url = make_url(db_url)
        database = url.database
        if url.get_backend_name() == "sqlite" and database and database != ":memory:":
            url = url.set(database=str(Path(database).resolve()))
        canonical = url.render_as_string(hide_password=True)
    except ArgumentError:
        canonical = db_url
    return "site-" + hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()[:12]


def check_site_name(name: str) -> str:
    """``name`` if it may name a site, else ValueError saying what a name may contain."""
    if not SITE_NAME.fullmatch(name):
        raise ValueError(
            f"a site name is 1 to 64 letters, digits, '_', '.' or '-', starting with a letter "
            f"or digit; got {name!r}"
        )
    return name


def site_name(settings: Settings) -> str:
    """The site's name: ``settings.site_name``, or one derived from its database URL."""
    return (
        check_site_name(settings.site_name)
        if settings.site_name
        else derive_site_name(settings.db_url)
    )


def site_name_from_env() -> str:
    """The site's name from ``DICEHALL_SITE_NAME``, else derived from ``DICEHALL_DB_URL``."""
    given = os.environ.get("DICEHALL_SITE_NAME", "").strip()
    if given:
        return check_site_name(given)
    return derive_site_name(os.environ.get("DICEHALL_DB_URL") or default_db_url())


def redis_prefix(name: str) -> str:
    """The prefix of every Redis channel and key of the site called ``name``."""
    return f"dicehall:{name}:"
