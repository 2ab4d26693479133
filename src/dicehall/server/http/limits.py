"""Limits on what one request may cost the server: its body, its head, and its time.

- :func:`declared_too_large`, :func:`counting_receive`: 413 for a body over the limit.
- :func:`header_refusal`: 431 for more headers, or more bytes of them, than allowed.
  (:class:`dicehall.server.http.edge.SiteEdge` applies both.)
- :class:`GuardedHttpToolsProtocol`: uvicorn's httptools protocol (llhttp, in C) answering
  431 for a head over ``h11_max_incomplete_event_size`` bytes, and closing a connection
  whose request head is not complete within the header timeout (a client that sends its
  headers slowly, or nothing at all, would otherwise hold a connection forever). The server
  runs with it through :func:`server_options`; it parses a request at a fraction of the
  CPU of the pure-Python h11 (:class:`GuardedH11Protocol`, the same guards, kept for
  platforms without httptools).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from typing import Any

import h11
from starlette.types import Message, Receive, Scope
from uvicorn.protocols.http.h11_impl import H11Protocol

try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:  # pragma: no cover - httptools ships wheels for every platform we run on
    HttpToolsProtocol = None  # type: ignore[assignment, misc]

from dicehall.server.core.config import Settings

log = logging.getLogger(__name__)


def declared_too_large(scope: Scope, max_bytes: int) -> bool | None:
    """Whether the request's ``content-length`` is over ``max_bytes`` (an unreadable one
    is); None when it declares none (a chunked body, counted as it comes)."""
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value) > max_bytes
            except ValueError:
                return True
    return None


def body_refusal(max_bytes: int) -> tuple[Message, Message]:
    """The 413 answer to a body over ``max_bytes``."""
    return _json(413, f"the request body is over {max_bytes} bytes", "too_large")


class BodyTooLarge(Exception):
    """A chunked body grew past the limit while the application read it."""


def counting_receive(receive: Receive, max_bytes: int) -> Receive:
    """``receive`` that raises :class:`BodyTooLarge` once the body passes ``max_bytes``."""
    received = 0

    async def limited() -> Message:
        nonlocal received
        message = await receive()
        if message["type"] == "http.request":
            received += len(message.get("body", b""))
            if received > max_bytes:
                raise BodyTooLarge
        return message

    return limited


def _json(status: int, error: str, code: str) -> tuple[Message, Message]:
    body = json.dumps({"error": error, "code": code}).encode()
    start: Message = {
        "type": "http.response.start",
        "status": status,
        "headers": [(b"content-type", b"application/json")],
    }
    return start, {"type": "http.response.body", "body": body}


def header_refusal(scope: Scope, max_count: int, max_bytes: int) -> tuple[Message, Message] | None:
    """The 431 answer to a request with more than ``max_count`` headers or more than
    ``max_bytes`` bytes of them, whatever server runs the app; None when they are within."""
    headers = scope.get("headers", [])
    if len(headers) > max_count:
        return _json(431, f"too many request headers (at most {max_count})", "headers_too_large")
    size = sum(len(name) + len(value) + 4 for name, value in headers)
    if size > max_bytes:
        return _json(431, f"the request headers are over {max_bytes} bytes", "headers_too_large")
    return None


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


class _HeadGuard:
    """The guards both protocols keep: a deadline for a request head (408, or a plain close
    when nothing came) and a 431 for one over the limit. A protocol says whether a head is
    awaited, and whether part of one came, through :meth:`_head_started`."""

    loop: asyncio.AbstractEventLoop
    transport: asyncio.Transport
    _head_timeout: float
    _head_timer: asyncio.TimerHandle | None

    def _start_guard(self) -> None:
        self._head_timeout = header_timeout_from_env()
        self._head_timer = None

    def _head_started(self) -> bool | None:
        """None when no head is awaited; else whether some of its bytes came."""
        raise NotImplementedError

    def _arm(self) -> None:
        self._disarm()
        self._head_timer = self.loop.call_later(self._head_timeout, self._head_late)

    def _disarm(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_late(self) -> None:
        self._head_timer = None
        started = self._head_started()
        if started is None or self.transport.is_closing():
            return
        if started:
            # Part of a head came: say why the connection ends (nothing came: just close).
            self.transport.write(
                b"HTTP/1.1 408 Request Timeout\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
            )
        self.transport.close()

    def _refuse_long_head(self, most: int) -> None:
        log.warning("refused a request head over %d bytes", most)
        self._disarm()
        body = f"the request line and headers are over {most} bytes".encode()
        self.transport.write(
            b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
            b"content-type: text/plain; charset=utf-8\r\n"
            b"content-length: " + str(len(body)).encode() + b"\r\n"
            b"connection: close\r\n\r\n" + body
        )
        self.transport.close()


class GuardedH11Protocol(_HeadGuard, H11Protocol):
    """uvicorn's h11 protocol with a deadline for every request head and 431 (not 400) for
    a head over ``h11_max_incomplete_event_size``.

    The deadline runs from the connection's start, and on a kept-alive connection from the
    first byte of the next request; it ends when the head is complete. uvicorn has no such
    timeout of its own, and its keep-alive timeout stops counting at the first byte.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._start_guard()

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
        self._refuse_long_head(most)

    def _head_started(self) -> bool | None:
        if self.conn.their_state is not h11.IDLE:
            return None
        return bool(self.conn.trailing_data[0])


