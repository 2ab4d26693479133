"""Whether a slow bot is warming up, as a game's payload says it: told by this process's
bot driver, or, in a web process that leaves bots to ``dicehall worker`` processes, read
from what those workers report (:mod:`dicehall.server.domain.bot_tables`)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from abc import ABC, abstractmethod
from datetime import datetime
from typing import Any, TypeVar

from dicehall import games
from dicehall.server.core.clock import now
from dicehall.server.domain import bot_tables
from dicehall.server.domain.games.payloads import GamePayload
from dicehall.server.domain.services import Services

P = TypeVar("P", bound=GamePayload)

log = logging.getLogger(__name__)

#: How often a web process without bot workers reads the workers' reports.
REFRESH_SECONDS = 2.0


def options_key(encoded: Any) -> str:
    """Options (as the codec encodes them) in one canonical JSON text."""
    return json.dumps(encoded, sort_keys=True, separators=(",", ":"))


def cold_seconds(kind: str, bot: str) -> float:
    """About how long the bot's tables take to build, as its game declares."""
    slow = games.get(kind).slow_bots.get(bot)
    return slow.cold_seconds if slow is not None else 0.0


class BotStatus(ABC):
    """Says whether slow bots are warming up; see the module's docstring."""

    @abstractmethod
    def status(self, kind: str, bot: str, options: Any) -> dict[str, Any]:
        """``{"warming_up": bool, "eta_s": seconds or None}`` for a slow bot with these
        (encoded) options."""

    @abstractmethod
    def load(self) -> tuple[int, int, int]:
        """Games driven now, bot tasks waiting in or running in the pool, and the clock
        sweeps finished so far (for metrics)."""

    def describe(self, payload: P) -> P:
        """A game payload with its ``bot_turn`` telling whether a slow bot is warming up."""
        turn = payload["bot_turn"]
        if turn and turn.get("slow"):
            status = self.status(payload["game"], turn["bot"], payload["options"])
            payload["bot_turn"] = {**turn, **status}
        elif turn:
            payload["bot_turn"] = {**turn, "warming_up": False, "eta_s": None}
        return payload


class ReportedBotStatus(BotStatus):
    """The bot workers' reports, read every :data:`REFRESH_SECONDS` off the event loop."""

    def __init__(self, services: Services) -> None:
        self.services = services
        self._reports: dict[bot_tables.WarmKey, bot_tables.Warmth] = {}
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Read the reports now, then every few seconds."""
        await self._refresh()
        self._task = asyncio.create_task(self._run(), name="dicehall-bot-status")

    async def stop(self) -> None:
        """Stop reading."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    def load(self) -> tuple[int, int, int]:
        """Games driven, bot tasks waiting or running, clock sweeps: none in this process."""
        return 0, 0, 0

    def status(self, kind: str, bot: str, options: Any) -> dict[str, Any]:
        """See :meth:`BotStatus.status`: ready once any worker had the tables; otherwise the
        declared build time less the time since a worker started building them."""
        report = self._reports.get((kind, bot, options_key(options)))
        if report is not None and report.ready_at is not None:
            return {"warming_up": False, "eta_s": None}
        return {"warming_up": True, "eta_s": eta(kind, bot, report, now())}

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(REFRESH_SECONDS)
            await self._refresh()

    async def _refresh(self) -> None:
        def read() -> dict[bot_tables.WarmKey, bot_tables.Warmth]:
            with self.services.read_conn() as conn:
                return bot_tables.every(conn)

        try:
            self._reports = await asyncio.to_thread(read)
        except Exception as exc:
            log.warning("could not read the bot workers' reports: %s", exc)


def eta(kind: str, bot: str, report: bot_tables.Warmth | None, moment: datetime) -> int:
    """Seconds until a bot's tables should be ready (at least 1)."""
    if report is None:
        return eta_seconds(cold_seconds(kind, bot), 0.0, None)
    elapsed = (moment - report.started_at).total_seconds()
    left = None
    if report.left_s is not None and report.told_at is not None:
        left = report.left_s - (moment - report.told_at).total_seconds()
    return eta_seconds(cold_seconds(kind, bot), elapsed, left)


def eta_seconds(cold: float, elapsed: float, left: float | None) -> int:
    """Seconds left of a build ``elapsed`` seconds in: what its own progress says is left
    (``left``), else the game's declared cold start less the time spent; at least 1."""
    if left is not None:
        return max(1, round(left))
    return max(1, round(cold - elapsed))
