"""The site's VAPID key (RFC 8292), which signs every web push.

A browser subscribes with the key's public half, and its push service refuses pushes
signed with any other key, so every process and machine of the site must use the same one:
``DICEHALL_VAPID_PRIVATE_KEY`` when it is set (``dicehall vapid`` makes one), else a key
made on first need and kept in the ``site_secrets`` table (even when ``secret_key`` is set:
a key pair is not derived from it).
"""

from __future__ import annotations

import functools

from dicehall.server.domain.services import Services
from dicehall.server.domain.site_secrets import table_secret
from dicehall.server.infra.webpush import VapidKey

#: The name of the kept key in ``site_secrets``.
SECRET_NAME = "vapid-private-key"


def site_vapid_key(services: Services) -> VapidKey:
    """The key pushes are signed with (blocking on first use: call it in a thread, outside
    a transaction). ValueError naming the setting when the configured key is not valid."""
    configured = services.settings.vapid_private_key.get_secret_value().strip()
    if configured:
        try:
            return _parsed(configured)
        except ValueError as exc:
            raise ValueError(f"DICEHALL_VAPID_PRIVATE_KEY: {exc}") from exc
    kept = table_secret(services, SECRET_NAME, lambda: VapidKey.generate().private_b64)
    return _parsed(kept)


@functools.lru_cache(maxsize=8)
def _parsed(text: str) -> VapidKey:
    return VapidKey.from_private(text)


__all__ = ["SECRET_NAME", "site_vapid_key"]
