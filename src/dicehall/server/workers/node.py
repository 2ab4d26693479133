"""``dicehall worker``: a process that only runs the site's background work (bots' turns,
clocks and reminders, the periodic site jobs), on this machine or another, beside web
processes started with ``dicehall serve --no-background``."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal

from dicehall.server.core.config import Settings
from dicehall.server.domain.services import build_services
from dicehall.server.workers.background import Background

log = logging.getLogger(__name__)


async def run(settings: Settings, stop: asyncio.Event) -> None:
    """Run the background work until ``stop`` is set."""
    services = await asyncio.to_thread(build_services, settings)
    await services.broker.start()
    background = Background(services)
    await background.start()
    log.info("worker running: %s bot processes", settings.bot_workers)
    try:
        await stop.wait()
    finally:
        log.info("worker stopping")
        await background.stop()
        await services.broker.stop()
        services.engine.dispose()


def main(settings: Settings) -> None:
    """Run a worker until SIGTERM or SIGINT (Ctrl-C)."""

    async def until_signalled() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError):  # not on Windows
                loop.add_signal_handler(signum, stop.set)
        await run(settings, stop)

    asyncio.run(until_signalled())
