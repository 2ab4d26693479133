"""What made a finished game worth a look: a game's :class:`Highlight` records.

A game names its hook on its entry (:attr:`GameEntry.highlights`, ``"module:function"``, a
:data:`HighlightsHook`): given the game as it was played (:class:`Played`), it returns short
records (a Boatzee rolled, a pot won, a Bull's Eye hit), each about one seat, in words that
follow the seat's name ("rolled 2 Boatzees"). Whoever shows them (the site's Singularity
page) names the seat and the game, decides which score beats a record, and leaves out what
may not be shown. A hook reads the whole state, hidden dice included, so a highlight must
name nothing the table did not see by the end (a pot's size, never a folded pocket).

A game without the hook has no highlights.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from dicehall.engine.events import Event, apply_event
from dicehall.engine.game import Finished, Game
from dicehall.games.entry import GameEntry, load

#: The longest words of a highlight (what follows a name) and of a record's title.
TEXT_MOST = 160
TITLE_MOST = 80
#: The longest record key.
RECORD_MOST = 80
#: A figure's bounds (the site stores it in a 64-bit column).
VALUE_MOST = 2**63 - 1


@dataclass(frozen=True, slots=True)
class Highlight:
    """One thing a seat did that is worth a look.

    ``text`` follows the seat's name ("rolled 2 Boatzees"); ``value`` is its figure (how
    many, how big). ``record`` names the site-wide record the figure competes for (None:
    none), as ``record_title`` words it ("a Triple Boatzee score"); larger is better, and
    only a game played to its end competes. ``shown``: worth a look in itself (False: only
    when it beats the record).
    """

    what: str
    seat: int
    text: str
    value: int
    record: str | None = None
    record_title: str = ""
    shown: bool = True

    def __post_init__(self) -> None:
        if not self.what or len(self.what) > 20:
            raise ValueError(f"a highlight's kind is 1 to 20 characters, not {self.what!r}")
        if not self.text or len(self.text) > TEXT_MOST:
            raise ValueError(f"a highlight's text is 1 to {TEXT_MOST} characters")
        if isinstance(self.value, bool) or not isinstance(self.value, int):
            raise ValueError(f"a highlight's value is a whole number, not {self.value!r}")
        if not -VALUE_MOST <= self.value <= VALUE_MOST:
            raise ValueError("a highlight's value is out of range")
        if isinstance(self.seat, bool) or not isinstance(self.seat, int):
            raise ValueError(f"a highlight's seat is a whole number, not {self.seat!r}")
        if self.record is not None and not 0 < len(self.record) <= RECORD_MOST:
            raise ValueError(f"a record key is 1 to {RECORD_MOST} characters")
        if self.record is not None and not 0 < len(self.record_title) <= TITLE_MOST:
            raise ValueError(f"a record's title is 1 to {TITLE_MOST} characters")


@dataclass(frozen=True)
class Played:
    """A game as a hook reads it: its options, seats and every event, and the last state."""

    game: Game[Any, Any, Any, Any]
    options: Any
    seats: int
    events: tuple[Event, ...]
    final: Any

    @property
    def complete(self) -> bool:
        """Whether the rules ended it (not a resignation or a timeout): only such a game's
        scores compete for records."""
        return isinstance(self.game.turn(self.final), Finished)

    def steps(self) -> Iterator[tuple[Any, Event, Any]]:
        """Every event with the states before and after it, from the start."""
        state = self.game.start(self.seats, self.options)
        for event in self.events:
            after = apply_event(self.game, state, event)
            yield state, event, after
            state = after


def played(
    game: Game[Any, Any, Any, Any], options: Any, seats: int, events: Sequence[Event]
) -> Played:
    """The game replayed from ``events`` (each checked by the rules)."""
    state = game.start(seats, options)
    for event in events:
        state = apply_event(game, state, event)
    return Played(game, options, seats, tuple(events), state)


HighlightsHook = Callable[[Played], Sequence[Highlight]]
"""``played -> highlights``: what was worth a look in one game."""


def hook_of(entry: GameEntry) -> HighlightsHook | None:
    """The game's hook (its entry's ``highlights``, imported now), if it has one."""
    if entry.highlights is None:
        return None
    hook: HighlightsHook = load(entry.highlights)
    return hook


def times(count: int, once: str, many: str) -> str:
    """ "rolled a Boatzee", "rolled 3 Boatzees": ``once`` for one, ``many`` with the count."""
    return once if count == 1 else many.format(count=count)
