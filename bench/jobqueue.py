"""Two PostgreSQL job engines for the site's background work (issue 34), interleaved; prints one
JSON object.

(Longer than most modules: two engines driven through the same moves, workers and edge
checks, with the CPU of workers and PostgreSQL backends counted alike, side by side.)

    python bench/jobqueue.py [--rounds 3] [--jobs 2000] [--games 100] [--concurrency 4]
                             [--rate 50] [--latency-jobs 100] [--seed 34] [--no-checks]

Needs Procrastinate and PgQueuer, which dicehall does not depend on: install them into any
venv (``pip install procrastinate pgqueuer asyncpg 'psycopg[binary,pool]'``) and run the file
with that venv's python. It imports nothing of dicehall. It needs the local PostgreSQL
(127.0.0.1:5432, user ``postgres``, trust): each engine gets a fresh database
(``jq_bench_proc``, ``jq_bench_pgq``; the floor ``jq_bench_floor``), dropped at the end.

A *move* is a short transaction on a psycopg 3 connection with autocommit off (as SQLAlchemy
holds them): it inserts one row of ours (``moves``: the game, the move's number in that game),
enqueues one job on the same connection, and commits, so the job commits or rolls back with
the move. Procrastinate takes that connection through ``configure(connection=...)``, with
``lock=game:<n>`` (a game's jobs one at a time, in order). PgQueuer's ``SyncQueries`` takes it
through a four-line driver (its own ``SyncPsycopgDriver`` refuses a connection whose autocommit
is off); PgQueuer has no per-key lock, so its jobs carry none. A job stamps its move's row: when
it started, its worker, and how many moves of its game had started before it, which a game's
moves run one at a time and in order make equal to the move's number (``runs.out_of_order``
counts the jobs for which it is not). Each move's game is drawn at random (seeded) from
``--games``.

Every round runs the floor and then both engines, their order alternating from round to round.
For each engine:

- ``defer``: ``--jobs`` moves one after another on one connection, no worker running. Per
  move: the latency of the whole transaction (``tx_*``: insert, enqueue, commit), of the commit
  and of the enqueue call alone, and the CPU of the client process (``time.process_time``) and
  of its PostgreSQL backend (``/proc/<pid>/schedstat``); ``total_cpu_ms_per`` adds the two.
  ``floor`` is the same move with no job (a database of its own), once a round;
  ``defer_over_floor`` is an engine's figure less the floor's: what enqueueing adds to a move.
  With ``synchronous_commit`` on, the commit waits for a WAL flush, so on a shared machine the
  latencies follow the disk more than the engine: the CPU figures are the steadier ones.
- ``drain_1w``, then ``drain_2w``: one worker process runs the first half of that backlog, then
  two run the rest; each runs ``--concurrency`` jobs at a time and was started and connected
  (fixed-size pools) before the clock starts. ``jobs_per_s``: from the go to the moment the
  engine's table holds no more than the half (then nothing) unfinished, polled every ``POLL_S``;
  CPU per job: the worker processes' (``/proc/<pid>/stat``, every thread) and their PostgreSQL
  backends' (every client backend of the database but the bench's own two, from ``schedstat``;
  ``backends_exited`` counts any that exited meanwhile, whose CPU is lost). The engine's work
  on PostgreSQL (its functions, triggers, NOTIFY) runs in those backends; the WAL writer,
  checkpointer and autovacuum are not counted. The tables are analysed before the first.
- ``latency``: the two workers still running and idle, ``--latency-jobs`` moves at ``--rate``
  a second; from the client's commit returning to the job's start (both ``time.time()``, same
  machine), p50/p99/max ms: the LISTEN/NOTIFY path.

Engine settings, defaults unless named: Procrastinate's worker ``run_worker_async(concurrency)``
on a ``PsycopgConnector`` pool of ``concurrency + 3`` (LISTEN, fetch, finish, heartbeat),
finished jobs kept (``delete_jobs`` never); PgQueuer's ``QueueManager.run`` (no scheduler) on
one asyncpg connection (its main driver; ``checks.pgqueuer.psycopg_driver`` measures its
psycopg one), ``batch_size = concurrency // 2``, ``max_concurrent_tasks = concurrency`` (it
wants at least twice the batch). Either worker runs its job on a psycopg pool of its own,
``concurrency`` connections.

Each figure is the median of the rounds (``rounds_detail`` gives some of each round's; the
counts in ``runs`` are totals); ``ratios`` are PgQueuer's medians over Procrastinate's.
``loadavg_*`` shows how busy the machine was besides. ``checks`` (once, before the rounds)
records what the engines do at the edges: a rolled-back move leaves no job; an enqueue
conflicting on a unique key (Procrastinate's ``queueing_lock``, PgQueuer's ``dedupe_key``)
inside the move's transaction, without and with a savepoint (and PgQueuer's
``on_conflict="skip"``); a Procrastinate job scheduled for later holding back its lock's later
jobs (read with its own fetch function); ``chain``: an idle worker, and a game's jobs each
deferring the game's next one (in its own transaction, before it returns, as a bot turn would
defer the next seat's), the gaps between their starts; ``sigkill``: a worker SIGKILLed in the
middle of a job (move A) with the game's next move (B) queued (a stall threshold of
``STALL_S``, where both engines default to 30 s), how A comes back and after how
long, whether B waited (``b_started_after_a_rerun``: 1 when B's job started after A's second
start); PgQueuer's psycopg driver on a small backlog.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import logging
import os
import random
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from datetime import UTC, datetime, timedelta
from importlib import metadata
from pathlib import Path
from typing import Any

import psycopg
from psycopg.rows import dict_row

PG = "postgresql://postgres@127.0.0.1:5432/"
TASK = "apply_move"
TICKS = os.sysconf("SC_CLK_TCK")
NS_PER_TICK = 1_000_000_000 // TICKS
#: Seconds between two looks at whether a drain is over.
POLL_S = 0.02
#: Seconds a drain or a wait may last before the run gives up.
DEADLINE_S = 300.0
#: The stall threshold of the SIGKILL checks (shorter than the engines' 30 s defaults).
STALL_S = 2.0
#: PgQueuer's dequeue timeout in the SIGKILL check (default 30 s): when an idle worker looks
#: again, and so re-picks a job whose heartbeat went stale.
PGQ_DEQUEUE_S = 5.0
#: The defer figures given less the floor's.
OVER_FLOOR = (
    "tx_p50_ms",
    "commit_p50_ms",
    "client_cpu_ms_per",
    "backend_cpu_ms_per",
    "total_cpu_ms_per",
)
#: The jobs of the chain check, each deferred by the one before.
CHAIN = 4
#: The backlog of the check of PgQueuer's psycopg driver.
PSYCOPG_DRIVER_JOBS = 20

MOVES = """
CREATE TABLE moves (
    id bigserial PRIMARY KEY,
    game integer NOT NULL,
    seq integer NOT NULL,
    hang boolean NOT NULL DEFAULT false,
    chain integer NOT NULL DEFAULT 0,
    tries integer NOT NULL DEFAULT 0,
    started double precision,
    worker integer,
    before integer
);
CREATE INDEX moves_game ON moves (game);
"""
INSERT = "INSERT INTO moves (game, seq, hang, chain) VALUES (%s, %s, %s, %s) RETURNING id"
#: The job: stamp the move; ``before`` is how many moves of its game had started before it.
APPLY = """
UPDATE moves SET tries = tries + 1, started = %(started)s, worker = %(worker)s,
    before = (SELECT count(*) FROM moves m
              WHERE m.game = moves.game AND m.started IS NOT NULL AND m.id <> moves.id)
