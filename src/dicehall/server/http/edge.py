"""The site's edge: one pure-ASGI layer in front of the application.

It does, in one pass and one wrapped ``send``, what four layers did one after another:
a request id, an access line and the request metrics (:mod:`.accesslog`); 431 for too many
or too large headers and 413 for a body over the limit (:mod:`.limits`); the security
headers on every response (:mod:`.headers`); the ``Allow`` header of every 405 and HEAD
wherever GET is (:mod:`.methods`). Refusals made here carry the id and the
security headers, and are logged and counted like any answer. A WebSocket gets its id, its
header limits (closed with 1008), the open-sockets gauge and one access line when it ends.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from dicehall.server.http.accesslog import REQUEST_ID_HEADER, Observed, log_access
from dicehall.server.http.headers import security_headers
from dicehall.server.http.limits import (
    BodyTooLarge,
    body_refusal,
    counting_receive,
    declared_too_large,
    header_refusal,
)
from dicehall.server.http.methods import allow_header, allowed_methods, head_is_get
from dicehall.server.http.metrics import SiteMetrics


class SiteEdge:
    """Ids, access lines, metrics, header and body limits and security headers."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        metrics: SiteMetrics | None = None,
        log_requests: bool = True,
        max_body_bytes: int,
        max_header_count: int,
        max_header_bytes: int,
    ) -> None:
        self.app = app
        self.metrics = metrics
        self.log_requests = log_requests
        self.max_body_bytes = max_body_bytes
        self.max_header_count = max_header_count
        self.max_header_bytes = max_header_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "http":
            await self._http(scope, receive, send)
        elif kind == "websocket":
            if header_refusal(scope, self.max_header_count, self.max_header_bytes) is not None:
                await receive()  # the websocket.connect message
                await send({"type": "websocket.close", "code": 1008})
                return
            await self._websocket(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        observed = Observed(scope)
        status = 500  # unless a response starts: an exception escaped
        added = [
            *security_headers(scope.get("path", "")),
            (REQUEST_ID_HEADER, observed.request_id.encode()),
        ]
        # Taken before routing, which rewrites the scope's root path inside a mount.
        where = (str(scope.get("path", "")), str(scope.get("root_path", "")))
        routes = getattr(scope.get("app"), "routes", None)  # the application's own
        head = scope.get("method") == "HEAD" and routes is not None and head_is_get(routes, *where)

        async def edge_send(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
                allow = status == 405 and routes is not None
                dropped = {REQUEST_ID_HEADER, b"allow"} if allow else {REQUEST_ID_HEADER}
                headers = [
                    (name, value)
                    for name, value in message.get("headers", ())
                    if name.lower() not in dropped
                ]
                if allow:
                    headers.append(allow_header(allowed_methods(routes or (), *where)))
                present = {name.lower() for name, _ in headers}
                headers += [(name, value) for name, value in added if name not in present]
                message = {**message, "headers": headers}
            elif head and message["type"] == "http.response.body":
                message = {**message, "body": b""}  # a HEAD's answer is its GET's, bodiless
            await send(message)

        try:
            refusal = header_refusal(scope, self.max_header_count, self.max_header_bytes)
            too_large = declared_too_large(scope, self.max_body_bytes)
            if refusal is None and too_large:
                refusal = body_refusal(self.max_body_bytes)
            if refusal is not None:
                for message in refusal:
                    await edge_send(message)
                return
            if too_large is None:  # no length declared: count the body as it comes
                receive = counting_receive(receive, self.max_body_bytes)
            if head:
                scope["method"] = "GET"
            try:
                await self.app(scope, receive, edge_send)
            except BodyTooLarge:
                for message in body_refusal(self.max_body_bytes):
                    await edge_send(message)
        finally:
            if head:
                scope["method"] = "HEAD"
            fields = observed.fields(scope, "http", str(scope.get("method", "GET")), status)
            if self.metrics is not None:
                self.metrics.observe_request(
                    fields["route"], fields["method"], status, observed.seconds()
                )
            if self.log_requests:
                log_access("request", fields)
            observed.end()

    async def _websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        observed = Observed(scope)
        accepted = False
        refused_status: int | None = None
        close_code: int | None = None

        async def observed_send(message: Message) -> None:
            nonlocal accepted, refused_status, close_code
            kind = message["type"]
            if kind == "websocket.accept":
                own_id = (REQUEST_ID_HEADER, observed.request_id.encode())
                message = {**message, "headers": [*message.get("headers", ()), own_id]}
            elif kind == "websocket.close" and close_code is None:
                close_code = int(message.get("code", 1000))
            elif kind == "websocket.http.response.start":
                refused_status = int(message["status"])
            await send(message)
            if kind == "websocket.accept" and not accepted:
                accepted = True
                if self.metrics is not None:
                    self.metrics.socket_opened()

        async def observed_receive() -> Message:
            nonlocal close_code
            message = await receive()
            if message["type"] == "websocket.disconnect" and close_code is None:
                close_code = int(message.get("code", 1000))
            return message

        try:
            await self.app(scope, observed_receive, observed_send)
        finally:
            if accepted and self.metrics is not None:
                self.metrics.socket_closed()
            if self.log_requests:
                status = 101 if accepted else (refused_status or 403)
                fields = observed.fields(scope, "websocket", "GET", status)
                log_access("websocket", {**fields, "close_code": close_code})
            observed.end()
