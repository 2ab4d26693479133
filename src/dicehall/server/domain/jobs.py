"""The site's periodic jobs as the domain declares them, and how to wake one.

A job is a function of the services and the moment that does its work in its own write
transactions and returns how much it did; it must be safe with several processes on several
machines running it at once (each job takes its own lock or claims rows under a lock, and
checks again under it). :class:`~dicehall.server.workers.jobs.SiteJobs` runs them in every
server process. :func:`announce` tells every runner in this process that work for a job
may be waiting (a ticket filed, a tournament game ended), so that it runs now rather than
at its period; it is safe to call from any thread, typically after a commit.
:func:`wake` does it for a transaction: in this process once it commits, and on PostgreSQL
in every process that listens (``dicehall worker`` on other machines), through a
``NOTIFY`` that the database delivers with the commit and drops with a rollback.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import Connection, text

from dicehall.server.core.txn import after_commit

if TYPE_CHECKING:
    from dicehall.server.domain.services import Services

#: The PostgreSQL channel that carries wake-ups; its payload names the job (or :data:`BOTS`).
CHANNEL = "dicehall_work"
#: The wake-up of the bot driver: a game waits on a bot or on dice.
BOTS = "bots"

_NOTIFY = text("SELECT pg_notify(:channel, :name)")

JobRun = Callable[["Services", datetime], int]
"""A job: does what is due at the moment given; returns how much it did (for the log)."""


@dataclass(frozen=True)
class Job:
    """A named periodic job and how often it runs when nothing announces work for it."""

    name: str
    period: float
    run: JobRun


_listeners: set[Callable[[str], None]] = set()


def listen(listener: Callable[[str], None]) -> None:
    """Call ``listener(name)`` whenever work for job ``name`` is announced."""
    _listeners.add(listener)


def unlisten(listener: Callable[[str], None]) -> None:
    """Stop calling ``listener``."""
    _listeners.discard(listener)


def announce(name: str) -> None:
    """Work for job ``name`` may be waiting: run it now rather than at its period."""
    for listener in list(_listeners):
        listener(name)


def wake(conn: Connection, name: str, here: Callable[[], None] | None = None) -> None:
    """Work for ``name`` waits once ``conn``'s transaction commits: tell this process's
    runners then (``here``, by default :func:`announce`), and every listening process on
    PostgreSQL (with the commit; a rollback tells nobody)."""
    after_commit(conn, here or (lambda: announce(name)))
    if conn.dialect.name == "postgresql":
        conn.execute(_NOTIFY, {"channel": CHANNEL, "name": name})
