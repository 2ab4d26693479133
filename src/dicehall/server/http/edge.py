"""The site's edge: one pure-ASGI layer in front of the application.

It does, in one pass and one wrapped ``send``, what four layers did one after another:
a request id, an access line and the request metrics (:mod:`.accesslog`); 431 for too many
or too large headers and 413 for a body over the limit (:mod:`.limits`); the security
headers on every response (:mod:`.headers`). Refusals made here carry the id and the
security headers, and are logged and counted like any answer.
"""

from __future__ import annotations

import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from dicehall.server.http.accesslog import (
    _USER_KEY,
    REQUEST_ID_HEADER,
    RequestObserver,
    request_id_of,
    request_id_var,
    route_template,
)
from dicehall.server.http.headers import security_headers
from dicehall.server.http.limits import (
    BodyTooLarge,
    body_refusal,
    counting_receive,
    declared_too_large,
    header_refusal,
)
from dicehall.server.http.metrics import SiteMetrics


class SiteEdge(RequestObserver):
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
        super().__init__(app, metrics=metrics, log_requests=log_requests)
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
        request_id = request_id_of(scope)
        root_path = str(scope.get("root_path", ""))
        state = scope.setdefault("state", {})
        state["request_id"] = request_id
        token = request_id_var.set(request_id)
        started = time.perf_counter()
        status = 500  # unless a response starts: an exception escaped
        added = [*security_headers(scope.get("path", "")), (REQUEST_ID_HEADER, request_id.encode())]

        async def edge_send(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
                headers = [
                    (name, value)
                    for name, value in message.get("headers", ())
                    if name.lower() != REQUEST_ID_HEADER
                ]
                present = {name.lower() for name, _ in headers}
                headers += [(name, value) for name, value in added if name not in present]
                message = {**message, "headers": headers}
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
            try:
                await self.app(scope, receive, edge_send)
            except BodyTooLarge:
                for message in body_refusal(self.max_body_bytes):
                    await edge_send(message)
        finally:
            seconds = time.perf_counter() - started
            route = route_template(scope, root_path)
            method = str(scope.get("method", "GET"))
            if self.metrics is not None:
                self.metrics.observe_request(route, method, status, seconds)
            if self.log_requests:
                self._log(
                    "request",
                    route,
                    {
                        "request_id": request_id,
                        "type": "http",
                        "user_id": state.get(_USER_KEY),
                        "method": method,
                        "route": route,
                        "status": status,
                        "duration_ms": round(seconds * 1000, 3),
                    },
                )
            request_id_var.reset(token)
