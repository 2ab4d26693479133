"""Processes that clean up: every process of the site dies with its parent, so a killed
uvicorn worker or a killed ``dicehall serve`` leaves no bot pool and no resource tracker.

The process table is read from ``/proc`` (the site's machines and CI run Linux).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import ctypes
import json
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from dicehall.server.workers import procpool
from tests.waiting import wait_until

if TYPE_CHECKING:
    from tests.live import LiveServer

#: A process as the kernel tells it apart: its pid and its start time (a pid may be reused).
Proc = tuple[int, int]

_PR_GET_PDEATHSIG = 2


def _table() -> dict[int, tuple[int, int, str]]:
    """Every process: pid -> (parent pid, start time, state)."""
    table: dict[int, tuple[int, int, str]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{name}/stat").read_text()
        except OSError:
            continue  # ended while we looked
        fields = stat[stat.rindex(")") + 2 :].split()  # the name may hold spaces
        table[int(name)] = (int(fields[1]), int(fields[19]), fields[0])
    return table


def _descendants(root: int) -> set[Proc]:
    """The processes below ``root`` (not ``root`` itself)."""
    table = _table()
    below: set[int] = set()
    edge = {root}
    while edge:
        edge = {pid for pid, (parent, _, _) in table.items() if parent in edge} - below
        below |= edge
    return {(pid, table[pid][1]) for pid in below}


def _alive(procs: set[Proc]) -> set[Proc]:
    """Those of ``procs`` still running (a zombie has ended; init reaps it)."""
    table = _table()
    return {
        (pid, start)
        for pid, start in procs
        if pid in table and table[pid][1] == start and table[pid][2] != "Z"
    }


def _children(pid: int) -> list[int]:
    return [child for child, (parent, _, _) in _table().items() if parent == pid]


# -- one process ---------------------------------------------------------------------------


def _death_signal() -> tuple[int, int]:
    """In a worker: its pid and the signal the kernel sends it when its parent ends."""
    libc = ctypes.CDLL(None, use_errno=True)
    found = ctypes.c_int(-1)
    assert libc.prctl(_PR_GET_PDEATHSIG, ctypes.byref(found), 0, 0, 0) == 0
    return os.getpid(), found.value


def _pool() -> concurrent.futures.ProcessPoolExecutor:
    """An executor set up as :class:`procpool.ProcessPool` sets up its own."""
    return concurrent.futures.ProcessPoolExecutor(
        1,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=procpool._start_worker,
        initargs=(procpool._Spawner(),),
    )


def test_only_a_worker_forked_by_the_main_thread_gets_the_kernels_signal() -> None:
    # ProcessPoolExecutor (3.11, spawn) starts a worker inside submit(), in the caller's
    # thread: a worker started by a passing thread must outlive that thread.
    with _pool() as passing, _pool() as main:
        answers: list[tuple[int, int]] = []
        submitter = threading.Thread(
            target=lambda: answers.append(passing.submit(_death_signal).result(60))
        )
        submitter.start()
        submitter.join()
        native = submitter.native_id
        wait_until(
            lambda: not Path(f"/proc/self/task/{native}").exists(),
            what="the submitting thread to end in the kernel too",
        )
        ((worker, sent),) = answers
        assert sent == 0
        assert passing.submit(_death_signal).result(60) == (worker, 0)  # still the same one
        assert main.submit(_death_signal).result(60)[1] == signal.SIGKILL


def test_a_process_whose_parent_ended_already_exits_at_once() -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    code = (
        "from dicehall.server.workers.procpool import die_with_parent\n"
        f"die_with_parent({gone.pid})\n"
        "print('survived')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert (done.returncode, done.stdout, done.stderr) == (1, "", "")


#: ``middle KERNEL``: start a leaf, tell both pids, wait. ``leaf KERNEL``: die with the
#: middle (with the kernel's signal or by the watch thread alone), say so, then hold the
#: interpreter lock in one long C call (kernel) or wait.
_CHAIN = """
import os, subprocess, sys, threading
if sys.argv[1] == "middle":
    leaf = subprocess.Popen([sys.executable, sys.argv[0], "leaf", sys.argv[2]])
    print(os.getpid(), leaf.pid, flush=True)
    os.close(1)  # the leaf's output alone: a leaf that fails ends the test's read
    sys.stdin.read()
else:
    from dicehall.server.workers.procpool import die_with_parent
    die_with_parent(os.getppid(), kernel_signal=sys.argv[2] == "1")
    print("watching", flush=True)
    if sys.argv[2] == "1":
        sum(range(10**13))
    else:
        threading.Event().wait()
