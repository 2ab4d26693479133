"""The browser session cookie: set at sign-up and log-in, cleared at log-out, the same for
the JSON API and the pages; and the device proof a browser keeps after logging in (see
``domain.login_guard``), which outlives log-outs."""

from __future__ import annotations

from starlette.responses import Response

from dicehall.server.core.config import Settings
from dicehall.server.core.security import SESSION_COOKIE
from dicehall.server.domain.login_guard import DEVICE_DAYS

#: The cookie holding this browser's device proof.
DEVICE_COOKIE = "dicehall_device"


def set_session_cookie(response: Response, settings: Settings, secret: str) -> None:
    """Give the browser its session: HTTP-only, same-site lax, for ``session_days``."""
    response.set_cookie(
        SESSION_COOKIE,
        secret,
        max_age=settings.session_days * 86400,
        path="/",
        secure=settings.secure_cookies,
        httponly=True,
        samesite="lax",
    )


def clear_session_cookie(response: Response, settings: Settings) -> None:
    """Tell the browser to drop its session cookie."""
    response.delete_cookie(
        SESSION_COOKIE,
        path="/",
        secure=settings.secure_cookies,
        httponly=True,
        samesite="lax",
    )


def set_device_cookie(response: Response, settings: Settings, proof: str) -> None:
    """Give the browser its device proof: HTTP-only, same-site lax, for ``DEVICE_DAYS``."""
    response.set_cookie(
        DEVICE_COOKIE,
        proof,
        max_age=DEVICE_DAYS * 86400,
        path="/",
        secure=settings.secure_cookies,
        httponly=True,
        samesite="lax",
    )
