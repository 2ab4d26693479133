"""The site's periodic jobs beside the bot driver: the auto-matcher, the tournaments' rounds
and their schedule (``site_jobs``), and the deliveries of notices (``deliveries``).

Every server process runs one :class:`SiteJobs`, which runs the jobs the domain declares
(:mod:`dicehall.server.domain.jobs`) in a worker thread, never on the event loop: each at
its period, or at once when something announces work for it (a ticket filed, a tournament
game ended).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from dicehall.server.core.clock import now
from dicehall.server.core.config import Settings
from dicehall.server.domain import jobs as declared
from dicehall.server.domain.jobs import Job
from dicehall.server.domain.services import Services

log = logging.getLogger(__name__)


def default_jobs(settings: Settings) -> list[Job]:
    """Every job the site runs (each declared by the module whose work it does, its period
    from ``settings``)."""
    # Imported here: the server's start imports this module, the jobs' modules much more.
    from dicehall.server.domain.automatch import matcher
    from dicehall.server.domain.notices import delivery
    from dicehall.server.domain.tournaments import job as tournaments
    from dicehall.server.domain.tournaments import schedule

    return [
        matcher.job(settings),
        Job(tournaments.NAME, settings.tournament_seconds, tournaments.run),
        Job(schedule.NAME, schedule.PERIOD, schedule.run),
        delivery.job(settings.delivery_seconds),
    ]


def runs_here(settings: Settings, name: str) -> bool:
    """Whether this process runs job ``name`` periodically: the deliveries by the setting
    ``deliveries``, the others by ``site_jobs`` (every job may still be run by hand)."""
    from dicehall.server.domain.notices.outbox import JOB as DELIVERIES

    return settings.deliveries if name == DELIVERIES else settings.site_jobs


class SiteJobs:
    """Runs every registered job in this process; see the module's docstring."""

    def __init__(self, services: Services, jobs: list[Job] | None = None) -> None:
        self.services = services
        self.jobs = default_jobs(services.settings) if jobs is None else jobs
        #: The jobs this process runs at their period (and when work is announced).
        self.periodic = [job for job in self.jobs if runs_here(services.settings, job.name)]
        self._next: dict[str, float] = {job.name: 0.0 for job in self.jobs}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self._stopping = False

    async def start(self) -> None:
        """Start running the jobs (each runs once at once, then at its period)."""
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        declared.listen(self.kick)
        self._task = asyncio.create_task(self._run(), name="dicehall-site-jobs")

    async def stop(self) -> None:
        """Stop; a job running in its thread finishes its transaction on its own."""
        declared.unlisten(self.kick)
        self._stopping = True
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task

    def kick(self, name: str) -> None:
        """Run job ``name`` in the next round (any thread)."""
        loop, wake = self._loop, self._wake
        if loop is None or wake is None or loop.is_closed():
            return
        if all(job.name != name for job in self.periodic):
            return

        def due_now() -> None:
            self._next[name] = 0.0
            wake.set()

        loop.call_soon_threadsafe(due_now)

    async def run_once(self, name: str) -> int:
        """Run job ``name`` now (tests and the command line)."""
        job = next(j for j in self.jobs if j.name == name)
        return await asyncio.to_thread(job.run, self.services, now())

    async def _run(self) -> None:
        assert self._wake is not None
        while not self._stopping:
            for job in self.periodic:
                if self._stopping:
                    return
                if time.monotonic() < self._next[job.name]:
                    continue
                self._next[job.name] = time.monotonic() + job.period
                try:
                    done = await asyncio.to_thread(job.run, self.services, now())
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.exception("site job %s failed; its next run tries again", job.name)
                    continue
                if done:
                    log.info("site job %s: %s done", job.name, done)
            wait = min((self._next[j.name] for j in self.periodic), default=60.0)
            wait -= time.monotonic()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(max(0.05, wait)):
                    await self._wake.wait()
            self._wake.clear()