"""


@pytest.mark.parametrize("kernel", [True, False], ids=["kernel-signal", "watch-thread"])
def test_a_process_ends_when_its_parent_is_killed(kernel: bool, tmp_path: Path) -> None:
    script = tmp_path / "chain.py"
    script.write_text(_CHAIN)
    middle = subprocess.Popen(
        [sys.executable, str(script), "middle", "1" if kernel else "0"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert middle.stdout is not None
    leaf = 0
    try:
        _, leaf = map(int, middle.stdout.readline().split())
        assert middle.stdout.readline().strip() == "watching"
        start = _table()[leaf][1]
        middle.kill()
        middle.wait(10)
        wait_until(lambda: not _alive({(leaf, start)}), timeout=10, what="the leaf to end")
    finally:
        middle.kill()
        middle.wait(10)
        if leaf:
            with contextlib.suppress(ProcessLookupError):
                os.kill(leaf, signal.SIGKILL)


def test_the_site_log_takes_uvicorns_process_lines_as_json() -> None:
    from dicehall.server.http.accesslog import serve_log_config

    loggers = serve_log_config()["loggers"]
    json_info = {"handlers": ["dicehall_json"], "level": "INFO", "propagate": False}
    assert loggers["uvicorn.error"] == json_info  # "Child process [pid] died" is INFO
    assert loggers["uvicorn.access"]["level"] == "WARNING"  # the edge writes access lines


# -- a real site ---------------------------------------------------------------------------


@pytest.fixture
def site(tmp_path: Path) -> Iterator[LiveServer]:
    """``dicehall serve --workers 2`` whose workers start their bot pools at once (warming
    the slow bots; no build needs to finish)."""
    # Imported here: the pool tests' workers import this module, and should do so quickly.
    from tests.live import LiveServer
    from tests.sqlite_template import migrated_sqlite

    server = LiveServer(migrated_sqlite(tmp_path / "site.sqlite3"), workers=2)
    server.launch(environ={**os.environ, "DICEHALL_WARM_BOTS": "1"})
    try:
        server.wait_ready(60)
        yield server
    finally:
        group = server.process.pid if server.process is not None else None
        server.kill()
        if group is not None:
            # What outlived a killed master is still in its process group.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(group, signal.SIGKILL)


def _workers_with_pools(server: LiveServer) -> dict[int, list[int]]:
    """The uvicorn workers, each with its children (its bot pool), once each has some."""
    assert server.process is not None
    master = server.process.pid

    def pooled() -> dict[int, list[int]] | None:
        workers = {
            pid: _children(pid)
            for pid in _children(master)
            if "resource_tracker" not in Path(f"/proc/{pid}/cmdline").read_text()
        }
        return workers if len(workers) == 2 and all(workers.values()) else None

    return wait_until(pooled, timeout=30, what="both workers' bot pools")


@pytest.mark.slow
def test_a_killed_workers_pool_dies_with_it_and_a_clean_stop_then_leaves_nothing(
    site: LiveServer,
) -> None:
    workers = _workers_with_pools(site)
    victim, other = sorted(workers)
    pool = _descendants(victim)
    kept = _descendants(other)
    os.kill(victim, signal.SIGKILL)
    wait_until(lambda: not _alive(pool), timeout=10, what="the killed worker's pool to end")
    assert _alive(kept) == kept  # the other worker's pool is its own

    def logged() -> bool:
        return f"Child process [{victim}] died" in site.log_tail(100_000)

    wait_until(logged, timeout=10, what="the master to log the worker's death")
    (line,) = (
        json.loads(text)
        for text in site.log_tail(100_000).splitlines()
        if f"[{victim}] died" in text
    )
    assert (line["logger"], line["level"]) == ("uvicorn.error", "info")
    # A service manager's stop: SIGTERM to the master alone. An orphaned pool used to hold
    # the resource tracker's pipe, and so keep the tracker, past it.
    assert site.process is not None
    tree = _descendants(site.process.pid)
    os.kill(site.process.pid, signal.SIGTERM)
    site.process.wait(30)
    wait_until(lambda: not _alive(tree), timeout=15, what="every process of the site to end")


@pytest.mark.slow
def test_a_killed_master_takes_every_process_with_it(site: LiveServer) -> None:
    _workers_with_pools(site)
    assert site.process is not None
    master = site.process.pid
    tree = _descendants(master)
    names = {Path(f"/proc/{pid}/cmdline").read_text() for pid, _ in tree}
    assert any("resource_tracker" in name for name in names)
    assert len(tree) >= 5  # the tracker, two workers, a pool process each
    os.kill(master, signal.SIGKILL)
    site.process.wait(10)
    wait_until(lambda: not _alive(tree), timeout=15, what="every process of the site to end")