WHERE id = %(id)s RETURNING tries, hang, chain, game, seq
"""


# -- the engines, client side ------------------------------------------------------------------


class TxDriver:
    """PgQueuer's ``SyncDriver`` (one method, ``fetch``) on a connection inside the caller's
    transaction: PgQueuer's own ``SyncPsycopgDriver`` refuses a connection whose autocommit
    is off, which is how SQLAlchemy holds them."""

    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self.conn = conn

    def fetch(self, query: str, *args: object) -> list[dict[str, Any]]:
        cursor = psycopg.RawCursor(self.conn, row_factory=dict_row)
        cursor.execute(query, args or None)
        return cursor.fetchall()


class Procrastinate:
    name = "procrastinate"
    db = "jq_bench_proc"
    tables = "procrastinate_jobs, procrastinate_events, procrastinate_periodic_defers"
    pending = "SELECT count(*) FROM procrastinate_jobs WHERE status IN ('todo', 'doing')"
    failed = "SELECT count(*) FROM procrastinate_jobs WHERE status = 'failed'"
    analyze = "ANALYZE moves, procrastinate_jobs"

    def __init__(self, url: str) -> None:
        import procrastinate  # type: ignore[import-not-found,unused-ignore]

        # Never opened: with ``connection=`` a defer runs on that connection, not a pool.
        self.app: Any = procrastinate.App(
            connector=procrastinate.SyncPsycopgConnector(conninfo=url)
        )
        self.url = url

    def install(self) -> None:
        with self.app.open():
            self.app.schema_manager.apply_schema()

    def enqueue(self, conn: psycopg.Connection[Any], move: int, game: int, **options: Any) -> None:
        self.app.configure_task(TASK, lock=f"game:{game}", connection=conn, **options).defer(
            move_id=move
        )


class PgQueuer:
    name = "pgqueuer"
    db = "jq_bench_pgq"
    tables = "pgqueuer, pgqueuer_log, pgqueuer_statistics"
    pending = "SELECT count(*) FROM pgqueuer WHERE status IN ('queued', 'picked')"
    failed = "SELECT count(*) FROM pgqueuer_log WHERE status IN ('exception', 'failed')"
    analyze = "ANALYZE moves, pgqueuer"

    def __init__(self, url: str) -> None:
        from pgqueuer.adapters.persistence import qb  # type: ignore[import-not-found,unused-ignore]
        from pgqueuer.queries import SyncQueries  # type: ignore[import-not-found,unused-ignore]

        self.sync_queries: Any = SyncQueries
        # Built once: its settings come from the environment (pydantic-settings).
        self.builder: Any = qb.QueryQueueBuilder()
        self.url = url

    def install(self) -> None:
        async def install() -> None:
            from pgqueuer.db import PsycopgDriver  # type: ignore[import-not-found,unused-ignore]
            from pgqueuer.queries import Queries  # type: ignore[import-not-found,unused-ignore]

            conn = await psycopg.AsyncConnection.connect(self.url, autocommit=True)
            async with conn:
                await Queries(PsycopgDriver(conn)).install()

        asyncio.run(install())

    def enqueue(self, conn: psycopg.Connection[Any], move: int, game: int, **options: Any) -> None:
        queries = self.sync_queries(driver=TxDriver(conn), qbq=self.builder)
        queries.enqueue(TASK, str(move).encode(), **options)


Engine = Procrastinate | PgQueuer
WORKER_ENGINES = ("pgqueuer", "pgqueuer-psycopg", "procrastinate")


# -- the workers (this file run with --worker) ---------------------------------------------------


async def run_worker(engine: str, url: str, concurrency: int, stall_s: float | None) -> None:
    """Connect, say ``ready``, run on ``go``, stop gracefully on ``stop`` (lines on stdin)."""
    from psycopg_pool import AsyncConnectionPool  # type: ignore[import-not-found,unused-ignore]

    logging.getLogger("procrastinate").setLevel(logging.ERROR)
    pool: Any = AsyncConnectionPool(
        url, min_size=concurrency, max_size=concurrency, kwargs={"autocommit": True}, open=False
    )
    await pool.open(wait=True)

    #: Enqueue a move on a connection in a transaction (each engine's, below).
    enqueue_next: Callable[[Any, int, int], Awaitable[None]]

    async def apply(move: int) -> None:
        started = time.time()
        async with pool.connection() as conn:
            cursor = await conn.execute(
                APPLY, {"started": started, "worker": os.getpid(), "id": move}
            )
            row = await cursor.fetchone()
            assert row is not None
            tries, hang, chain, game, seq = row
            if chain > 0:  # the chain check: the game's next move, deferred by this job
                async with conn.transaction():
                    cursor = await conn.execute(INSERT, (game, seq + 1, False, chain - 1))
                    following = await cursor.fetchone()
                    await enqueue_next(conn, int(following[0]), int(game))
        if tries == 1 and hang:
            await asyncio.sleep(3600)  # the SIGKILL check's job: hangs on its first try

    async def line() -> str:
        return str(await asyncio.to_thread(sys.stdin.readline)).strip()

    runner: asyncio.Task[Any]
    if engine == "procrastinate":
        import procrastinate  # type: ignore[import-not-found,unused-ignore]

        app: Any = procrastinate.App(
            connector=procrastinate.PsycopgConnector(
                conninfo=url, min_size=concurrency + 3, max_size=concurrency + 3
            )
        )

        @app.task(name=TASK)  # type: ignore[untyped-decorator,unused-ignore]
        async def apply_move(move_id: int) -> None:
            await apply(move_id)

        async def proc_enqueue(conn: Any, move: int, game: int) -> None:
            deferrer = app.configure_task(TASK, lock=f"game:{game}", connection=conn)
            await deferrer.defer_async(move_id=move)

        enqueue_next = proc_enqueue

        await app.open_async()
        options: dict[str, Any] = {"concurrency": concurrency, "install_signal_handlers": False}
        if stall_s is not None:
            options["update_heartbeat_interval"] = stall_s / 4
        print("ready", flush=True)
        await line()
        runner = asyncio.create_task(app.run_worker_async(**options))
        await line()
        runner.cancel()  # graceful: waits for the running jobs
        with contextlib.suppress(asyncio.CancelledError):
            await runner
        await app.close_async()
    else:
        from pgqueuer import PgQueuer as Pgq  # type: ignore[import-not-found,unused-ignore]

        pgq: Any
        if engine == "pgqueuer":
            import asyncpg  # type: ignore[import-not-found,import-untyped,unused-ignore]

            conn: Any = await asyncpg.connect(url)
            pgq = Pgq.from_asyncpg_connection(conn)
        else:  # pgqueuer-psycopg: its psycopg driver, one connection for LISTEN and queries
            conn = await psycopg.AsyncConnection.connect(url, autocommit=True)
            pgq = Pgq.from_psycopg_connection(conn)

        @pgq.entrypoint(TASK)  # type: ignore[untyped-decorator,unused-ignore]
        async def apply_move_entry(job: Any) -> None:
            await apply(int(job.payload))

        async def pgq_enqueue(conn: Any, move: int, game: int) -> None:
            from pgqueuer.db import PsycopgDriver  # type: ignore[import-not-found,unused-ignore]
            from pgqueuer.queries import Queries  # type: ignore[import-not-found,unused-ignore]

            await Queries(PsycopgDriver(conn)).enqueue(TASK, str(move).encode())

        enqueue_next = pgq_enqueue

        batch = max(1, concurrency // 2)
        run_options: dict[str, Any] = {
            "batch_size": batch,
            "max_concurrent_tasks": max(concurrency, 2 * batch),
        }
        if stall_s is not None:
            run_options["heartbeat_timeout"] = timedelta(seconds=stall_s)
            run_options["dequeue_timeout"] = timedelta(seconds=PGQ_DEQUEUE_S)
        print("ready", flush=True)
        await line()
        runner = asyncio.create_task(pgq.qm.run(**run_options))
        await line()
        pgq.shutdown.set()  # graceful: the running jobs finish
        await runner
        await conn.close()
    await pool.close()


class Workers:
    """Worker processes of one engine, connected and waiting for ``go``."""

    def __init__(
        self, engine: str, url: str, count: int, concurrency: int, stall_s: float | None = None
    ) -> None:
        command = [sys.executable, __file__, "--worker", engine, "--url", url]
        command += ["--concurrency", str(concurrency)]
        if stall_s is not None:
            command += ["--stall-s", str(stall_s)]
        self.procs = [
            subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            for _ in range(count)
        ]
        for proc in self.procs:
            assert proc.stdout is not None
            if proc.stdout.readline().strip() != "ready":
                raise RuntimeError(f"a {engine} worker did not start")

    def _tell(self, word: str) -> None:
        for proc in self.procs:
            if proc.poll() is None and proc.stdin is not None:
                proc.stdin.write(word + "\n")
                proc.stdin.flush()

    def go(self) -> None:
        self._tell("go")

    def cpu_ns(self) -> int:
        """User + system CPU of the workers so far, every thread (clock ticks)."""
        total = 0
        for proc in self.procs:
            fields = Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) * NS_PER_TICK
        return total

    def kill(self) -> None:
        for proc in self.procs:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()

    def stop(self) -> None:
        self._tell("stop")
        for proc in self.procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


# -- measuring -----------------------------------------------------------------------------------


def backend_ns(pid: int) -> int | None:
    """CPU nanoseconds a (single-threaded) PostgreSQL backend has run; None once it is gone."""
    try:
        return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0])
    except OSError:
        return None


def backend_pid(conn: psycopg.Connection[Any]) -> int:
    row = conn.execute("SELECT pg_backend_pid()").fetchone()
    assert row is not None
    return int(row[0])


def scalar(conn: psycopg.Connection[Any], query: str, params: Any = None) -> Any:
    row = conn.execute(query, params).fetchone()
    assert row is not None
    return row[0]


class BackendMeter:
    """CPU of a database's client backends, but ``exclude``, between ``start`` and ``stop``:
    each listed at the stop counts from its figure at the start (from zero if it is new)."""

    def __init__(self, control: psycopg.Connection[Any], db: str, exclude: set[int]) -> None:
        self.control = control
        self.db = db
        self.exclude = exclude
        self.first: dict[int, int] = {}

    def _listed(self) -> dict[int, int]:
        rows = self.control.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s "
            "AND backend_type = 'client backend'",
            (self.db,),
        ).fetchall()
        found: dict[int, int] = {}
        for (pid,) in rows:
            spent = backend_ns(int(pid))
            if int(pid) not in self.exclude and spent is not None:
                found[int(pid)] = spent
        return found

    def start(self) -> None:
        self.first = self._listed()

    def stop(self) -> tuple[int, int, int]:
        """CPU nanoseconds, backends counted, backends that exited meanwhile."""
        last = self._listed()
        spent = sum(ns - self.first.get(pid, 0) for pid, ns in last.items())
        return spent, len(last), len(set(self.first) - set(last))


def pct(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def wait_until(check: Callable[[], bool], what: str, deadline_s: float = DEADLINE_S) -> float:
    """Poll ``check`` every ``POLL_S``; the perf_counter when it held."""
    end = time.perf_counter() + deadline_s
    while not check():
        if time.perf_counter() > end:
            raise TimeoutError(f"waited {deadline_s} s for {what}")
        time.sleep(POLL_S)
    return time.perf_counter()


# -- the phases ----------------------------------------------------------------------------------


class Moves:
    """The game of each next move (seeded), and each game's move count so far."""

    def __init__(self, games: int, seed: int) -> None:
        self.rng = random.Random(seed)
        self.games = games
        self.counts: dict[int, int] = {}

    def reset(self) -> None:
        self.counts = {}

    def next(self) -> tuple[int, int]:
        game = self.rng.randrange(self.games)
        seq = self.counts.get(game, 0)
        self.counts[game] = seq + 1
        return game, seq


