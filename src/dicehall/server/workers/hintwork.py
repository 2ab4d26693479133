"""Hints computed in a worker process with a time budget, never in a request's thread.

Some hints cost a second of CPU (Hold'em equity against five seats); run in the server's
threads they would hold the interpreter lock against every other request. The hint service
sends the game's state and the asking seat to its own small process pool; the worker builds
the seat's view and legal actions there, as a request would, and answers JSON text.
"""

from __future__ import annotations

import json
from typing import Any

from dicehall import games
from dicehall.engine import codec
from dicehall.server.workers.procpool import PoolBusy, ProcessPool

#: Hints waiting for a worker beyond this many are refused at once (503, try again).
MAX_PENDING = 16


class HintsBusy(Exception):
    """No hint could be had within the budget; the client should try again shortly."""


def compute(kind: str, state_json: str, seat: int) -> str:
    """The hint for ``seat`` of a ``kind`` game in the given state, as JSON text (in a worker)."""
    entry = games.get(kind)
    function = entry.seat_hint()
    if function is None:
        raise LookupError(f"{kind} has no hints")
    game = entry.game
    state = codec.loads(state_json, game.state_type)
    return json.dumps(function(game.view(state, seat), game.legal(state, seat)))


class HintService:
    """The site's hint workers: ``processes`` of them, each hint within ``budget`` seconds."""

    def __init__(self, processes: int, budget: float) -> None:
        self.budget = budget
        self.workers = ProcessPool(processes, max_pending=MAX_PENDING)

    def bind(self, loop: Any) -> None:
        """Deliver results to the server's event loop."""
        self.workers.bind(loop)

    async def hint(self, kind: str, state_json: str, seat: int) -> dict[str, Any]:
        """The hint for ``seat``; :class:`HintsBusy` when none came within the budget."""
        try:
            answer = await self.workers.run(self.budget, compute, kind, state_json, seat)
        except PoolBusy as exc:
            raise HintsBusy("many hints are being worked out; try again shortly") from exc
        except TimeoutError as exc:
            raise HintsBusy("the hint took too long; try again shortly") from exc
        found: dict[str, Any] = json.loads(answer)
        return found

    def close(self) -> None:
        """End the workers."""
        self.workers.close()
