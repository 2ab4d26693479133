"""Hints for the board's optional odds panel: per game, from one seat's view only.

Each game module registers a function ``(view, legal) -> JSON`` with :func:`register`; the
API answers ``GET /api/v1/games/{id}/hint`` with it for the caller's own seat.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import Any

HintFunction = Callable[[Any, Sequence[Any]], dict[str, Any]]

_HINTS: dict[str, HintFunction] = {}


def register(game: str, function: HintFunction) -> None:
    """Make ``function`` the hint of ``game``."""
    _HINTS[game] = function


def hint_for(game: str) -> HintFunction | None:
    """The hint function of ``game`` (its module is imported on first use)."""
    if game not in _HINTS:
        try:
            importlib.import_module(f"dicehall.server.hints.{game}")
        except ModuleNotFoundError as exc:
            if exc.name != f"dicehall.server.hints.{game}":
                raise
    return _HINTS.get(game)
