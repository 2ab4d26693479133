"""The worker process pool: a worker that dies never hangs the pool or the server's
shutdown, and the next task gets a fresh pool."""

from __future__ import annotations

import asyncio
import operator
import os
import signal
import threading
import time
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest

from dicehall.server.workers.procpool import ProcessPool
from tests.waiting import wait_until_async


def _worker_pids(pool: ProcessPool) -> list[int]:
    executor = pool._executor
    assert executor is not None
    processes = executor._processes
    return [p.pid for p in processes.values() if p.pid is not None]


def _add_and_report_pid(a: int, b: int) -> tuple[int, int]:
    return a + b, os.getpid()


def _say_running_then_block(flag: str) -> None:
    """A task that is seen to run (it writes ``flag``) and then takes ten minutes."""
    Path(flag).write_text(str(os.getpid()))
    threading.Event().wait(600)


def test_a_worker_killed_while_idle_neither_hangs_shutdown_nor_the_next_task() -> None:
    async def scenario() -> float:
        pool = ProcessPool(1)
        pool.bind(asyncio.get_running_loop())
        assert await pool.run(60, operator.add, 1, 2) == 3
        executor = pool._executor
        assert executor is not None
        workers = list(executor._processes.values())
        assert workers
        for pid in _worker_pids(pool):
            os.kill(pid, signal.SIGTERM)  # as a service manager's stop would
        # The next task comes once the workers are dead (killed while idle, not during it).
        await wait_until_async(
            lambda: not any(w.is_alive() for w in workers), what="the killed workers to exit"
        )
        # The pool notices on the next task: it fails or is served by a fresh pool.
        try:
            value, _ = await pool.run(60, _add_and_report_pid, 2, 3)
        except BrokenProcessPool:
            value, _ = await pool.run(60, _add_and_report_pid, 2, 3)
        assert value == 5
        started = time.monotonic()
        pool.close()
        return time.monotonic() - started

    # A multiprocessing.Pool waited for ever here (a dead worker's queue lock).
    assert asyncio.run(asyncio.wait_for(scenario(), 120)) < 30


def test_closing_ends_a_running_task_at_once(tmp_path: Path) -> None:
    flag = tmp_path / "running"

    async def scenario() -> float:
        pool = ProcessPool(1)
        pool.bind(asyncio.get_running_loop())
        running = pool.submit(_say_running_then_block, str(flag))
        # Spawning the worker takes a while: close once the task really runs.
        await wait_until_async(flag.exists, timeout=60, what="the task to start in a worker")
        started = time.monotonic()
        pool.close()
        took = time.monotonic() - started
        with pytest.raises(BrokenProcessPool):
            await asyncio.wait_for(running, 30)
        return took

    assert asyncio.run(scenario()) < 30