if HttpToolsProtocol is not None:

    class GuardedHttpToolsProtocol(_HeadGuard, HttpToolsProtocol):
        """uvicorn's httptools protocol with the guards of :class:`GuardedH11Protocol`: a
        deadline for every request head, and 431 for a head over
        ``h11_max_incomplete_event_size`` bytes (llhttp itself buffers heads without limit).

        A head is awaited from the connection's start and after each request's body; its
        bytes are counted until the parser reports the headers complete. A head that ends
        within the chunk that crosses the limit is parsed, and the site's edge judges its
        headers (:func:`header_refusal`).
        """

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._start_guard()
            self._awaiting_head = True
            self._head_bytes = 0

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            if self._awaiting_head:
                if self._head_timer is None:
                    self._arm()
                self._head_bytes += len(data)
            super().data_received(data)
            most = self.config.h11_max_incomplete_event_size
            if (
                self._awaiting_head
                and most is not None
                and self._head_bytes > most
                and not self.transport.is_closing()
            ):
                self._refuse_long_head(most)

        def on_headers_complete(self) -> None:
            self._awaiting_head = False
            self._head_bytes = 0
            self._disarm()
            super().on_headers_complete()

        def on_message_complete(self) -> None:
            super().on_message_complete()
            self._awaiting_head = True

        def handle_websocket_upgrade(self) -> None:
            self._disarm()
            super().handle_websocket_upgrade()

        def _head_started(self) -> bool | None:
            return bool(self._head_bytes) if self._awaiting_head else None

    #: The protocol the site serves HTTP with.
    SITE_PROTOCOL = "dicehall.server.http.limits:GuardedHttpToolsProtocol"
else:  # pragma: no cover
    SITE_PROTOCOL = "dicehall.server.http.limits:GuardedH11Protocol"


#: Bytes a push socket's client may send in one message (it has nothing to say).
WS_MAX_MESSAGE = 65536


def server_options(settings: Settings, trusted_proxies: str | None = None) -> dict[str, Any]:
    """uvicorn's options for the site: the guarded HTTP protocol and its limits, and proxy
    headers (X-Forwarded-For, -Proto) believed only from ``trusted_proxies`` (comma-separated
    addresses or networks; default: ``settings.trusted_proxies``, none)."""
    proxies = [p.strip() for p in (trusted_proxies or "").split(",") if p.strip()] or list(
        settings.trusted_proxies
    )
    return {
        "http": SITE_PROTOCOL,
        "h11_max_incomplete_event_size": settings.max_header_bytes,
        "timeout_keep_alive": settings.keep_alive_seconds,
        "ws_max_size": WS_MAX_MESSAGE,
        "proxy_headers": bool(proxies),
        "forwarded_allow_ips": ",".join(proxies) if proxies else None,
    }
