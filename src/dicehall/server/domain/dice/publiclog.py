"""A finished game's public log: each event as a spectator was entitled to see it by the end.

Everything is shown except the chance outcomes the game says were never shown to the table
(Hold'em pockets that were folded or never reached a showdown): such an outcome reads
``{"hidden": true, "count": N}`` and its ``dice_set`` is withheld. A game decides what is
hidden with a hook, ``hidden_outcomes(options, seats, events) -> frozenset[int]`` (indices
into ``events``), that its entry names (``GameEntry.hidden_outcomes``); a game without one
shows everything. The engine's Game contract is untouched.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from dicehall import games
from dicehall.engine import codec
from dicehall.engine.events import Event, Resolved, encode_event
from dicehall.games.entry import load

HiddenOutcomes = Callable[[Any, int, Sequence[Event]], frozenset[int]]


def hidden_outcomes_of(kind: str) -> HiddenOutcomes | None:
    """The hook of game ``kind`` (its entry's ``hidden_outcomes``, imported now), if any."""
    reference = games.get(kind).hidden_outcomes
    if reference is None:
        return None
    hook: HiddenOutcomes = load(reference)
    return hook


def public_events(
    kind: str,
    options: Any,
    seats: int,
    events: Sequence[Event],
    *,
    dice_sets: Sequence[int | None] | None = None,
    dice_keys: Sequence[int | None] | None = None,
) -> list[dict[str, Any]]:
    """The events of a finished game as JSON, with the outcomes never shown redacted.

    ``options`` is the game's decoded options, ``seats`` the number of seats, ``events``
    decoded with :func:`dicehall.engine.events.decode_event`. With ``dice_sets`` (one per
    event), each event carries its ``dice_set``, withheld (null) where its outcome is; with
    ``dice_keys`` (a game whose dice come from its deck), each roll its ``dice_key``.
    """
    if dice_sets is not None and len(dice_sets) != len(events):
        raise ValueError(f"{len(events)} events but {len(dice_sets)} dice sets")
    hook = hidden_outcomes_of(kind)
    hidden = hook(options, seats, events) if hook is not None else frozenset()
    shown: list[dict[str, Any]] = []
    for index, event in enumerate(events):
        data = encode_event(event)
        assert isinstance(data, dict)
        if index in hidden:
            assert isinstance(event, Resolved)
            data["outcome"] = {"hidden": True, "count": len(event.outcome)}
        if dice_sets is not None:
            data["dice_set"] = None if index in hidden else dice_sets[index]
        if dice_keys is not None and dice_keys[index] is not None:
            data["dice_key"] = None if index in hidden else dice_keys[index]
        shown.append(data)
    return shown


def is_hidden(event: codec.JSON) -> bool:
    """Whether a public event's outcome is redacted."""
    if not isinstance(event, dict):
        return False
    outcome = event.get("outcome")
    return isinstance(outcome, dict) and outcome.get("hidden") is True
