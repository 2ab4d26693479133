"""What makes the site an installable web app: its manifest and its service worker.

The worker is served at ``/sw.js`` (not under ``/static/``) because a worker's scope is at
most the folder it is served from, and it must see every page. Both are the same for
everyone and ask nothing of the database.
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

from fastapi import APIRouter
from fastapi.responses import Response

router = APIRouter(include_in_schema=False)

#: The colours of the icons and of the page (site.css's paper).
THEME_COLOUR = "#1d4f91"
BACKGROUND_COLOUR = "#fbfaf7"
ICON_SIZES = (192, 512)


def manifest() -> dict[str, Any]:
    """The web app manifest (W3C Web Application Manifest)."""
    icons: list[dict[str, str]] = []
    for prefix, purpose in (("icon", "any"), ("maskable", "maskable")):
        icons.extend(
            {
                "src": f"/static/icons/{prefix}-{size}.png",
                "sizes": f"{size}x{size}",
                "type": "image/png",
                "purpose": purpose,
            }
            for size in ICON_SIZES
        )
    return {
        "id": "/",
        "name": "dicehall",
        "short_name": "dicehall",
        "description": "Five classic dice games, turn-based, with provably fair dice.",
        "lang": "en",
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "theme_color": THEME_COLOUR,
        "background_color": BACKGROUND_COLOUR,
        "icons": icons,
    }


@functools.cache
def _worker_source() -> bytes:
    return resources.files("dicehall.server.web").joinpath("static", "sw.js").read_bytes()


@functools.cache
def _manifest_bytes() -> bytes:
    return json.dumps(manifest(), indent=2).encode()


@router.get("/manifest.webmanifest")
def web_manifest() -> Response:
    """The web app manifest: the name, colours and icons the site installs with."""
    return Response(
        _manifest_bytes(),
        media_type="application/manifest+json",
        headers={"Cache-Control": "public, max-age=3600"},
    )


@router.get("/sw.js")
def service_worker() -> Response:
    """The service worker (pushes, notification clicks, the games list offline)."""
    return Response(
        _worker_source(),
        media_type="text/javascript; charset=utf-8",
        # Browsers look for a new worker on each navigation; let them always ask.
        headers={"Cache-Control": "no-cache"},
    )


__all__ = ["manifest", "router"]
