"""A per-test time limit that code holding the GIL cannot hold off (a pytest plugin).

pytest-timeout's thread method needs the GIL to fire, so a Numba kernel or C call that keeps
it runs on. faulthandler's watchdog is a C thread: past the test's limit plus a grace it
prints every thread's stack and ends the process, which pytest-xdist reports as a failed
test. The limit is pytest-timeout's (``timeout`` in pyproject.toml, ``--timeout``, or a
``timeout`` mark), so it covers setup, body and teardown alike.
"""

from __future__ import annotations

import faulthandler
import os
from collections.abc import Generator
from typing import TextIO

import pytest

#: Seconds after pytest-timeout's own limit, so that it reports first when it can.
GRACE_INI = "hard_timeout_grace"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini(GRACE_INI, "seconds past the timeout before the hard stop", default="30")


_REAL_STDERR: list[TextIO] = []


def pytest_configure(config: pytest.Config) -> None:
    # Output capture has fd 2 by now, and a dump into its file would vanish with the
    # process: write to the stderr that capture saved (fd 2 itself when capture is off).
    capture = config.pluginmanager.getplugin("capturemanager")
    saved = getattr(getattr(getattr(capture, "_global_capturing", None), "err", None),
                    "targetfd_save", 2)  # fmt: skip
    _REAL_STDERR.append(os.fdopen(os.dup(saved), "w"))


def limit_of(item: pytest.Item) -> float | None:
    """The test's time limit in seconds, or None when it has none."""
    marker = item.get_closest_marker("timeout")
    if marker is not None and marker.args:
        return float(marker.args[0]) or None
    given = item.config.getoption("timeout", None) or item.config.getini("timeout")
    return float(given) or None if given else None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, None, None]:
    limit = limit_of(item)
    if limit is not None:
        grace = float(item.config.getini(GRACE_INI))
        faulthandler.dump_traceback_later(limit + grace, exit=True, file=_REAL_STDERR[0])
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()
