"""Security headers on every HTTP response, as a pure ASGI middleware.

- ``Content-Security-Policy``: scripts, styles, images and connections from the site itself
  only; no inline script or style, no plugins, no framing (``frame-ancestors 'none'``), forms
  post only to the site. Pages keep every script in a static module under /static/js.
- ``X-Frame-Options: DENY``: no framing, for browsers that predate ``frame-ancestors``.
- ``X-Content-Type-Options: nosniff``: a response is only ever what its type says.
- ``Referrer-Policy: same-origin``: other sites never see the site's addresses.

The API's documentation page (Swagger UI) loads its script and style from a CDN and starts
with an inline script, so it gets a policy that allows exactly that.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

SITE_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
DOCS_POLICY = (
    "default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
    "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
    "img-src 'self' data: https://fastapi.tiangolo.com; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)
#: Paths of the API's documentation pages (FastAPI's Swagger UI).
DOCS_PATHS = frozenset({"/api/v1/docs", "/api/v1/docs/oauth2-redirect"})

_COMMON: list[tuple[bytes, bytes]] = [
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
]


class SecurityHeaders:
    """Add the site's security headers to every HTTP response that lacks them."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        policy = DOCS_POLICY if scope.get("path") in DOCS_PATHS else SITE_POLICY
        added = [*_COMMON, (b"content-security-policy", policy.encode())]

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                headers += [(name, value) for name, value in added if name not in present]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)
