"""The push socket: one WebSocket per signed-in user ("your turn", "game updated")."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any
from urllib.parse import urlsplit

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from starlette.concurrency import run_in_threadpool

from dicehall.server.api.deps import authenticate
from dicehall.server.api.errors import ApiError
from dicehall.server.services import Services

router = APIRouter(prefix="/api/v1", tags=["push"])


def _who(websocket: WebSocket, services: Services) -> int | None:
    with services.sessions() as db:
        try:
            found = authenticate(websocket, db)
        except ApiError:
            return None
        return found[0].id if found else None


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
    user_pk = await run_in_threadpool(_who, websocket, services)
    if user_pk is None:
        await websocket.close(code=4401, reason="sign in first")
        return
    await websocket.accept()
    async with services.broker.subscribe(user_pk) as queue:
        await websocket.send_json({"type": "hello"})
        sender = asyncio.create_task(_send_all(websocket, queue))
        try:
            while True:
                await websocket.receive_text()
        except WebSocketDisconnect:
            pass
        finally:
            sender.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await sender


async def _send_all(websocket: WebSocket, queue: asyncio.Queue[dict[str, Any]]) -> None:
    while True:
        message = await queue.get()
        await websocket.send_json(message)
