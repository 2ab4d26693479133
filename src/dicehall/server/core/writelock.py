"""One writer at a time on SQLite, across threads and processes, with a deadline.

SQLite's own busy handler waits by sleeping in steps of milliseconds, which under many
concurrent writers turns into latency spikes. Writers therefore queue here first: on a
thread lock (this process, woken as soon as it is free) and then on a file lock (``filelock``)
beside the database (every server process on this machine). Neither wait is ever done on
the event loop (database work runs in threads), and neither is endless: past ``timeout``
seconds the writer gets :class:`Busy`, which the site answers with 503 and Retry-After.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from types import TracebackType

from filelock import FileLock, Timeout


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
        self._file_lock = (
            None
            if database is None
            else FileLock(database.with_name(database.name + ".lock"), thread_local=False)
        )

    def __enter__(self) -> WriteLock:
        deadline = time.monotonic() + self.timeout
        if not self._thread_lock.acquire(timeout=self.timeout):
            raise Busy(f"the database is busy (no write lock within {self.timeout:g} s)")
        try:
            if self._file_lock is not None:
                left = max(0.0, deadline - time.monotonic())
                # Another process holds the lock only while it commits: poll finely.
                self._file_lock.acquire(timeout=left, poll_interval=0.002)
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
