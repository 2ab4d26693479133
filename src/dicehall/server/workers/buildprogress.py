"""How far the bot processes' table builds have got: each build writes its fraction done to a
file of its own (``botwork.reporting_to``) in a directory this process made, and the driver
reads them for its warm-up estimates and tells them to web processes without bot workers.

The time left is measured from the build's own pace since its first report, not since the
build began: a build may spend a while before its progress starts (Ten Thousand solves the
one-player game, untold, before the two-player one whose progress it tells)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Iterable

from dicehall.server.domain.bot_tables import WarmKey
from dicehall.server.workers import botwork

#: A build's progress says how long is left once it has told this much more than at first.
MIN_FRACTION = 0.02


class BuildProgress:
    """The progress files of one driver's builds, by key."""

    def __init__(self) -> None:
        self._directory: str | None = None
        self._told: dict[WarmKey, float] = {}
        #: When each build's first report was seen, and the fraction it said.
        self._first: dict[WarmKey, tuple[float, float]] = {}

    def open(self) -> None:
        """Make the directory the builds write to."""
        self._directory = tempfile.mkdtemp(prefix="dicehall-progress-")

    def close(self) -> None:
        """Remove the directory and all it holds."""
        if self._directory is not None:
            shutil.rmtree(self._directory, ignore_errors=True)
            self._directory = None

    def path(self, key: WarmKey) -> str | None:
        """The file a build of ``key``'s tables writes to (None before :meth:`open`)."""
        if self._directory is None:
            return None
        name = hashlib.sha256(json.dumps(key).encode()).hexdigest()[:24]
        return os.path.join(self._directory, f"{name}.json")

    def fraction(self, key: WarmKey) -> float | None:
        """How much of the build is done, as it last wrote (None: nothing yet)."""
        path = self.path(key)
        return None if path is None else botwork.read_progress(path)

    def left_s(self, key: WarmKey, moment: float | None = None) -> float | None:
        """Seconds left of the build at its pace since its first report (None until it has
        told :data:`MIN_FRACTION` more than then, and once it is done)."""
        fraction = self.fraction(key)
        if fraction is None:
            return None
        moment = time.monotonic() if moment is None else moment
        first_at, first = self._first.setdefault(key, (moment, fraction))
        done = fraction - first
        if done < MIN_FRACTION or fraction >= 1.0:
            return None
        return (moment - first_at) * (1.0 - fraction) / done

    def moved(self, keys: Iterable[WarmKey]) -> list[tuple[WarmKey, float]]:
        """The builds among ``keys`` whose fraction changed since the last call."""
        out = []
        for key in keys:
            fraction = self.fraction(key)
            if fraction is not None and fraction != self._told.get(key):
                self._told[key] = fraction
                out.append((key, fraction))
        return out

    def forget(self, key: WarmKey) -> None:
        """The build of ``key`` ended: its file goes."""
        self._told.pop(key, None)
        self._first.pop(key, None)
        path = self.path(key)
        if path is not None:
            with contextlib.suppress(OSError):
                os.remove(path)