def defer_phase(
    engine: Engine | None, conn: psycopg.Connection[Any], moves: Moves, count: int
) -> dict[str, float]:
    """``count`` moves, each its own transaction, one after another."""
    pid = backend_pid(conn)
    conn.commit()
    tx_ms: list[float] = []
    enqueue_ms: list[float] = []
    commit_ms: list[float] = []
    backend0 = backend_ns(pid) or 0
    cpu0 = time.process_time()
    wall0 = time.perf_counter()
    for _ in range(count):
        game, seq = moves.next()
        t0 = time.perf_counter()
        move = int(scalar(conn, INSERT, (game, seq, False, 0)))
        t1 = time.perf_counter()
        if engine is not None:
            engine.enqueue(conn, move, game)
        t2 = time.perf_counter()
        conn.commit()
        t3 = time.perf_counter()
        tx_ms.append((t3 - t0) * 1e3)
        enqueue_ms.append((t2 - t1) * 1e3)
        commit_ms.append((t3 - t2) * 1e3)
    wall = time.perf_counter() - wall0
    client = (time.process_time() - cpu0) * 1e3 / count
    backend = ((backend_ns(pid) or 0) - backend0) / 1e6 / count
    figures = {
        "per_s": count / wall,
        "tx_p50_ms": statistics.median(tx_ms),
        "tx_p99_ms": pct(tx_ms, 0.99),
        "commit_p50_ms": statistics.median(commit_ms),
        "client_cpu_ms_per": client,
        "backend_cpu_ms_per": backend,
        "total_cpu_ms_per": client + backend,
    }
    if engine is not None:
        figures["enqueue_p50_ms"] = statistics.median(enqueue_ms)
        figures["enqueue_p99_ms"] = pct(enqueue_ms, 0.99)
    return figures


