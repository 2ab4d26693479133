"""The push socket: one WebSocket per signed-in user ("your turn", "game updated").

Each user may hold ``sockets_per_user`` sockets on one server process; one more is refused
with close code 4429 before it is accepted (the sockets already open keep working, and a
browser retries later). A socket lives as long as what signed it in: it is closed with code
4401 when its session ends (log-out, a password change elsewhere) or its API token is
revoked, on whichever process it is connected to.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any
from urllib.parse import urlsplit

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from starlette.concurrency import run_in_threadpool

from dicehall.server.api.deps import authenticate
from dicehall.server.core.security import digest
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.push import (
    CLOSE_SIGNED_OUT,
    CLOSE_TOO_MANY,
    TooManySockets,
    session_credential,
    token_credential,
)
from dicehall.server.domain.services import Services

router = APIRouter(prefix="/api/v1", tags=["push"])


def _who(websocket: WebSocket, services: Services) -> tuple[int, str] | None:
    """The signed-in user's id and the credential they signed in with, or None."""
    with services.sessions() as db:
        try:
            found = authenticate(websocket, db)
        except Refused:
            return None
        if found is None:
            return None
        user, session = found
        if session is not None:
            return user.id, session_credential(session.id)
        _scheme, _, secret = websocket.headers.get("authorization", "").partition(" ")
        return user.id, token_credential(digest(secret.strip()))


@router.websocket("/ws")
async def push_socket(websocket: WebSocket) -> None:
    """Sends ``{"type": "game", "game": id, "version": v, "your_turn": bool}`` on each change."""
    services: Services = websocket.app.state.services
    origin = websocket.headers.get("origin")
    if origin and "authorization" not in websocket.headers:
        host = websocket.headers.get("host", "")
        if urlsplit(origin).netloc != host:
            await websocket.close(code=4403, reason="cross-site socket refused")
            return
    who = await run_in_threadpool(_who, websocket, services)
    if who is None:
        await websocket.close(code=4401, reason="sign in first")
        return
    user_pk, credential = who
    try:
        async with services.broker.subscribe(
            user_pk, credential, limit=services.settings.sockets_per_user
        ) as subscription:
            await websocket.accept()
            await websocket.send_json({"type": "hello"})
            await _serve(websocket, subscription.queue, subscription.ended)
            if subscription.ended.is_set():
                with contextlib.suppress(Exception):  # the client may be gone already
                    await websocket.close(code=CLOSE_SIGNED_OUT, reason=subscription.reason)
    except TooManySockets:
        limit = services.settings.sockets_per_user
        await websocket.close(
            code=CLOSE_TOO_MANY, reason=f"at most {limit} open sockets per user; close one"
        )


async def _serve(
    websocket: WebSocket, queue: asyncio.Queue[dict[str, Any]], ended: asyncio.Event
) -> None:
    """Forward pushes until the client leaves or the socket's sign-in ends."""
    tasks = [
        asyncio.create_task(_send_all(websocket, queue)),
        asyncio.create_task(_drain(websocket)),
        asyncio.create_task(ended.wait()),
    ]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


async def _send_all(websocket: WebSocket, queue: asyncio.Queue[dict[str, Any]]) -> None:
    while True:
        message = await queue.get()
        await websocket.send_json(message)


async def _drain(websocket: WebSocket) -> None:
    # The client has nothing to say; what it sends is read and dropped, until it leaves.
    with contextlib.suppress(WebSocketDisconnect):
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
