"""Migrated SQLite databases for tests, made cheap: each is a copy of one file this process
migrated once (migrating a new file takes a fifth of a second and imports Alembic; copying
one takes a few milliseconds, and a server started on it finds nothing to migrate)."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

from dicehall.server.core.db import make_engine, migrate


class SqliteTemplate:
    """One migrated file, copied on request."""

    def __init__(self) -> None:
        self.folder: str | None = None

    def copy_to(self, path: Path) -> None:
        """Put a migrated database at ``path``."""
        if self.folder is None:
            folder = tempfile.mkdtemp(prefix="dicehall-sqlite-template-")
            engine = make_engine(f"sqlite:///{folder}/template.sqlite3")
            try:
                migrate(engine)
            finally:
                engine.dispose()
            self.folder = folder
            atexit.register(shutil.rmtree, folder, True)
        for suffix in ("", "-wal"):
            source = Path(self.folder) / f"template.sqlite3{suffix}"
            if source.exists():
                shutil.copyfile(source, f"{path}{suffix}")


_TEMPLATE = SqliteTemplate()


def migrated_sqlite(path: Path) -> str:
    """The URL of a new, migrated SQLite database at ``path``."""
    _TEMPLATE.copy_to(path)
    return f"sqlite:///{path}"
