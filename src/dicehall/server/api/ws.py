"""The push socket: one WebSocket per signed-in user ("your turn", "game updated"), which may
also follow one game as a spectator (``?watch=ID``, signed in or not).

Each user may hold ``sockets_per_user`` sockets on one server process; one more is refused
with close code 4429 before it is accepted (the sockets already open keep working, and a
browser retries later). A socket lives as long as what signed it in: it is closed with code
4401 when its session ends (log-out, a password change elsewhere) or its API token is
revoked, on whichever process it is connected to.

A socket opened with ``?watch=ID`` follows game ID: a signed-out visitor may open one too.
A game the socket may not watch (none such, or private and not its players' or guests')
is refused with close code 4404 before it is accepted; a guest whose invitation is
withdrawn has the socket closed with 4404. Spectators are counted (a player's own board is
not) and hear each change of the count.

A socket opened with ``?tournament=ID`` follows tournament ID (its page, signed in or not):
it hears ``{"type": "tournament", "id": ID, "version": v}`` on each change; a tournament
that does not exist is refused with close code 4404 before the socket is accepted.

A socket opened with ``?singularity=1`` follows the site's pulse (the Singularity page,
signed in or not): it hears ``{"type": "singularity"}`` whenever a game or a tournament
ends (the page then asks for the moments and counts again).

A player's socket that follows their own game marks that game open in their tab (see
``domain.notices.viewing``): its notices stay off their e-mail, push and webhook meanwhile.

While a signed-in user's socket is open they are on Who is here (noted when it connects and
every heartbeat; at its game when it follows one); a closed socket takes nobody out at once.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any
from urllib.parse import urlsplit

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from starlette.concurrency import run_in_threadpool

from dicehall.server.api.deps import authenticate
from dicehall.server.core.ids import in_id_range
from dicehall.server.core.security import digest
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.games.watching import watch_access
from dicehall.server.domain.notices import viewing
from dicehall.server.domain.people import here
from dicehall.server.domain.services import Services
from dicehall.server.domain.tournaments.live import followable
from dicehall.server.infra.presence import at_game
from dicehall.server.infra.push import (
    CLOSE_SIGNED_OUT,
    CLOSE_TOO_MANY,
    SOCKET_QUEUE,
    Subscription,
    TooManySockets,
    Watch,
    session_credential,
    token_credential,
    watching_message,
)

#: Close code (sent instead of accepting) for a game the socket may not follow.
CLOSE_NO_GAME = 4404

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


def _watched(websocket: WebSocket, name: str = "watch") -> int | None:
    """The game ``?watch=`` (or the tournament ``?tournament=``) names: its id (0 for what
    can name none), None when the socket follows none."""
    raw = websocket.query_params.get(name)
    if raw is None:
        return None
    return int(raw) if raw.isdigit() and len(raw) <= 10 and in_id_range(int(raw)) else 0


def _tournament_exists(services: Services, tournament_id: int) -> bool:
    with services.read_conn() as conn:
        return followable(conn, tournament_id)


def _access(services: Services, game_id: int, user_pk: int | None) -> bool | None:
    """Whether ``user_pk`` plays game ``game_id``; None when they may not watch it."""
    with services.read_conn() as conn:
        try:
            return watch_access(conn, game_id, user_pk)
        except Refused:
            return None


@router.websocket("/ws")
async def push_socket(websocket: WebSocket) -> None:
    """Sends ``{"type": "game", "game": id, "version": v, "your_turn": bool}`` on each change
    of my games; with ``?watch=ID``, ``{"type": "game", "game": ID, "version": v, "status":
    s}`` on each change of game ID (to spectators) and ``{"type": "watching", "game": ID,
    "watching": n, "seq": s}`` when its count of spectators changes; with
    ``?tournament=ID``, ``{"type": "tournament", "id": ID, "version": v}`` on each change
    of tournament ID; with ``?singularity=1``, ``{"type": "singularity"}`` whenever a game
    or a tournament ends."""
    services: Services = websocket.app.state.services
    origin = websocket.headers.get("origin")
    if origin and "authorization" not in websocket.headers:
        host = websocket.headers.get("host", "")
        if urlsplit(origin).netloc != host:
            await websocket.close(code=4403, reason="cross-site socket refused")
            return
    watched = _watched(websocket)
    followed = _watched(websocket, "tournament")
    pulse = "singularity" in websocket.query_params
    who = await run_in_threadpool(_who, websocket, services)
    if who is None and watched is None and followed is None and not pulse:
        await websocket.close(code=4401, reason="sign in first")
        return
    if followed is not None and not (
        followed and await run_in_threadpool(_tournament_exists, services, followed)
    ):
        await websocket.close(code=CLOSE_NO_GAME, reason="there is no such tournament")
        return
    user_pk, credential = who if who is not None else (None, None)
    seated: bool | None = False
    if watched is not None:
        seated = await run_in_threadpool(_access, services, watched, user_pk) if watched else None
        if seated is None:
            await websocket.close(code=CLOSE_NO_GAME, reason="there is no such game to watch")
            return
    try:
        async with contextlib.AsyncExitStack() as stack:
            subscription: Subscription | None = None
            watch: Watch | None = None
            if user_pk is not None:
                subscription = await stack.enter_async_context(
                    services.broker.subscribe(
                        user_pk, credential, limit=services.settings.sockets_per_user
                    )
                )
            queue = (
                subscription.queue
                if subscription is not None
                else asyncio.Queue[dict[str, Any]](maxsize=SOCKET_QUEUE)
            )
            if watched:
                watch = await stack.enter_async_context(
                    services.broker.watch(watched, queue, user_pk=user_pk, counted=not seated)
                )
            if followed:
                await stack.enter_async_context(
                    services.broker.follow_tournament(followed, queue, user_pk=user_pk)
                )
            if pulse:
                await stack.enter_async_context(services.broker.follow_site(queue, user_pk=user_pk))
            if user_pk is not None:
                # An open socket keeps its user on Who is here (at its game, if it follows one).
                await stack.enter_async_context(
                    here.kept_present(services, user_pk, at_game(watched) if watched else None)
                )
            if user_pk is not None and watched and seated:
                # A player's own board: notices about this game stay off their channels.
                await stack.enter_async_context(viewing.kept_open(services, user_pk, watched))
            await websocket.accept()
            await websocket.send_json({"type": "hello"})
            if watch is not None and not watch.counted:
                # A player is not counted, so no count is published for them: tell them now.
                count, seq = await services.broker.watching(watch.game_id)
                await websocket.send_json(watching_message(watch.game_id, count, seq))
            ends = [s.ended for s in (subscription, watch) if s is not None]
            await _serve(websocket, queue, *ends)
            for why, code in ((subscription, CLOSE_SIGNED_OUT), (watch, CLOSE_NO_GAME)):
                if why is not None and why.ended.is_set():
                    with contextlib.suppress(Exception):  # the client may be gone already
                        await websocket.close(code=code, reason=why.reason)
                    break
    except TooManySockets as refused:
        limit = services.settings.sockets_per_user
        await websocket.close(
            code=CLOSE_TOO_MANY,
            reason=f"at most {limit} open sockets per user; close one"
            if user_pk is not None
            else str(refused),
        )


async def _serve(
    websocket: WebSocket, queue: asyncio.Queue[dict[str, Any]], *ended: asyncio.Event
) -> None:
    """Forward pushes until the client leaves, the socket's sign-in ends or it may no longer
    watch its game."""
    tasks = [
        asyncio.create_task(_send_all(websocket, queue)),
        asyncio.create_task(_drain(websocket)),
        *(asyncio.create_task(event.wait()) for event in ended),
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
