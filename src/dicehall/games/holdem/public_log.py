"""What each seat may see of a Hold'em game's dice: everything but other seats' pockets
until they are shown.

A pocket is dealt as two chance events: a ``Draw(2)`` of colours from the bag, then a
``Roll(2)`` of their faces. Its owner sees it at once; the rest of the table only when its
seat is still in the hand at a showdown. A folded pocket is never shown to anyone else,
ever; nor is the winner's pocket of a hand everyone else folded to. Board draws and rolls
(flop re-rolls too) and every betting action are public.
"""

from __future__ import annotations

from collections.abc import Sequence

from dicehall.engine.events import Event, Resolved, apply_event
from dicehall.games.holdem.model import HoldemOptions, HoldemState
from dicehall.games.holdem.rules import GAME


def hidden_from(
    options: HoldemOptions, seats: int, events: Sequence[Event], seat: int | None
) -> frozenset[int]:
    """Indices in ``events`` of other seats' pocket dice that ``seat`` (None: a spectator)
    has not seen: those not shown at a showdown (pockets of a hand still under way too)."""
    state: HoldemState = GAME.start(seats, options)
    # (hand, seat) -> the indices of that pocket's colour draw and face roll.
    pockets: dict[tuple[int, int], list[int]] = {}
    shown: set[tuple[int, int]] = set()
    for index, event in enumerate(events):
        dealing = state.dealing
        if isinstance(event, Resolved) and state.stage in ("pocket_colours", "pocket_faces"):
            assert dealing is not None
            pockets.setdefault((state.hand, dealing), []).append(index)
        before = state.last
        state = apply_event(GAME, state, event)
        if state.last is not None and state.last is not before:
            shown.update((state.last.hand, s.seat) for s in state.last.showdown)
    return frozenset(
        i for key, found in pockets.items() if key not in shown and key[1] != seat for i in found
    )


def hidden_outcomes(options: HoldemOptions, seats: int, events: Sequence[Event]) -> frozenset[int]:
    """Indices in ``events`` of the outcomes a spectator never sees: unshown pockets' dice.

    Pockets of a hand that has not ended (a game cut short) count as unshown.
    """
    return hidden_from(options, seats, events, None)
