"""Wake-ups committed by other processes (on PostgreSQL): a thread ``LISTEN``s on the site's
channel and tells this process's bot driver and job runner, so a ``dicehall worker`` on
another machine plays a bot's turn as soon as the move that made it due commits, not at its
next poll. A lost connection is made again; polling covers the gap."""

from __future__ import annotations

import logging
import threading

import psycopg
from sqlalchemy.engine import make_url

from dicehall.server.domain import jobs
from dicehall.server.domain.games import play

log = logging.getLogger(__name__)

#: How often the listening thread looks up from its wait to see whether it should stop.
STOP_CHECK_SECONDS = 1.0
#: How long it waits before connecting again after losing the database.
RECONNECT_SECONDS = 2.0


def conninfo(url: str) -> str:
    """A libpq connection string for a SQLAlchemy PostgreSQL URL."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def deliver(name: str) -> None:
    """Tell this process's runners about work for ``name``."""
    if name == jobs.BOTS:
        play.announce_bot_due()
    else:
        jobs.announce(name)


class WakeUps:
    """Listens for wake-ups in a thread of its own; see the module's docstring."""

    def __init__(self, url: str) -> None:
        self._conninfo = conninfo(url)
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start listening."""
        self._thread = threading.Thread(target=self._run, name="dicehall-wakeups", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop listening (within :data:`STOP_CHECK_SECONDS`)."""
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(STOP_CHECK_SECONDS * 3)

    def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                self._listen()
            except psycopg.Error as exc:
                log.warning("listening for wake-ups failed (%s); connecting again", exc)
                self._stopping.wait(RECONNECT_SECONDS)

    def _listen(self) -> None:
        with psycopg.connect(self._conninfo, autocommit=True) as conn:
            conn.execute(f"LISTEN {jobs.CHANNEL}")
            # Whatever was committed while not listening is found by the runners' polls.
            deliver(jobs.BOTS)
            while not self._stopping.is_set():
                for notice in conn.notifies(timeout=STOP_CHECK_SECONDS):
                    deliver(notice.payload)
