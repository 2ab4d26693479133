"""A dropped database connection: a read is run once more, anything else answers 503.

A connection can drop under a request: PostgreSQL restarted, its backend was terminated,
the network went, a SQLite file could not be opened. SQLAlchemy then invalidates the whole
pool, so the next checkout connects afresh. The error handlers answer such a drop with 503
``database_unavailable`` and a Retry-After (``api/errors.py``, and ``web/common.py`` for
pages), and mark the request with :func:`note_dropped`.

A GET or HEAD changes nothing by HTTP's rules (what a read may write, a clock that ran out,
is settled by the state it finds), so :class:`RetryReads` discards that 503 and runs the
request once more, on a fresh connection. A write is never run again here: a drop during
its COMMIT leaves unknown whether it committed, and its client's expected version or
Idempotency-Key already makes the client's own retry safe.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

#: The methods whose requests are run again after a drop.
SAFE_METHODS = frozenset({"GET", "HEAD"})

#: Scope keys: this attempt may be run again; this attempt lost its connection.
_RETRYABLE = "dicehall.retryable"
_DROPPED = "dicehall.database_dropped"


def note_dropped(scope: Scope) -> bool:
    """Note that the request lost its database connection; True when it will be run again
    (the answer about to be made is then discarded)."""
    scope[_DROPPED] = True
    return bool(scope.get(_RETRYABLE))


class RetryReads:
    """Runs a GET or HEAD once more when its first run lost its database connection before
    its answer started; every other request passes straight through."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in SAFE_METHODS:
            await self.app(scope, receive, send)
            return
        # The second run starts from the scope as it came (routing writes into it); the
        # edge outside reads what the last run wrote (the route, for the access line).
        before = dict(scope)
        scope[_RETRYABLE] = True
        received: list[Message] = []
        started = False
        discarded = False

        async def recording() -> Message:
            message = await receive()
            if message["type"] == "http.request":
                received.append(message)
            return message

        async def unless_dropped(message: Message) -> None:
            nonlocal started, discarded
            if not started and scope.get(_DROPPED):
                discarded = True
                return
            started = True
            await send(message)

        await self.app(scope, recording, unless_dropped)
        if not discarded:
            return

        async def replaying() -> Message:
            return received.pop(0) if received else await receive()

        scope.clear()
        scope.update(before)
        await self.app(scope, replaying, send)