class Bench:
    """One engine's database and the bench's two connections to it."""

    def __init__(self, engine: Engine, moves: Moves) -> None:
        self.engine = engine
        self.moves = moves
        self.url = PG + engine.db
        self.control = psycopg.connect(self.url, autocommit=True)
        self.client = psycopg.connect(self.url)  # autocommit off, as SQLAlchemy holds it
        self.ours = {backend_pid(self.control), backend_pid(self.client)}
        self.client.commit()

    def reset(self) -> None:
        self.control.execute(f"TRUNCATE moves, {self.engine.tables} RESTART IDENTITY")
        self.moves.reset()

    def count(self, query: str) -> int:
        return int(scalar(self.control, query))

    def drain(
        self, engine: str, workers: int, concurrency: int, down_to: int
    ) -> tuple[dict[str, float], Workers]:
        """Start ``workers`` processes on the backlog; measured until at most ``down_to`` jobs
        are left unfinished. The workers keep running (the caller stops them)."""
        crew = Workers(engine, self.url, workers, concurrency)
        meter = BackendMeter(self.control, self.engine.db, self.ours)
        before = self.count(self.engine.pending)
        meter.start()
        cpu0 = crew.cpu_ns()
        t0 = time.perf_counter()
        crew.go()
        left = before

        def drained() -> bool:
            nonlocal left
            left = self.count(self.engine.pending)
            return left <= down_to

        t1 = wait_until(drained, "the backlog to drain")
        cpu1 = crew.cpu_ns()
        backend, backends, exited = meter.stop()
        jobs = before - left
        worker_ms = (cpu1 - cpu0) / 1e6 / jobs
        backend_ms = backend / 1e6 / jobs
        figures = {
            "jobs": jobs,
            "jobs_per_s": jobs / (t1 - t0),
            "worker_cpu_ms_per_job": worker_ms,
            "backend_cpu_ms_per_job": backend_ms,
            "total_cpu_ms_per_job": worker_ms + backend_ms,
            "backends": backends,
            "backends_exited": exited,
        }
        return figures, crew

    def latency(self, count: int, rate: float) -> dict[str, float]:
        """``count`` moves at ``rate`` a second while the workers idle."""
        committed: dict[int, float] = {}
        start = time.perf_counter()
        for i in range(count):
            pause = start + i / rate - time.perf_counter()
            if pause > 0:
                time.sleep(pause)
            game, seq = self.moves.next()
            move = int(scalar(self.client, INSERT, (game, seq, False, 0)))
            self.engine.enqueue(self.client, move, game)
            self.client.commit()
            committed[move] = time.time()
        ids = list(committed)
        wait_until(
            lambda: (
                self.count(self.engine.pending) == 0
                and int(
                    scalar(
                        self.control,
                        "SELECT count(*) FROM moves WHERE id = ANY(%s) AND started IS NULL",
                        (ids,),
                    )
                )
                == 0
            ),
            "the paced jobs to run",
        )
        rows = self.control.execute(
            "SELECT id, started FROM moves WHERE id = ANY(%s)", (ids,)
        ).fetchall()
        delays = [(float(started) - committed[int(move)]) * 1e3 for move, started in rows]
        return {
            "p50_ms": statistics.median(delays),
            "p99_ms": pct(delays, 0.99),
            "max_ms": max(delays),
        }

    def round(self, args: argparse.Namespace) -> dict[str, dict[str, float]]:
        """Defer the backlog; one worker runs the first half of it, two the rest; then the
        paced moves while those two idle."""
        out: dict[str, dict[str, float]] = {}
        self.reset()
        out["defer"] = defer_phase(self.engine, self.client, self.moves, args.jobs)
        self.control.execute(self.engine.analyze)
        name = self.engine.name
        out["drain_1w"], crew = self.drain(name, 1, args.concurrency, args.jobs - args.jobs // 2)
        crew.stop()
        out["drain_2w"], crew = self.drain(name, 2, args.concurrency, 0)
        try:
            out["runs"] = {
                "out_of_order": self.count(
                    "SELECT count(*) FROM moves WHERE started IS NOT NULL AND before <> seq"
                ),
                "not_run": self.count("SELECT count(*) FROM moves WHERE started IS NULL"),
                "failed": self.count(self.engine.failed),
            }
            out["latency"] = self.latency(args.latency_jobs, args.rate)
        finally:
            crew.stop()
        return out

    def close(self) -> None:
        self.client.close()
        self.control.close()


# -- the checks ----------------------------------------------------------------------------------


def insert_move(
    conn: psycopg.Connection[Any], game: int, hang: bool = False, chain: int = 0
) -> int:
    return int(scalar(conn, INSERT, (game, 0, hang, chain)))


def conflict_check(bench: Bench, duplicate: dict[str, Any]) -> dict[str, Any]:
    """An enqueue that conflicts on a unique key inside the move's transaction: without a
    savepoint, then within one (psycopg's nested ``transaction()``)."""
    engine, conn = bench.engine, bench.client
    engine.enqueue(conn, 0, 0, **duplicate)
    conn.commit()
    out: dict[str, Any] = {}
    move = insert_move(conn, 1)
    try:
        engine.enqueue(conn, move, 1, **duplicate)
        out["raises"] = None
    except Exception as exc:
        out["raises"] = type(exc).__name__
    try:
        conn.execute("SELECT 1")
        out["transaction_aborted"] = False
    except psycopg.errors.InFailedSqlTransaction:
        out["transaction_aborted"] = True
    conn.rollback()
    move = insert_move(conn, 2)
    with contextlib.suppress(Exception), conn.transaction():  # a SAVEPOINT
        engine.enqueue(conn, move, 2, **duplicate)
    conn.commit()
    out["with_savepoint_move_commits"] = bench.count(
        f"SELECT count(*) FROM moves WHERE id = {move}"
    )
    return out


def sigkill_check(bench: Bench) -> dict[str, Any]:
    """Move A's job hangs on its first try; B is the same game's next move. The worker running
    A is SIGKILLed; a second worker (connected beforehand) starts right after. Procrastinate:
    the bench then does what its docs' periodic task does (``get_stalled_jobs`` every 0.1 s,
    ``retry_job``); PgQueuer re-picks a job whose heartbeat is stale on its own."""
    engine = bench.engine
    bench.reset()
    conn = bench.client
    move_a = insert_move(conn, 5, hang=True)
    engine.enqueue(conn, move_a, 5)
    move_b = insert_move(conn, 5)
    engine.enqueue(conn, move_b, 5)
    conn.commit()

    def tries(move: int) -> int:
        return bench.count(f"SELECT tries FROM moves WHERE id = {move}")

    first = Workers(engine.name, bench.url, 1, 2, STALL_S)
    second = Workers(engine.name, bench.url, 1, 2, STALL_S)
    out: dict[str, Any] = {"stall_s": STALL_S}
    try:
        first.go()
        wait_until(lambda: tries(move_a) == 1, "A to start", 30)
        time.sleep(0.5)
        out["b_ran_while_a_ran"] = tries(move_b) > 0
        killed = time.perf_counter()
        first.kill()
        second.go()
        if isinstance(engine, Procrastinate):
            out["automatic"] = False
            out["pgq_dequeue_timeout_s"] = None
            found = asyncio.run(retry_stalled(bench.url))
            out["stalled_found_after_s"] = found - killed
            out["b_ran_before_retry"] = tries(move_b) > 0
        else:
            out["automatic"] = True
            out["pgq_dequeue_timeout_s"] = PGQ_DEQUEUE_S
        rerun = wait_until(lambda: tries(move_a) == 2, "A to run again", 60)
        out["a_rerun_after_s"] = rerun - killed
        wait_until(lambda: tries(move_b) >= 1, "B to run", 30)
        out["b_started_after_a_rerun"] = bench.count(
            f"SELECT (SELECT started FROM moves WHERE id = {move_b}) > "
            f"(SELECT started FROM moves WHERE id = {move_a})::int"
        )
    finally:
        second.stop()
    return out


def psycopg_driver_check(bench: Bench, concurrency: int) -> dict[str, float]:
    """PgQueuer's psycopg driver (the rounds use its asyncpg one): one worker on a small
    backlog. It LISTENs and queries on one connection, and psycopg's ``notifies()`` holds the
    connection while it waits (up to the driver's 1 s timeout)."""
    bench.reset()
    defer_phase(bench.engine, bench.client, bench.moves, PSYCOPG_DRIVER_JOBS)
    figures, crew = bench.drain("pgqueuer-psycopg", 1, concurrency, 0)
    crew.stop()
    return {key: round(figures[key], 2) for key in ("jobs", "jobs_per_s")}


def chain_check(bench: Bench, concurrency: int) -> dict[str, Any]:
    """A game's jobs deferred one by the other: each job defers the game's next move in a
    transaction of its own before it returns, as a bot turn would defer the next seat's. One
    idle worker; the gaps between the starts of consecutive jobs."""
    bench.reset()
    crew = Workers(bench.engine.name, bench.url, 1, concurrency)
    try:
        crew.go()
        time.sleep(1.0)  # idle: its first look found nothing
        move = insert_move(bench.client, 9, chain=CHAIN - 1)
        bench.engine.enqueue(bench.client, move, 9)
        bench.client.commit()
        query = "SELECT count(*) FROM moves WHERE game = 9 AND started IS NOT NULL"
        wait_until(lambda: bench.count(query) == CHAIN, "the chain to run", 60)
        starts = [
            float(started)
            for (started,) in bench.control.execute(
                "SELECT started FROM moves WHERE game = 9 ORDER BY seq"
            ).fetchall()
        ]
    finally:
        crew.stop()
    gaps = [round((b - a) * 1e3, 1) for a, b in itertools.pairwise(starts)]
    return {"jobs": CHAIN, "gaps_ms": gaps}


async def retry_stalled(url: str) -> float:
    """Procrastinate's recipe for stalled jobs, polled: the perf_counter when one was found."""
    import procrastinate  # type: ignore[import-not-found,unused-ignore]

    app: Any = procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=url))
    async with app.open_async():
        end = time.perf_counter() + 60
        while time.perf_counter() < end:
            stalled = list(await app.job_manager.get_stalled_jobs(seconds_since_heartbeat=STALL_S))
            if stalled:
                found = time.perf_counter()
                for job in stalled:
                    await app.job_manager.retry_job(job)
                return found
            await asyncio.sleep(0.1)
    raise TimeoutError("no stalled job found")


