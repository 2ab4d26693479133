"""A pool of worker processes whose results arrive on the event loop as futures.

CPU-heavy work (slow bots, their tables, hints) runs here, never on the event loop and never
in a request's thread, where it would hold the interpreter lock against every other request.
Processes are spawned (a forked copy of a threaded server can inherit held locks) on first
use, and the pool refuses new work once ``max_pending`` tasks are waiting, so a flood of
requests queues nothing unbounded.

The pool is a ``concurrent.futures.ProcessPoolExecutor`` rather than
``multiprocessing.Pool``: a ``Pool`` whose worker dies while it waits for work (the OOM
killer, or a service manager's SIGTERM to every process of the server) leaves its queue's
lock held, and ``Pool.terminate()`` then waits for it forever, which hung the server's
shutdown. An executor reports a dead worker as ``BrokenProcessPool``; the task fails (the
bot's fallback or a 503 takes over) and the next task starts a fresh pool.

A worker dies with the process that started it (:func:`die_with_parent`): a uvicorn worker
killed with SIGKILL (by hand, the OOM killer, or uvicorn's own health check) leaves no pool
behind. Nor multiprocessing's resource tracker: it ignores SIGTERM and ends (after freeing
what the dead left registered) when the last process holding its pipe ends, and every
process of the site holds it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

T = TypeVar("T")


class PoolBusy(Exception):
    """The pool already holds as much waiting work as it accepts."""


#: ``PR_SET_PDEATHSIG`` of ``<linux/prctl.h>``.
_PR_SET_PDEATHSIG = 1
#: How often a worker's watch thread asks whether its parent still lives.
WATCH_SECONDS = 1.0
#: Set by ``dicehall serve --workers N`` to its pid, for its uvicorn workers.
SUPERVISOR_ENV = "DICEHALL_SUPERVISOR_PID"


def die_with_parent(parent: int, *, kernel_signal: bool = True) -> None:
    """End this process as soon as ``parent`` (the pid of the process that started it) ends.

    On Linux, with ``kernel_signal``, the kernel sends SIGKILL when the parent ends
    (``PR_SET_PDEATHSIG``). The kernel sends it when the *thread* that forked this process
    ends, so ask for it only when that thread lives as long as its process. Everywhere, a
    daemon thread also checks every :data:`WATCH_SECONDS` that the parent is still the
    parent (an orphan is handed to init or a subreaper). A parent that ended before either
    was in place ends this process at once.
    """
    if kernel_signal and sys.platform == "linux":
        libc = ctypes.CDLL(None)
        # A failure leaves the watch thread, which is enough (only slower).
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(1)
    watch = threading.Thread(target=_watch, args=(parent,), name="dicehall-parent", daemon=True)
    watch.start()


def die_with_supervisor(environ: Mapping[str, str] = os.environ) -> None:
    """In a uvicorn worker of ``dicehall serve --workers N``: die with the supervisor, whose
    main thread starts every worker (so the kernel's signal is safe); elsewhere nothing."""
    supervisor = environ.get(SUPERVISOR_ENV)
    if supervisor:
        die_with_parent(int(supervisor))


def _watch(parent: int) -> None:
    # The kernel's signal kills even while a table build holds the interpreter lock (and so
    # stalls this thread); this thread serves where that signal is not asked for.
    while os.getppid() == parent:
        time.sleep(WATCH_SECONDS)
    os._exit(1)


class _Spawner:
    """Who starts a worker: the pool's process, and whether its main thread forks the
    worker. A spawned worker's arguments are pickled in the thread that then forks it, so
    :meth:`__getstate__` sees that thread."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.main_thread = False

    def __getstate__(self) -> dict[str, object]:
        return {
            "pid": self.pid,
            "main_thread": threading.current_thread() is threading.main_thread(),
        }


def _start_worker(spawner: _Spawner) -> None:
    # Ctrl-C in a terminal reaches the whole process group: the server stops its workers
    # itself, so they ignore it rather than print a traceback each.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # Only the main thread lives as long as the process (a thread that ends would take the
    # worker with it under PR_SET_PDEATHSIG).
    die_with_parent(spawner.pid, kernel_signal=spawner.main_thread)


class ProcessPool:
    """``processes`` spawned workers, started on the first task; see the module's docstring."""

    def __init__(self, processes: int, max_pending: int | None = None) -> None:
        self.processes = max(1, processes)
        self.max_pending = max_pending
        self.pending = 0
        self._executor: concurrent.futures.ProcessPoolExecutor | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """Deliver results to ``loop`` (the server's event loop)."""
        self._loop = loop

    def submit(self, fn: Callable[..., T], *args: Any) -> asyncio.Future[T]:
        """Run ``fn(*args)`` in a worker; a future on the bound loop gets its outcome.

        Raises :class:`PoolBusy` when ``max_pending`` tasks are already waiting.
        """
        loop = self._loop
        if loop is None:
            raise RuntimeError("the process pool is not bound to an event loop")
        if self.max_pending is not None and self.pending >= self.max_pending:
            raise PoolBusy(f"{self.pending} tasks are waiting already")
        executor = self._started()
        try:
            work = executor.submit(fn, *args)
        except (BrokenProcessPool, RuntimeError):
            # A worker died (or the pool was shut down) since the last task: start afresh.
            self._discard()
            executor = self._started()
            work = executor.submit(fn, *args)
        future: asyncio.Future[T] = loop.create_future()
        self.pending += 1

        def settle(done: concurrent.futures.Future[T]) -> None:
            self.pending -= 1
            if future.done():
                return
            if done.cancelled():
                future.cancel()
                return
            error = done.exception()
            if error is None:
                future.set_result(done.result())
                return
            if isinstance(error, BrokenProcessPool) and self._executor is executor:
                self._discard()
            future.set_exception(error)

        def on_done(done: concurrent.futures.Future[T]) -> None:
            if not loop.is_closed():
                loop.call_soon_threadsafe(settle, done)

        work.add_done_callback(on_done)
        return future

    async def run(self, budget: float, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in a worker, or :class:`TimeoutError` after ``budget`` seconds (the
        worker finishes the task anyway; its result is dropped)."""
        # asyncio.timeout rather than wait_for, which in Python 3.11 can swallow a
        # cancellation that arrives as the result does.
        async with asyncio.timeout(budget):
            return await asyncio.shield(self.submit(fn, *args))

    def close(self) -> None:
        """End the workers at once (a task may be running)."""
        self._discard()
        self.pending = 0

    def _discard(self) -> None:
        executor, self._executor = self._executor, None
        if executor is None:
            return
        # Python 3.11's executor has no public way to stop a running task (3.14 adds
        # kill_workers()); a table build may run for minutes, so its processes are killed.
        processes = getattr(executor, "_processes", None) or {}
        for process in list(processes.values()):
            process.kill()
        executor.shutdown(wait=True, cancel_futures=True)

    def _started(self) -> concurrent.futures.ProcessPoolExecutor:
        if self._executor is None:
            self._executor = concurrent.futures.ProcessPoolExecutor(
                self.processes,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_start_worker,
                initargs=(_Spawner(),),
            )
        return self._executor
