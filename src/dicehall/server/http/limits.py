"""Limits on what one request may cost the server: its body, its head, and its time.

- :class:`BodySizeLimit`: 413 for a body over the limit.
- :class:`HeaderLimits`: 431 for more headers, or more bytes of them, than allowed.
- :class:`GuardedH11Protocol`: uvicorn's h11 protocol (which stops buffering a head at
  ``h11_max_incomplete_event_size`` bytes) answering 431 for an over-long head, and closing a
  connection whose request head is not complete within the header timeout (a client that
  sends its headers slowly, or nothing at all, would otherwise hold a connection forever).
  The server runs with it through :func:`server_options`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from typing import Any

import h11
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from dicehall.server.core.config import Settings

log = logging.getLogger(__name__)


class BodySizeLimit:
    """Answer 413 to any request whose body is larger than ``max_bytes``."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = self.max_bytes + 1
                if declared > self.max_bytes:
                    await self._refuse(send)
                    return
        received = 0
        refused = False

        async def limited_receive() -> Message:
            nonlocal received, refused
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    refused = True
                    raise _TooLarge
            return message

        try:
            await self.app(scope, limited_receive, send)
        except _TooLarge:
            if refused:
                await self._refuse(send)

    async def _refuse(self, send: Send) -> None:
        body = json.dumps(
            {"error": f"the request body is over {self.max_bytes} bytes", "code": "too_large"}
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [(b"content-type", b"application/json")],
            }
        )
        await send({"type": "http.response.body", "body": body})


class _TooLarge(Exception):
    pass


def _json(status: int, error: str, code: str) -> tuple[Message, Message]:
    body = json.dumps({"error": error, "code": code}).encode()
    start: Message = {
        "type": "http.response.start",
        "status": status,
        "headers": [(b"content-type", b"application/json")],
    }
    return start, {"type": "http.response.body", "body": body}


class HeaderLimits:
    """Answer 431 to a request with more than ``max_count`` headers or more than
    ``max_bytes`` bytes of them (a socket is refused), whatever server runs the app."""

    def __init__(self, app: ASGIApp, max_count: int, max_bytes: int) -> None:
        self.app = app
        self.max_count = max_count
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = scope.get("headers", [])
        size = sum(len(name) + len(value) + 4 for name, value in headers)
        if len(headers) <= self.max_count and size <= self.max_bytes:
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await receive()  # the websocket.connect message
            await send({"type": "websocket.close", "code": 1008})
            return
        error = (
            f"too many request headers (at most {self.max_count})"
            if len(headers) > self.max_count
            else f"the request headers are over {self.max_bytes} bytes"
        )
        for message in _json(431, error, "headers_too_large"):
            await send(message)


HEADER_TIMEOUT_ENV = "DICEHALL_HEADER_TIMEOUT"


_DEFAULT_HEADER_TIMEOUT: float = Settings.model_fields["header_timeout"].default


def header_timeout_from_env() -> float:
    """Seconds a client has to send a request head: ``DICEHALL_HEADER_TIMEOUT`` or the default."""
    given = os.environ.get(HEADER_TIMEOUT_ENV, "").strip()
    try:
        seconds = float(given) if given else _DEFAULT_HEADER_TIMEOUT
    except ValueError:
        raise ValueError(
            f"{HEADER_TIMEOUT_ENV} must be a number of seconds, not {given!r}"
        ) from None
    if not seconds > 0:
        raise ValueError(f"{HEADER_TIMEOUT_ENV} must be above 0, not {given!r}")
    return seconds


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline for every request head and 431 (not 400) for
    a head over ``h11_max_incomplete_event_size``.

    The deadline runs from the connection's start, and on a kept-alive connection from the
    first byte of the next request; it ends when the head is complete. uvicorn has no such
    timeout of its own, and its keep-alive timeout stops counting at the first byte.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_timeout = header_timeout_from_env()
        self._head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self.conn.their_state is h11.IDLE and self._head_timer is None:
            self._arm()
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:
            self._disarm()

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        self._disarm()
        super().handle_websocket_upgrade(event)

    def send_400_response(self, msg: str) -> None:
        most = self.config.h11_max_incomplete_event_size
        if most is None or len(self.conn.trailing_data[0]) <= most:
            super().send_400_response(msg)
            return
        log.warning("refused a request head over %d bytes", most)
        body = f"the request line and headers are over {most} bytes".encode()
        headers = [
            (b"content-type", b"text/plain; charset=utf-8"),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
        ]
        reason = b"Request Header Fields Too Large"
        for event in (
            h11.Response(status_code=431, headers=headers, reason=reason),
            h11.Data(data=body),
            h11.EndOfMessage(),
        ):
            self.transport.write(self.conn.send(event))
        self.transport.close()

    def _arm(self) -> None:
        self._disarm()
        self._head_timer = self.loop.call_later(self._head_timeout, self._head_late)

    def _disarm(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_late(self) -> None:
        self._head_timer = None
        if self.conn.their_state is not h11.IDLE or self.transport.is_closing():
            return
        if self.conn.trailing_data[0]:
            # Part of a head came: say why the connection ends (nothing came: just close).
            self.transport.write(
                b"HTTP/1.1 408 Request Timeout\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
            )
        self.transport.close()


#: Bytes a push socket's client may send in one message (it has nothing to say).
WS_MAX_MESSAGE = 65536


def server_options(settings: Settings, trusted_proxies: str | None = None) -> dict[str, Any]:
    """uvicorn's options for the site: the guarded h11 protocol and its limits, and proxy
    headers (X-Forwarded-For, -Proto) believed only from ``trusted_proxies`` (comma-separated
    addresses or networks; default: ``settings.trusted_proxies``, none)."""
    proxies = [p.strip() for p in (trusted_proxies or "").split(",") if p.strip()] or list(
        settings.trusted_proxies
    )
    return {
        "http": "dicehall.server.http.limits:GuardedH11Protocol",
        "h11_max_incomplete_event_size": settings.max_header_bytes,
        "timeout_keep_alive": 5,
        "ws_max_size": WS_MAX_MESSAGE,
        "proxy_headers": bool(proxies),
        "forwarded_allow_ips": ",".join(proxies) if proxies else None,
    }
