"""The browser session cookie: set at sign-up and log-in, cleared at log-out, the same for
the JSON API and the pages."""

from __future__ import annotations

from starlette.responses import Response

from dicehall.server.core.config import Settings
from dicehall.server.core.security import SESSION_COOKIE


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
