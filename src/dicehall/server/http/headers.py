"""Security headers on every HTTP response (added by :mod:`dicehall.server.http.edge`).

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


def security_headers(path: str) -> list[tuple[bytes, bytes]]:
    """The security headers of a response to ``path``."""
    return _DOCS_HEADERS if path in DOCS_PATHS else _SITE_HEADERS


_SITE_HEADERS = [*_COMMON, (b"content-security-policy", SITE_POLICY.encode())]
_DOCS_HEADERS = [*_COMMON, (b"content-security-policy", DOCS_POLICY.encode())]