def checks(bench: Bench, args: argparse.Namespace) -> dict[str, Any]:
    engine, conn = bench.engine, bench.client
    out: dict[str, Any] = {}
    bench.reset()
    move = insert_move(conn, 1)
    engine.enqueue(conn, move, 1)
    conn.rollback()
    out["rollback_leaves_no_job"] = (
        bench.count(f"SELECT count(*) FROM {engine.tables.split(',')[0]}") == 0
    )
    bench.reset()
    if isinstance(engine, Procrastinate):
        out["queueing_lock_conflict"] = conflict_check(bench, {"queueing_lock": "q"})
        bench.reset()
        later = datetime.now(UTC) + timedelta(hours=1)
        for game, options in ((7, {"schedule_at": later}), (7, {}), (8, {})):
            engine.enqueue(conn, insert_move(conn, game), game, **options)
        conn.commit()
        fetched: list[int] = []
        while True:
            row = bench.control.execute(
                "SELECT id, args FROM procrastinate_fetch_job_v2(NULL::varchar[], NULL::bigint)"
            ).fetchone()
            if row is None or row[0] is None:
                break
            fetched.append(int(row[1]["move_id"]))
        out["scheduled_job_holds_back_its_lock"] = {
            "fetchable_moves": fetched,
            "later_same_lock_fetchable": 2 in fetched,
            "other_lock_fetchable": 3 in fetched,
        }
    else:
        out["dedupe_key_conflict"] = conflict_check(bench, {"dedupe_key": "q"})
        bench.reset()
        engine.enqueue(conn, 0, 0, dedupe_key="q")
        conn.commit()
        move = insert_move(conn, 1)
        engine.enqueue(conn, move, 1, dedupe_key="q", on_conflict="skip")
        conn.commit()
        out["dedupe_key_on_conflict_skip_move_commits"] = bench.count(
            f"SELECT count(*) FROM moves WHERE id = {move}"
        )
        out["psycopg_driver"] = psycopg_driver_check(bench, args.concurrency)
    out["chain"] = chain_check(bench, args.concurrency)
    out["sigkill"] = sigkill_check(bench)
    bench.reset()
    return out


