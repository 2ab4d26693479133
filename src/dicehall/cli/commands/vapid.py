"""``dicehall vapid``: a fresh VAPID key pair for the site's web push."""

from __future__ import annotations

from dicehall.cli.apps import Groups
from dicehall.cli.common import JsonText, console, print_json, require_extra


def vapid(as_json: JsonText = False) -> None:
    """Print a fresh VAPID key pair (P-256) for web push.

    Give every process of the site the private key as DICEHALL_VAPID_PRIVATE_KEY; the public
    key is what browsers subscribe with (the site serves it at /api/v1/push/key). Without
    the setting, the site makes a key once and keeps it in its database.
    """
    require_extra("cryptography", "site", "dicehall vapid")
    from dicehall.server.infra.webpush import VapidKey

    key = VapidKey.generate()
    if as_json:
        print_json({"private_key": key.private_b64, "public_key": key.public_b64})
        return
    console.print(f"DICEHALL_VAPID_PRIVATE_KEY={key.private_b64}", markup=False, soft_wrap=True)
    console.print(f"public key: {key.public_b64}", markup=False, soft_wrap=True)


def register(groups: Groups) -> None:
    """Add ``vapid`` to the root command."""
    groups.root.command()(vapid)
