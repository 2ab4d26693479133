"""A push reaches a socket served by another event loop than the broker's (test clients
each run their own loop): asyncio queues are not thread-safe, so delivery goes through
the socket's own loop."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from dicehall.server.infra.push import LocalBroker


def _run_loop_in_thread() -> tuple[asyncio.AbstractEventLoop, threading.Thread]:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    return loop, thread


def test_a_push_and_a_close_order_reach_a_socket_on_another_loop() -> None:
    broker = LocalBroker()
    broker_loop, broker_thread = _run_loop_in_thread()
    socket_loop, socket_thread = _run_loop_in_thread()
    got: list[Any] = []
    subscribed, received, ended = threading.Event(), threading.Event(), threading.Event()

    async def socket() -> None:
        async with broker.subscribe(7, "session:abc") as subscription:
            subscribed.set()
            got.append(await subscription.queue.get())
            received.set()
            await subscription.ended.wait()
            got.append(subscription.reason)
            ended.set()

    try:
        asyncio.run_coroutine_threadsafe(broker.start(), broker_loop).result(10)
        asyncio.run_coroutine_threadsafe(socket(), socket_loop)
        assert subscribed.wait(10)
        broker.publish(7, {"type": "ping"})  # from this third thread
        # A hang guard, not a timing: without the fix the socket's loop is never woken.
        assert received.wait(10), "the push never reached the socket"
        broker.end_credentials(7, ["session:abc"], "signed out")
        assert ended.wait(10), "the close order never reached the socket"
        assert got == [{"type": "ping"}, "signed out"]
    finally:
        for loop, thread in ((broker_loop, broker_thread), (socket_loop, socket_thread)):
            loop.call_soon_threadsafe(loop.stop)
            thread.join(10)
