"""What a bot worker process does: slow bots decide, and their tables are built, here.

These functions run in the site's bot process pool (see
:mod:`dicehall.server.workers.driver`), never in a request or on the event loop. Everything
crosses the process boundary as JSON text through the engine's codec. A worker keeps its
bots (and so their tables) for its lifetime.
"""

from __future__ import annotations

import random
import time

from dicehall import games
from dicehall.engine import codec, step
from dicehall.engine.bots import Bot
from dicehall.engine.dice import Seeded

_bots: dict[tuple[str, str], Bot] = {}


def _bot(kind: str, name: str) -> Bot:
    key = (kind, name)
    if key not in _bots:
        _bots[key] = games.get(kind).bot(name, random.SystemRandom())
    return _bots[key]


def decide(kind: str, name: str, state_json: str, seat: int) -> str:
    """The action bot ``name`` takes at ``seat`` in the given state, as JSON.

    The bot sees only the seat's view and legal actions, as in a request.
    """
    game = games.get(kind).game
    state = codec.loads(state_json, game.state_type)
    action = _bot(kind, name).choose(game.view(state, seat), game.legal(state, seat))
    return codec.dumps(action)


def warm(kind: str, name: str, options_json: str) -> float:
    """Build (or load) what bot ``name`` needs for games with these options; the seconds taken.

    A short seeded game is played until the bot has made its first decision.
    """
    started = time.perf_counter()
    entry = games.get(kind)
    game = entry.game
    options = codec.loads(options_json, game.options_type)
    seats = max(game.min_seats, game.default_seats)
    step.first_decision(game, _bot(kind, name), seats, options, Seeded(0))
    return time.perf_counter() - started


def ping() -> int:
    """A no-op that proves a worker is up (its imports done)."""
    return 0
