"""What a bot worker process does: slow bots decide, and their tables are built, here.

These functions run in the site's bot process pool (see
:mod:`dicehall.server.workers.driver`), never in a request or on the event loop. Everything
crosses the process boundary as JSON text through the engine's codec. A worker keeps its
bots (and so their tables) for its lifetime.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import time
from collections.abc import Iterator
from pathlib import Path

from dicehall import games
from dicehall.engine import codec, step
from dicehall.engine.bots import Bot
from dicehall.engine.dice import Seeded
from dicehall.games.entry import load

#: How often a table build writes its progress.
PROGRESS_SECONDS = 0.5

_bots: dict[tuple[str, str], Bot] = {}


def _bot(kind: str, name: str) -> Bot:
    key = (kind, name)
    if key not in _bots:
        _bots[key] = games.get(kind).bot(name, random.SystemRandom())
    return _bots[key]


def decide(
    kind: str, name: str, state_json: str, seat: int, progress_path: str | None = None
) -> str:
    """The action bot ``name`` takes at ``seat`` in the given state, as JSON.

    The bot sees only the seat's view and legal actions, as in a request. A table build it
    starts writes its progress to ``progress_path`` (see :func:`reporting_to`).
    """
    game = games.get(kind).game
    state = codec.loads(state_json, game.state_type)
    with reporting_to(kind, progress_path):
        action = _bot(kind, name).choose(game.view(state, seat), game.legal(state, seat))
    return codec.dumps(action)


def warm(kind: str, name: str, options_json: str, progress_path: str | None = None) -> float:
    """Build (or load) what bot ``name`` needs for games with these options; the seconds taken.

    A short seeded game is played until the bot has made its first decision.
    """
    started = time.perf_counter()
    entry = games.get(kind)
    game = entry.game
    options = codec.loads(options_json, game.options_type)
    seats = max(game.min_seats, game.default_seats)
    with reporting_to(kind, progress_path):
        step.first_decision(game, _bot(kind, name), seats, options, Seeded(0))
    return time.perf_counter() - started


@contextlib.contextmanager
def reporting_to(kind: str, path: str | None) -> Iterator[None]:
    """While inside, a table build of the game's (if it tells its progress: ``GameEntry.
    progress``) writes ``{"fraction": f}`` to ``path``, at most every
    :data:`PROGRESS_SECONDS`, replacing the file whole so a reader never sees half of it."""
    hook = games.get(kind).progress
    if path is None or hook is None:
        yield
        return
    install = load(hook)
    last = [0.0]

    def report(fraction: float) -> None:
        moment = time.monotonic()
        if moment - last[0] < PROGRESS_SECONDS and fraction < 1.0:
            return
        last[0] = moment
        with contextlib.suppress(OSError):
            partial = f"{path}.{os.getpid()}"
            Path(partial).write_text(json.dumps({"fraction": round(fraction, 4)}))
            os.replace(partial, path)

    install(report)
    try:
        yield
    finally:
        install(None)


def read_progress(path: str) -> float | None:
    """The fraction a build wrote to ``path`` (None: nothing yet)."""
    try:
        fraction = json.loads(Path(path).read_text())["fraction"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return float(fraction) if isinstance(fraction, int | float) else None


def ping() -> int:
    """A no-op that proves a worker is up (its imports done)."""
    return 0
