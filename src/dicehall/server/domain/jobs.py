"""The site's periodic jobs as the domain declares them, and how to wake one.

A job is a function of the services and the moment that does its work in its own write
transactions and returns how much it did; it must be safe with several processes on several
machines running it at once (each job takes its own lock or claims rows under a lock, and
checks again under it). :class:`~dicehall.server.workers.jobs.SiteJobs` runs them in every
server process. :func:`announce` tells every runner in this process that work for a job
may be waiting (a ticket filed, a tournament game ended), so that it runs now rather than
at its period; it is safe to call from any thread, typically after a commit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dicehall.server.domain.services import Services

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