# -- the run -------------------------------------------------------------------------------------


@contextlib.contextmanager
def databases(names: list[str]) -> Iterator[None]:
    with psycopg.connect(PG + "postgres", autocommit=True) as admin:
        for name in names:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
            admin.execute(f"CREATE DATABASE {name}")
        try:
            yield
        finally:
            for name in names:
                admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def medians(rounds: list[dict[str, float]]) -> dict[str, float]:
    return {key: round(statistics.median(r[key] for r in rounds), 4) for key in rounds[0]}


def summarize(per_round: list[dict[str, dict[str, float]]]) -> dict[str, Any]:
    summary: dict[str, Any] = {}
    for phase in ("defer", "drain_1w", "drain_2w", "latency"):
        summary[phase] = medians([r[phase] for r in per_round])
    for phase in ("drain_1w", "drain_2w"):
        summary[phase]["backends_exited"] = sum(r[phase]["backends_exited"] for r in per_round)
    summary["runs"] = {key: sum(r["runs"][key] for r in per_round) for key in per_round[0]["runs"]}
    summary["runs"]["jobs"] = sum(r["drain_1w"]["jobs"] + r["drain_2w"]["jobs"] for r in per_round)
    summary["rounds_detail"] = [
        {
            "defer_total_cpu_ms_per": round(r["defer"]["total_cpu_ms_per"], 4),
            "drain_1w_jobs_per_s": round(r["drain_1w"]["jobs_per_s"], 1),
            "drain_2w_jobs_per_s": round(r["drain_2w"]["jobs_per_s"], 1),
            "drain_2w_total_cpu_ms_per_job": round(r["drain_2w"]["total_cpu_ms_per_job"], 4),
            "latency_p99_ms": round(r["latency"]["p99_ms"], 2),
        }
        for r in per_round
    ]
    return summary


