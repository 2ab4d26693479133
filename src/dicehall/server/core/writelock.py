"""One writer at a time on SQLite, across threads and processes, with a deadline.

SQLite's own busy handler waits by sleeping in steps of milliseconds, which under many
concurrent writers turns into latency spikes. Writers therefore queue here first: on a
thread lock (this process, woken as soon as it is free) and then on a file lock beside the
database (every server process on this machine). Neither wait is ever done on the event loop
(database work runs in threads), and neither is endless: past ``timeout`` seconds the writer
gets :class:`Busy`, which the site answers with 503 and Retry-After.

The file lock is ``flock`` on a descriptor the process keeps open: ``filelock`` opens,
resolves and closes its file on every acquisition, which cost a move a tenth of its time
under the lock. Where ``fcntl`` is missing (Windows), ``filelock`` is used.
"""

from __future__ import annotations

import os
import threading
import time
import weakref
from pathlib import Path
from types import TracebackType

from filelock import FileLock, Timeout

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

#: How often a writer looks again while another process holds the file lock (it holds it
#: only while it commits).
POLL_SECONDS = 0.002


class _HeldOpen:
    """An exclusive ``flock`` on a file this process opens once."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def acquire(self, timeout: float) -> None:
        """Take the lock within ``timeout`` seconds, or raise :class:`Timeout`."""
        if self._fd is None:
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            weakref.finalize(self, os.close, self._fd)  # closed with the site that used it
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise Timeout(str(self.path)) from None
                time.sleep(POLL_SECONDS)

    def release(self) -> None:
        """Let the next process in."""
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)


class Busy(Exception):
    """The database's write lock could not be had in time."""

    def __init__(self, message: str, retry_after: int = 2) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class WriteLock:
    """A re-usable context manager: a thread lock plus an exclusive file lock."""

    def __init__(self, database: Path | None, timeout: float = 10.0) -> None:
        self.timeout = timeout
        self._thread_lock = threading.Lock()
        # One lock object shared by this process's threads: the thread lock above already
        # lets only one of them at a time reach it.
        path = None if database is None else database.with_name(database.name + ".lock")
        self._file_lock: _HeldOpen | FileLock | None = None
        if path is not None:
            self._file_lock = (
                _HeldOpen(path) if fcntl is not None else FileLock(path, thread_local=False)
            )

    def __enter__(self) -> WriteLock:
        deadline = time.monotonic() + self.timeout
        if not self._thread_lock.acquire(timeout=self.timeout):
            raise Busy(f"the database is busy (no write lock within {self.timeout:g} s)")
        try:
            if self._file_lock is not None:
                left = max(0.0, deadline - time.monotonic())
                if isinstance(self._file_lock, _HeldOpen):
                    self._file_lock.acquire(left)
                else:  # pragma: no cover - Windows
                    self._file_lock.acquire(timeout=left, poll_interval=POLL_SECONDS)
        except Timeout:
            self._thread_lock.release()
            raise Busy(
                f"the database is locked by another process (waited {self.timeout:g} s)"
            ) from None
        except BaseException:
            self._thread_lock.release()
            raise
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        try:
            if self._file_lock is not None:
                self._file_lock.release()
        finally:
            self._thread_lock.release()
