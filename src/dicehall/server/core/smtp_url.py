"""The SMTP server's URL (``DICEHALL_SMTP_URL``), parsed and checked when the settings are
read, so that a site never starts on a misread one."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import unquote, urlsplit

#: The port of each scheme when the URL names none.
DEFAULT_PORTS = {"smtp": 25, "smtps": 465}


@dataclass(frozen=True)
class SmtpTarget:
    """Where and how to reach the SMTP server, as parsed from its URL."""

    scheme: Literal["smtp", "smtps"]
    host: str
    port: int
    username: str | None = None
    password: str | None = field(default=None, repr=False)

    @property
    def address(self) -> str:
        """``host:port`` (an IPv6 host in brackets), for messages."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"


def parse_smtp_url(url: str) -> SmtpTarget:
    """``smtp://[user:password@]host[:port]`` or ``smtps://...`` as a target; the user and
    password are percent-decoded. Raises ValueError naming what is wrong, never quoting the
    URL (it may hold the password)."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS or not url.strip().lower().startswith(f"{scheme}://"):
        raise ValueError("an SMTP URL starts with smtp:// or smtps://")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ValueError(
            "the SMTP URL has more than scheme, user, password, host and port "
            "(a / ? or # in the password must be percent-encoded)"
        )
    if not parts.hostname:
        raise ValueError("the SMTP URL names no host")
    try:
        port = parts.port
    except ValueError:
        port = 0
    else:
        port = DEFAULT_PORTS[scheme] if port is None else port
    if not 1 <= port <= 65535:
        raise ValueError("the SMTP URL's port must be a number from 1 to 65535")
    username = unquote(parts.username) if parts.username is not None else None
    password = unquote(parts.password) if parts.password is not None else None
    if username is not None and password is None:
        raise ValueError("the SMTP URL gives a user but no password (user:password@host)")
    if not username:
        if password:
            raise ValueError("the SMTP URL gives a password but no user (user:password@host)")
        username = password = None
    return SmtpTarget(
        "smtps" if scheme == "smtps" else "smtp", parts.hostname, port, username, password
    )
