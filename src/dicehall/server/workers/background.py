"""What a process runs besides requests: the bot driver, the periodic site jobs and, on
PostgreSQL, the wake-ups other processes commit.

Every ``dicehall serve`` process runs it by default; ``dicehall serve --no-background``
leaves it to ``dicehall worker`` processes (on the same machine or others), and then web
processes need no bot workers of their own. Every part is safe with several processes on
several machines: games are claimed under a lease, each job under its own lock.
"""

from __future__ import annotations

from dicehall.server.core.db import is_sqlite
from dicehall.server.domain.services import Services
from dicehall.server.workers.driver import BotDriver
from dicehall.server.workers.jobs import SiteJobs
from dicehall.server.workers.wakeups import WakeUps


class Background:
    """The bot driver, the site jobs and the wake-up listener of one process."""

    def __init__(self, services: Services, jobs: SiteJobs | None = None) -> None:
        self.services = services
        self.driver = BotDriver(services)
        self.jobs = jobs or SiteJobs(services)
        engine = services.engine
        self.wakeups = None if is_sqlite(engine) else WakeUps(services.settings.db_url)

    async def start(self) -> None:
        """Start driving games and running jobs."""
        await self.driver.start()
        if self.jobs.periodic:
            await self.jobs.start()
        if self.wakeups is not None:
            self.wakeups.start()

    async def stop(self) -> None:
        """Stop everything (a bot's table build is ended at once)."""
        if self.wakeups is not None:
            self.wakeups.stop()
        await self.jobs.stop()
        await self.driver.stop()
