"""Children of the tests start with the default signal dispositions.

A shell that starts a job in the background (``make pytest &``) makes it ignore SIGINT and
SIGQUIT, and an ignored signal stays ignored across ``exec``: a ``dicehall`` started from such
a run would never see the Ctrl-C a test sends it. Pass :func:`default_signals` as a child's
``preexec_fn``; ``tests/conftest.py`` also resets the test process itself.
"""

from __future__ import annotations

import signal

#: What a background job inherits as ignored.
RESET = (signal.SIGINT, signal.SIGQUIT)


def default_signals() -> None:
    """Give this process (a child about to ``exec``) the default handling of :data:`RESET`."""
    for number in RESET:
        signal.signal(number, signal.SIG_DFL)


def python_default_signals() -> None:
    """Give the test process Python's own SIGINT handling (KeyboardInterrupt) and SIGQUIT's
    default, so that every child it starts inherits no ignored signal."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if signal.getsignal(signal.SIGQUIT) is signal.SIG_IGN:
        signal.signal(signal.SIGQUIT, signal.SIG_DFL)
