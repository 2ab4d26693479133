"""The bot driver: plays the turns no person waits for, away from every request.

(Longer than most modules: the loop, its claims and leases, the warm-ups and the decisions
share one state of which games and tables are in hand; apart, each would need the others'.)

A request applies a person's move and then only what is quick and bounded (dice, quick bots,
within a budget). A game left waiting on a slow bot, or with more to play than the budget,
is marked ``bot_due``. Each server process runs one driver: it claims due games with a
lease (so several processes on several machines never play the same turn twice), asks the
bot process pool for slow decisions with a time budget, and commits each slice through the
same versioned transaction as a person's move. Slow bots' tables are built in the pool at
start-up; a bot whose table is not ready yet waits ("warming up"), and a decision that runs
out of time is taken by the bot's declared fallback.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any, TypeVar

from dicehall import games
from dicehall.engine import codec
from dicehall.server.core.clock import now
from dicehall.server.domain import bot_tables
from dicehall.server.domain.dice.pool import PoolEmpty
from dicehall.server.domain.games import bot_turns, ending, play
from dicehall.server.domain.games.bot_turns import BotTurn
from dicehall.server.domain.games.records import GameRecord, SeatInfo
from dicehall.server.domain.ratings import ladder_inactivity
from dicehall.server.domain.services import Services
from dicehall.server.domain.work import notify
from dicehall.server.workers import botwork
from dicehall.server.workers.botstatus import BotStatus, cold_seconds, eta_seconds, options_key
from dicehall.server.workers.buildprogress import BuildProgress
from dicehall.server.workers.procpool import ProcessPool

log = logging.getLogger(__name__)

T = TypeVar("T")

#: How many games one process drives at once, and slices per claim before re-queueing.
PARALLEL_GAMES = 8
SLICES_PER_CLAIM = 50
#: A claim holds a game this long and is renewed a third of the way in while its slice
#: runs: a driver that dies (SIGKILL, a lost machine) leaves the game to others this soon.
LEASE_SECONDS = 15
#: After a failed slice the game waits this long before a driver tries it again.
RETRY_SECONDS = 5
TOP_UP_SECONDS = 5.0
#: How long stopping waits for the driver's tasks to end.
STOP_SECONDS = 10.0
#: A decision that builds its tables may take this many times the declared (idle machine's)
#: cold start: a loaded machine has taken 7 times as long.
COLD_BUDGET = 10
#: How often the ladders' inactivity drops are looked for (they fall due by the week).
LADDER_CHECK_SECONDS = 300.0

WarmKey = bot_tables.WarmKey


class BotDriver(BotStatus):
    """Drives due games in this process; see the module's docstring."""

    def __init__(self, services: Services) -> None:
        settings = services.settings
        self.services = services
        self.decision_seconds = settings.bot_decision_seconds
        self.poll_seconds = settings.driver_poll_seconds
        self._warm_at_start = settings.warm_bots
        #: The worker processes where slow bots decide and their tables are built.
        self.bots = ProcessPool(settings.bot_workers)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self._driving: dict[int, asyncio.Task[None]] = {}
        #: When each table started warming, and which are ready in the pool.
        self._warming: dict[WarmKey, float] = {}
        self._progress = BuildProgress()
        self._warm_queue: list[WarmKey] = []
        self._warm_builds: dict[WarmKey, asyncio.Future[float]] = {}
        self._warms_running = 0
        self._warm_slots = max(1, settings.bot_workers - 1)
        self._warmed: set[WarmKey] = set()
        self._reports: set[asyncio.Task[None]] = set()
        self._next_top_up = 0.0
        self._next_ladder_check = 0.0
        self._stopping = False
        #: Clock sweeps this driver has finished (for metrics: a live sweeper's count grows).
        self.sweeps = 0

    # -- life ---------------------------------------------------------------------------------

    async def start(self) -> None:
        """Start driving; build the slow bots' tables for default options in the pool."""
        self._loop = asyncio.get_running_loop()
        self._progress.open()
        self.bots.bind(self._loop)
        self._wake = asyncio.Event()
        play.listen_bot_due(self.kick)
        self.services.pool.listen_low(self.top_up_soon)
        if self._warm_at_start:
            self.warm_all()
        self._task = asyncio.create_task(self._run(), name="dicehall-bot-driver")

    async def stop(self) -> None:
        """Stop driving and end the bot processes at once (a table build may be running)."""
        play.unlisten_bot_due(self.kick)
        self.services.pool.unlisten_low(self.top_up_soon)
        self._stopping = True
        if self._wake is not None:
            self._wake.set()
        tasks = [t for t in (self._task, *self._driving.values()) if t is not None]
        for task in tasks:
            task.cancel()
        if tasks:
            # A task that missed its cancellation still sees ``_stopping`` at its next step;
            # shutting down never waits longer than this for it.
            _, late = await asyncio.wait(tasks, timeout=STOP_SECONDS)
            for task in late:
                log.warning("%s did not stop within %.0f s", task.get_name(), STOP_SECONDS)
        self.bots.close()
        self._progress.close()

    def load(self) -> tuple[int, int, int]:
        """Games driven now, bot tasks waiting in or running in the pool, and the clock
        sweeps finished so far (for metrics)."""
        return len(self._driving), self.bots.pending, self.sweeps

    def kick(self) -> None:
        """A game may have become due: look now rather than at the next poll (any thread)."""
        loop, wake = self._loop, self._wake
        if loop is None or wake is None or loop.is_closed():
            return
        loop.call_soon_threadsafe(wake.set)

    def top_up_soon(self) -> None:
        """The dice pool runs low: top it up in the next round, not at the next period
        (any thread)."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        loop.call_soon_threadsafe(self._top_up_next_round)

    def _top_up_next_round(self) -> None:
        self._next_top_up = 0.0
        if self._wake is not None:
            self._wake.set()

    # -- warming ------------------------------------------------------------------------------

    def warm_all(self) -> None:
        """Build, in the pool, every slow bot's tables for its game's default options, the
        quickest first (so most bots are ready in seconds, not after the longest build).
        Every installed game's slow bots, a plug-in's included."""
        queue: list[tuple[float, WarmKey]] = []
        for kind in games.available():
            entry = games.get(kind)
            options = options_key(codec.encode(entry.game.options({})))
            for bot, slow in entry.slow_bots.items():
                queue.append((slow.cold_seconds, (kind, bot, options)))
        self._warm_queue.extend(key for _, key in sorted(queue))
        self._pump_warm()

    def _pump_warm(self) -> None:
        # Builds take at most all workers but one, so decisions never queue behind them.
        while self._warm_queue and self._warms_running < self._warm_slots:
            key = self._warm_queue.pop(0)
            if key not in self._warmed and key not in self._warming:
                self._warm(key)

    def _warm(self, key: WarmKey) -> None:
        self._warming[key] = time.monotonic()
        self._report(bot_tables.started, key)
        self._warms_running += 1
        future = self._submit(botwork.warm, *key, self._progress.path(key))
        self._warm_builds[key] = future

        def done(task: asyncio.Future[float]) -> None:
            self._warms_running -= 1
            self._warm_builds.pop(key, None)
            self._forget_warming(key)
            self._pump_warm()
            if task.cancelled() or task.exception() is not None:
                log.warning(
                    "warming %s failed: %s", key[:2], None if task.cancelled() else task.exception()
                )
                return
            self._warmed.add(key)
            self._report(bot_tables.ready, key)
            log.info("bot %s of %s ready in %.1f s", key[1], key[0], task.result())
            self.kick()

        future.add_done_callback(done)

    def status(self, kind: str, bot: str, options: Any) -> dict[str, Any]:
        """Whether a slow bot is warming up for these (encoded) options, and about how long
        is left."""
        key = (kind, bot, options_key(options))
        if key in self._warmed:
            return {"warming_up": False, "eta_s": None}
        started = self._warming.get(key)
        elapsed = 0.0 if started is None else time.monotonic() - started
        progress = None if started is None else self._progress.left_s(key)
        left = eta_seconds(cold_seconds(kind, bot), elapsed, progress)
        return {"warming_up": True, "eta_s": left}

    # -- the loop -----------------------------------------------------------------------------

    async def _run(self) -> None:
        assert self._wake is not None
        while not self._stopping:
            # asyncio.timeout, not wait_for: Python 3.11's wait_for swallows a cancellation
            # that arrives as the wait ends, which left shutdown waiting on this loop forever.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.poll_seconds):
                    await self._wake.wait()
            if self._stopping:
                return
            self._wake.clear()
            try:
                await self._round()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("the bot driver's round failed; it goes on")

    async def _round(self) -> None:
        self._tell_progress()
        if time.monotonic() >= self._next_top_up:
            self._next_top_up = time.monotonic() + TOP_UP_SECONDS
            await self._top_up()
        try:
            await self._sweep()
        except Exception:
            log.exception("sweeping for clocks that ran out failed; the next round tries again")
        self.sweeps += 1
        if time.monotonic() >= self._next_ladder_check:
            self._next_ladder_check = time.monotonic() + LADDER_CHECK_SECONDS
            try:
                await self._ladder_drops()
            except Exception:
                log.exception("the ladders' inactivity drops failed; the next check tries again")
        room = PARALLEL_GAMES - len(self._driving)
        if room <= 0:
            return
        due = await self._read(lambda conn: bot_turns.due_games(conn, now(), room * 2))
        for game_id in due:
            if len(self._driving) >= PARALLEL_GAMES:
                return
            if game_id in self._driving or not await self._claim(game_id):
                continue
            task = asyncio.create_task(self._drive(game_id), name=f"drive-game-{game_id}")
            self._driving[game_id] = task
            task.add_done_callback(functools.partial(self._forget, game_id))

    async def _sweep(self) -> None:
        # Clocks that ran out and reminders due: a cheap read first, the write only when
        # there is work (every process sweeps; each game is applied once, under its lock).
        moment = now()
        if not await self._read(lambda conn: ending.work_due(conn, moment)):
            return
        pool = self.services.pool

        def sweep(conn: Any) -> list[tuple[GameRecord, list[SeatInfo]]]:
            ending.remind(conn, moment)
            return ending.sweep(conn, pool, moment)

        changed = await self._write(sweep)
        for record, seats in changed:
            log.info("game %s: a clock ran out (now %s)", record.id, record.status)
            notify(self.services, record, seats)
        if changed:
            self.kick()

    async def _ladder_drops(self) -> None:
        # Like the sweep: a cheap read, and the write only when a drop is due (every
        # process checks; the job's lock and dropped_at make each drop happen once).
        moment = now()
        if not await self._read(lambda conn: ladder_inactivity.work_due(conn, moment)):
            return
        dropped = await self._write(lambda conn: ladder_inactivity.apply_inactivity(conn, moment))
        log.info("ladders: %s inactivity drops", dropped)

    def _forget(self, game_id: int, _task: asyncio.Task[None]) -> None:
        self._driving.pop(game_id, None)

    async def _claim(self, game_id: int) -> bool:
        def claim(conn: Any) -> bool:
            moment = now()
            return bot_turns.claim_game(
                conn, game_id, moment, moment + timedelta(seconds=LEASE_SECONDS)
            )

        return await self._write(claim)

    async def _keep_lease(self, game_id: int) -> None:
        while True:
            await asyncio.sleep(LEASE_SECONDS / 3)

            def renew(conn: Any) -> bool:
                moment = now()
                until = moment + timedelta(seconds=LEASE_SECONDS)
                return bot_turns.renew_game(conn, game_id, moment, until)

            with contextlib.suppress(Exception):  # the next renewal, or the lease's end
                await self._write(renew)

    async def _drive(self, game_id: int) -> None:
        keeper = asyncio.create_task(self._keep_lease(game_id), name=f"lease-{game_id}")
        try:
            await self._drive_slices(game_id)
        finally:
            keeper.cancel()

    async def _drive_slices(self, game_id: int) -> None:
        try:
            for slice_number in range(SLICES_PER_CLAIM):
                if self._stopping:
                    return
                # Each committed slice ends the lease (the game is free to any driver again).
                if slice_number and not await self._claim(game_id):
                    return
                result = await self._slice(game_id)
                if result is None:
                    await self._write(functools.partial(bot_turns.release_game, game_id=game_id))
                    return
                record, seats = result
                notify(self.services, record, seats)
                if not record.bot_due:
                    return
            self.kick()
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("driving game %s failed; it is tried again shortly", game_id)
            with contextlib.suppress(Exception):
                await self._write(
                    functools.partial(
                        bot_turns.hold_game,
                        game_id=game_id,
                        until=now() + timedelta(seconds=RETRY_SECONDS),
                    )
                )

    async def _slice(self, game_id: int) -> tuple[GameRecord, list[SeatInfo]] | None:
        turn = await self._read(functools.partial(bot_turns.slow_bot_turn, game_id=game_id))
        decided = None if turn is None else (turn.seat, await self._decide(turn))
        work = functools.partial(
            bot_turns.drive,
            pool=self.services.pool,
            game_id=game_id,
            version=None if turn is None else turn.version,
            decided=decided,
        )
        for attempt in range(3):
            try:
                return await self._write(work)
            except PoolEmpty:
                if attempt == 2:
                    raise
                await self._top_up()
        raise AssertionError("unreachable")  # pragma: no cover

    async def _decide(self, turn: BotTurn) -> Any:
        game = games.get(turn.kind)
        key = (turn.kind, turn.bot, options_key(json.loads(turn.options)))
        building = self._warm_builds.get(key)
        if building is not None:
            # Its tables are being built in another worker: wait rather than build them twice.
            with contextlib.suppress(Exception):
                await asyncio.shield(building)
        elif key in self._warm_queue:
            self._warm_queue.remove(key)  # this decision builds them
        cold = key not in self._warmed
        if cold and key not in self._warming:
            self._warming[key] = time.monotonic()
            self._report(bot_tables.started, key)
        slow = game.slow_bots[turn.bot]
        budget = self.decision_seconds + (slow.cold_seconds * COLD_BUDGET if cold else 0)
        try:
            async with asyncio.timeout(budget):
                chosen = await self._submit(
                    botwork.decide,
                    turn.kind,
                    turn.bot,
                    turn.state,
                    turn.seat,
                    self._progress.path(key) if cold else None,
                )
            self._forget_warming(key)
            if cold:
                self._warmed.add(key)
                self._report(bot_tables.ready, key)
        except TimeoutError:
            log.warning(
                "bot %s of %s took over %.0f s; %s decides instead",
                turn.bot,
                turn.kind,
                budget,
                slow.fallback,
            )
            chosen = await asyncio.to_thread(
                botwork.decide, turn.kind, slow.fallback, turn.state, turn.seat
            )
        return codec.loads(chosen, game.game.action_type)

    # -- progress of table builds -------------------------------------------------------------

    def _tell_progress(self) -> None:
        # For web processes without bot workers: the builds' progress, when it moved.
        for key, fraction in self._progress.moved(list(self._warming)):
            left = self._progress.left_s(key)
            told = functools.partial(bot_tables.progressed, fraction=fraction, left_s=left)
            self._report(told, key)

    def _forget_warming(self, key: WarmKey) -> None:
        self._warming.pop(key, None)
        self._progress.forget(key)

    # -- plumbing -----------------------------------------------------------------------------

    def _report(self, what: Callable[[Any, WarmKey, Any], None], key: WarmKey) -> None:
        # For web processes without bot workers: a lost report only makes an estimate stale.
        async def report() -> None:
            try:
                await self._write(lambda conn: what(conn, key, now()))
            except Exception:
                log.warning("could not report %s of %s: %s", what.__name__, key[:2], exc_info=True)

        task = asyncio.get_running_loop().create_task(report())
        self._reports.add(task)
        task.add_done_callback(self._reports.discard)

    def _submit(self, fn: Callable[..., T], *args: Any) -> asyncio.Future[T]:
        return self.bots.submit(fn, *args)

    async def _read(self, work: Callable[[Any], T]) -> T:
        def run() -> T:
            with self.services.read_conn() as conn:
                return work(conn)

        return await asyncio.to_thread(run)

    async def _write(self, work: Callable[[Any], T]) -> T:
        def run() -> T:
            with self.services.write_conn() as conn:
                return work(conn)

        return await asyncio.to_thread(run)

    async def _top_up(self) -> None:
        services = self.services
        await asyncio.to_thread(services.pool.top_up, services.read_conn, services.write_conn)
