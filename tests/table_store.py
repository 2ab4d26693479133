"""Solver tables the tests share, kept across runs on this machine.

A cache folder is named by a hash of the sources that make its tables (and of the NumPy,
Numba and Python that ran them), so a change to a kernel or an option gives a new, empty
folder: a stale table is rebuilt, never used. The folder lives in ``$DICEHALL_TEST_CACHE``, else
the user cache directory (``~/.cache/dicehall-tests``). A test session never writes into it
after the build: it works on hard links of the tables in a folder of its own.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import time
from collections.abc import Iterable
from pathlib import Path

from platformdirs import user_cache_dir

ROOT = Path(__file__).resolve().parents[1]

#: A cache folder of an older key is removed once it has been left alone this long (a run
#: of the older sources may still be building it until then).
STALE_AFTER_S = 3600.0


def cache_root() -> Path:
    """Where the test tables of every key are kept."""
    given = os.environ.get("DICEHALL_TEST_CACHE")
    return Path(given) if given else Path(user_cache_dir("dicehall-tests", appauthor=False))


def source_key(paths: Iterable[Path], *, extra: str = "") -> str:
    """A hash of every ``.py`` file under ``paths`` (their names relative to the repository
    and their bytes), the numeric stack's versions and ``extra``."""
    import numba
    import numpy

    digest = hashlib.sha256()
    for name in (sys.version, numpy.__version__, numba.__version__, extra):
        digest.update(name.encode() + b"\0")
    files: set[Path] = set()
    for path in paths:
        files.update(path.rglob("*.py") if path.is_dir() else [path])
    for file in sorted(files):
        where = file.resolve()
        label = where.relative_to(ROOT) if where.is_relative_to(ROOT) else where
        digest.update(str(label).encode() + b"\0" + where.read_bytes() + b"\0")
    return digest.hexdigest()[:20]


def keyed_folder(name: str, key: str) -> Path:
    """The cache folder ``<name>-<key>`` (made if missing); folders of ``name`` with another
    key that nobody touched for :data:`STALE_AFTER_S` are removed."""
    root = cache_root()
    folder = root / f"{name}-{key}"
    folder.mkdir(parents=True, exist_ok=True)
    os.utime(folder)  # in use: not stale for another hour
    for other in root.glob(f"{name}-*"):
        if other != folder and time.time() - other.stat().st_mtime > STALE_AFTER_S:
            shutil.rmtree(other, ignore_errors=True)
    return folder


def link_tree(source: Path, target: Path) -> None:
    """Hard links of every file under ``source`` at the same place under ``target``.

    The tables are replaced atomically when written (a new file renamed over the old), never
    changed in place, so a session that rewrites one leaves the cached file as it was."""
    for file in source.rglob("*"):
        if file.is_dir() or file.name.startswith("."):
            continue
        linked = target / file.relative_to(source)
        linked.parent.mkdir(parents=True, exist_ok=True)
        if not linked.exists():
            os.link(file, linked)
