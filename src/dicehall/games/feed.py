"""A game's story as one seat may know it: every event so far, told in sentences, with the
chance outcomes that seat may not see (yet) withheld.

What a seat may not see is the game's to say, in one place: the hook
``hidden_from(options, seats, events, seat) -> frozenset[int]`` its entry names
(:attr:`GameEntry.hidden_from`) gives the indices into ``events`` of the outcomes that
``seat`` (None: a spectator) may not see once ``events`` have happened (a Boss's concealed
roll until its showdown, a Hold'em pocket until it is shown). A game without the hook hides
nothing. Each event is then told by the game's narrator (:mod:`dicehall.games.narration`)
from that seat's views alone, so a sentence can name no die the seat's view does not show.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from dicehall.engine.events import Acted, Event, Resolved, apply_event
from dicehall.games.entry import GameEntry, load
from dicehall.games.narration import Line, Narrator, SeenEvent, Unseen, generic_narrate

HiddenFrom = Callable[[Any, int, Sequence[Event], int | None], frozenset[int]]
"""``(options, seats, events, seat) -> indices`` of the outcomes ``seat`` may not see."""


def hidden_from_of(entry: GameEntry) -> HiddenFrom | None:
    """The game's hook (its entry's ``hidden_from``, imported now), if it has one."""
    if entry.hidden_from is None:
        return None
    hook: HiddenFrom = load(entry.hidden_from)
    return hook


def hidden_for(
    entry: GameEntry, options: Any, seats: int, events: Sequence[Event], seat: int | None
) -> frozenset[int]:
    """Indices in ``events`` of the outcomes ``seat`` may not see after them."""
    hook = hidden_from_of(entry)
    return hook(options, seats, events, seat) if hook is not None else frozenset()


def narrator_of(entry: GameEntry) -> Narrator:
    """The game's narrator (imported now), or the generic one."""
    if entry.narration is None:
        return generic_narrate
    narrate: Narrator = load(entry.narration)
    return narrate


@dataclass(frozen=True, slots=True)
class Told:
    """One event as a seat may know it: where it is in the log, who acted (None for dice),
    the event itself as seen (an outcome withheld is :class:`Unseen`), and its sentences."""

    index: int
    seat: int | None
    seen: SeenEvent
    lines: tuple[Line, ...]


def tell(
    entry: GameEntry,
    options: Any,
    seats: int,
    events: Sequence[Event],
    seat: int | None,
    names: Sequence[str],
    since: int = 0,
) -> list[Told]:
    """The events from ``since`` on, as ``seat`` (None: a spectator) may know them now.

    The game is replayed from its start; ``names`` are the seats' names as the sentences
    should say them (the watcher's own as :data:`~dicehall.games.narration.YOU`).
    """
    game = entry.game
    hidden = hidden_for(entry, options, seats, events, seat)
    narrate = narrator_of(entry)
    state = game.start(seats, options)
    told: list[Told] = []
    for index, event in enumerate(events):
        after = apply_event(game, state, event)
        if index >= since:
            seen: SeenEvent = event
            if index in hidden:
                assert isinstance(event, Resolved)
                seen = Unseen(len(event.outcome))
            lines = narrate(game.view(state, seat), seen, game.view(after, seat), names)
            actor = event.seat if isinstance(event, Acted) else None
            told.append(Told(index, actor, seen, tuple(lines)))
        state = after
    return told