def ratio(a: float, b: float) -> float | None:
    return round(a / b, 3) if b else None


def ratios(proc: dict[str, Any], pgq: dict[str, Any]) -> dict[str, float | None]:
    """PgQueuer's medians over Procrastinate's."""
    out = {
        "defer_total_cpu_over_floor": ratio(
            pgq["defer_over_floor"]["total_cpu_ms_per"],
            proc["defer_over_floor"]["total_cpu_ms_per"],
        ),
        "defer_tx_p50": ratio(pgq["defer"]["tx_p50_ms"], proc["defer"]["tx_p50_ms"]),
    }
    for phase in ("drain_1w", "drain_2w"):
        for key in ("jobs_per_s", "total_cpu_ms_per_job"):
            out[f"{phase}_{key}"] = ratio(pgq[phase][key], proc[phase][key])
    out["latency_p50"] = ratio(pgq["latency"]["p50_ms"], proc["latency"]["p50_ms"])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2000)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--rate", type=float, default=50.0)
    parser.add_argument("--latency-jobs", type=int, default=100)
    parser.add_argument("--seed", type=int, default=34)
    parser.add_argument("--no-checks", action="store_true")
    parser.add_argument("--worker", choices=WORKER_ENGINES, help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--stall-s", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        asyncio.run(run_worker(args.worker, args.url, args.concurrency, args.stall_s))
        return

    logging.getLogger("procrastinate").setLevel(logging.ERROR)
    began = time.perf_counter()
    result: dict[str, Any] = {"bench": "jobqueue"}
    with psycopg.connect(PG + "postgres") as admin:
        result["versions"] = {
            name: metadata.version(name)
            for name in ("procrastinate", "pgqueuer", "psycopg", "asyncpg")
        } | {
            "postgresql": str(scalar(admin, "SHOW server_version")),
            "python": sys.version.split()[0],
        }
        result["postgresql"] = {
            name: str(scalar(admin, f"SHOW {name}"))
            for name in ("fsync", "synchronous_commit", "shared_buffers")
        }
    result["params"] = {
        key: getattr(args, key)
        for key in ("rounds", "jobs", "games", "concurrency", "rate", "latency_jobs", "seed")
    } | {"cpus": os.cpu_count(), "loadavg_at_start": os.getloadavg()}
    floor_db = "jq_bench_floor"
    with databases([Procrastinate.db, PgQueuer.db, floor_db]):
        engines: list[Engine] = [Procrastinate(PG + Procrastinate.db), PgQueuer(PG + PgQueuer.db)]
        benches: list[Bench] = []
        for engine in engines:
            engine.install()
            with psycopg.connect(PG + engine.db, autocommit=True) as conn:
                conn.execute(MOVES)
            benches.append(Bench(engine, Moves(args.games, args.seed)))
        with psycopg.connect(PG + floor_db, autocommit=True) as conn:
            conn.execute(MOVES)
        floor = psycopg.connect(PG + floor_db)
        floor_moves = Moves(args.games, args.seed)
        if not args.no_checks:
            print("checks", file=sys.stderr, flush=True)
            result["checks"] = {bench.engine.name: checks(bench, args) for bench in benches}
        per_round: dict[str, list[dict[str, dict[str, float]]]] = {
            bench.engine.name: [] for bench in benches
        }
        floors: list[dict[str, float]] = []
        for number in range(args.rounds):
            floor.execute("TRUNCATE moves RESTART IDENTITY")
            floor.commit()
            floor_moves.reset()
            floors.append(defer_phase(None, floor, floor_moves, args.jobs))
            for bench in benches if number % 2 == 0 else benches[::-1]:
                print(f"round {number + 1}: {bench.engine.name}", file=sys.stderr, flush=True)
                per_round[bench.engine.name].append(bench.round(args))
        floor.close()
        for bench in benches:
            bench.close()
    result["floor"] = medians(floors)
    result["engines"] = {}
    for name, rounds in per_round.items():
        summary = summarize(rounds)
        summary["defer_over_floor"] = {
            key: round(summary["defer"][key] - result["floor"][key], 4) for key in OVER_FLOOR
        }
        result["engines"][name] = summary
    result["ratios"] = {
        "pgqueuer_over_procrastinate": ratios(
            result["engines"]["procrastinate"], result["engines"]["pgqueuer"]
        )
    }
    result["loadavg_at_end"] = os.getloadavg()
    result["wall_s"] = round(time.perf_counter() - began, 1)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
