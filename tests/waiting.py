"""The one way a test waits: poll a condition until it holds or a deadline passes.

No test sleeps to synchronise (``tests/test_suite_rules.py`` greps for literal sleeps outside
this module). A wait names what it waits for, so a condition that never comes fails with that
text instead of a bare timeout, and returns as soon as the condition holds.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")

#: How often a condition is asked again: short enough not to slow a test that waits on a
#: server, long enough not to steal its CPU.
INTERVAL = 0.02


class WaitTimeout(AssertionError):
    """A condition did not hold before its deadline."""


def wait_until(
    condition: Callable[[], T | None],
    *,
    timeout: float = 10.0,
    interval: float = INTERVAL,
    what: str = "a condition",
) -> T:
    """Call ``condition`` until it returns something truthy, and return that.

    Raises :class:`WaitTimeout` (an ``AssertionError``) naming ``what`` after ``timeout``
    seconds. Exceptions from ``condition`` propagate: catch them in the condition when a
    failed attempt (a refused connection, say) means "not yet".
    """
    deadline = time.monotonic() + timeout
    while True:
        result = condition()
        if result:
            return result
        if time.monotonic() >= deadline:
            raise WaitTimeout(f"waited {timeout:g} s for {what}")
        time.sleep(interval)


async def wait_until_async(
    condition: Callable[[], Awaitable[T | None] | T | None],
    *,
    timeout: float = 10.0,
    interval: float = INTERVAL,
    what: str = "a condition",
) -> T:
    """:func:`wait_until` for a coroutine: ``condition`` may be sync or async, and the loop
    runs other tasks between tries."""
    deadline = time.monotonic() + timeout
    while True:
        result = condition()
        if asyncio.iscoroutine(result) or isinstance(result, asyncio.Future):
            result = await result
        if result:
            return result  # type: ignore[return-value]
        if time.monotonic() >= deadline:
            raise WaitTimeout(f"waited {timeout:g} s for {what}")
        await asyncio.sleep(interval)
