"""Progress bars for long computations: what is being done, how far, and about how long is left.

Every long command (a solve, a Monte Carlo estimate, a bot's first tables) shows the same
bar on standard error, only on a terminal, and removes it when done.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from dicehall.cli.common import err_console

#: Told how far a computation has come: (done, total), in any unit.
Advance = Callable[[int, int], None]


@contextmanager
def progress_bar(
    description: str, *, console: Console = err_console, show: bool = True
) -> Iterator[Advance]:
    """A bar with the time spent and the time left (once the rate is known); yields the
    callback that moves it. Nothing is drawn when ``show`` is false or off a terminal."""
    with Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        TaskProgressColumn(),
        TimeElapsedColumn(),
        TextColumn("elapsed, about"),
        TimeRemainingColumn(),
        TextColumn("left"),
        console=console,
        transient=True,
        disable=not show or not console.is_terminal,
    ) as bar:
        task = bar.add_task(description, total=None)

        def advance(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield advance
