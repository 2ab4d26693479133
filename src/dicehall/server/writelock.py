"""One writer at a time on SQLite, across threads and processes, without busy polling.

SQLite's own busy handler waits by sleeping in steps of milliseconds, which under many
concurrent writers turns into latency spikes. Writers therefore queue here first: on a
thread lock (this process) and then on an ``flock`` of a file beside the database (every
server process on this machine), both of which wake the next writer as soon as the lock
is free.
"""

from __future__ import annotations

import fcntl
import os
import threading
from pathlib import Path
from types import TracebackType


class WriteLock:
    """A re-usable context manager: a thread lock plus an exclusive file lock."""

    def __init__(self, database: Path | None) -> None:
        self._thread_lock = threading.Lock()
        self._path = None if database is None else database.with_name(database.name + ".lock")
        self._fd: int | None = None

    def _file(self) -> int | None:
        if self._path is None:
            return None
        if self._fd is None:
            self._fd = os.open(self._path, os.O_RDWR | os.O_CREAT, 0o600)
        return self._fd

    def __enter__(self) -> WriteLock:
        self._thread_lock.acquire()
        try:
            fd = self._file()
            if fd is not None:
                fcntl.flock(fd, fcntl.LOCK_EX)
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
            if self._fd is not None:
                fcntl.flock(self._fd, fcntl.LOCK_UN)
        finally:
            self._thread_lock.release()
