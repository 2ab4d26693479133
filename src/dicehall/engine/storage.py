"""Where dicehall keeps its files: solver tables, caches, the embedded site database."""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import user_data_dir


def data_dir() -> Path:
    """The user data directory (``DICEHALL_DATA`` overrides it)."""
    override = os.environ.get("DICEHALL_DATA")
    return Path(override) if override else Path(user_data_dir("dicehall", appauthor=False))
