"""What each seat may see of a Boss Dice game's dice: everything but concealed rolls unshown.

The Boss's concealed roll is seen by the Boss at once, and by the opponent (and spectators)
only at a showdown, after "come up". When the Boss calls "pick 'em up" the concealed dice
are never shown, to anyone but the Boss, ever: whether he was bluffing is his to know. First
rolls, keeps and the opponent's rolls are public.
"""

from __future__ import annotations

from collections.abc import Sequence

from dicehall.engine.events import Event, Resolved, apply_event
from dicehall.games.boss.rules import GAME, BossOptions, BossState, Showdown


def hidden_from(
    options: BossOptions, seats: int, events: Sequence[Event], seat: int | None
) -> frozenset[int]:
    """Indices in ``events`` of concealed rolls ``seat`` (None: a spectator) has not seen:
    another seat's rolls that were picked up or are not shown down yet."""
    state: BossState = GAME.start(seats, options)
    concealed: tuple[int, int] | None = None  # (event index, the Boss's seat)
    hidden: set[int] = set()
    for index, event in enumerate(events):
        if isinstance(event, Resolved) and state.phase == "boss_roll":
            assert state.boss is not None
            concealed = (index, state.boss)
        before = len(state.history)
        state = apply_event(GAME, state, event)
        if concealed is not None and len(state.history) > before:
            # The hand is over: shown down, or picked up and never shown.
            if not isinstance(state.history[-1], Showdown) and concealed[1] != seat:
                hidden.add(concealed[0])
            concealed = None
    if concealed is not None and concealed[1] != seat:  # not called, or not shown down yet
        hidden.add(concealed[0])
    return frozenset(hidden)


def hidden_outcomes(options: BossOptions, seats: int, events: Sequence[Event]) -> frozenset[int]:
    """Indices in ``events`` of concealed rolls a spectator never saw (picked up, or a game
    cut short before the showdown)."""
    return hidden_from(options, seats, events, None)
