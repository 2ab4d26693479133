"""The data directory as the commands need it: usable, or one clear error before any work.

Solver tables, caches and the site's SQLite file live there (``DICEHALL_DATA`` or the
platform's user data directory). A command that reads or writes them checks it first, so an
unusable directory (a file, no permission) is one ``error:`` line with exit 2, never a
traceback, and never a claim that something was saved there.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from dicehall.cli.common import fail
from dicehall.engine.storage import data_dir


def _named(path: Path) -> str:
    if os.environ.get("DICEHALL_DATA"):
        return f"DICEHALL_DATA ({path})"
    return f"the data directory {path}"


def usable_data_dir() -> Path:
    """The data directory, made if missing and checked writable; exit 2 with one line if not."""
    path = data_dir()
    named = _named(path)
    if path.exists() and not path.is_dir():
        fail(f"{named} is not a directory; set DICEHALL_DATA to a directory dicehall may write")
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        fail(f"{named} cannot be used ({reason}); set DICEHALL_DATA to a writable directory")
    return path


def saved(path: Path) -> bool:
    """Whether ``path`` holds a file now (what a command may claim it saved)."""
    return path.is_file()
