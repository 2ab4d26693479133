"""The one step loop: resolve chance and let bots act until someone else must move.

The terminal, the simulator, the research environments (through :class:`~.table.Table`)
and the site's move transaction all advance a game with :func:`advance`; each says where
its dice come from and which seats its bots play, and may stop early (the site stops when a
request's dice budget is spent, or at a bot that thinks too long for a request).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from dicehall.engine.bots import Bot
from dicehall.engine.chance import Draw, Outcome, Roll
from dicehall.engine.dice import DiceSource, resolve_request
from dicehall.engine.events import Acted, Event, Resolved
from dicehall.engine.game import Chance, Game, ToAct, Turn

S = TypeVar("S")

ChanceSource = Callable[[Roll | Draw], Outcome | None]
"""The outcome of a chance request, or None to stop before it (no dice to spend now)."""

SeatBots = Callable[[int], Bot | None]
"""The bot that plays a seat here, or None to stop when that seat must act."""

OnEvent = Callable[[Any, Event, Any], None]
"""Called after every event with (state before, event, state after)."""


def advance(
    game: Game[S, Any, Any, Any],
    state: S,
    chance: ChanceSource,
    bots: SeatBots,
    *,
    on_event: OnEvent | None = None,
    max_steps: int = 10_000_000,
) -> tuple[S, Turn | None]:
    """Play on from ``state`` until a seat without a bot must act, the game ends, or
    ``chance`` or ``bots`` stop it; return the state and the turn it stopped at (None when
    ``max_steps`` events were played first).

    A bot's action that is one of the moves just listed for this state is applied without
    checking it again; anything else a bot returns is checked as a player's move is.
    """
    for _ in range(max_steps):
        turn = game.turn(state)
        event: Event
        if isinstance(turn, Chance):
            outcome = chance(turn.request)
            if outcome is None:
                return state, turn
            after = game.resolve(state, outcome)
            event = Resolved(outcome)
        elif isinstance(turn, ToAct):
            bot = bots(turn.seat)
            if bot is None:
                return state, turn
            legal = game.legal(state, turn.seat)
            action = bot.choose(game.view(state, turn.seat), legal)
            if any(action is move for move in legal):
                after = game.apply(state, turn.seat, action)
            else:
                after = game.act(state, turn.seat, action)
            event = Acted(turn.seat, action)
        else:
            return state, turn
        if on_event is not None:
            on_event(state, event, after)
        state = after
    return state, None


def first_decision(
    game: Game[Any, Any, Any, Any], bot: Bot, seats: int, options: Any, source: DiceSource
) -> None:
    """Deal a game of ``seats`` with ``options`` from ``source`` until ``bot`` (in every seat)
    has made one decision: whatever tables it needs for these options are then built (or
    loaded) and kept. Warming a slow bot is exactly this."""
    decided: list[int] = []

    def once(seat: int) -> Bot | None:
        if decided:
            return None
        decided.append(seat)
        return bot

    advance(
        game,
        game.start(seats, options),
        lambda request: resolve_request(source, request),
        once,
        max_steps=10_000,
    )
