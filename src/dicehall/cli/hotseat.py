"""Hot seat: one keyboard passed between people who must not see each other's hidden dice.

On every pass the screen and the terminal's scrollback are wiped, so nothing the last player
saw (a Boss's concealed roll, a Hold'em pocket) can be scrolled back to. The next player
then reads what happened since their last turn, told again from public views only, so a
showdown or a fold that ended a hand is never wiped before everyone has read it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from rich.console import Console

from dicehall.cli.narration import whose
from dicehall.engine.events import Event

#: Erase the screen, then the scrollback (ESC[3J, which xterm, VTE, iTerm2, tmux and the
#: Windows Terminal honour), then put the cursor home. The screen goes first: some
#: terminals push an erased screen into the scrollback.
WIPE = "\x1b[2J\x1b[3J\x1b[H"


class Narrator(Protocol):
    """What a hot seat needs from a game's screen: telling one event."""

    def narrate(
        self, console: Console, before: Any, event: Event, after: Any, names: Sequence[str]
    ) -> None:
        """Tell the watcher what just happened, using only the watcher's views."""
        ...


def wipe(console: Console) -> None:
    """Clear the screen and the scrollback (on a terminal; elsewhere there is nothing to
    clear, and the text goes on)."""
    if console.is_terminal:
        console.file.write(WIPE)
        console.file.flush()


@dataclass
class HotSeat:
    """The public story of a game and how far each person at the keyboard has read it."""

    console: Console
    screen: Narrator
    names: Sequence[str]
    #: Every event so far with the public views before and after it.
    story: list[tuple[Any, Event, Any]] = field(default_factory=list)
    #: Where each seat's last turn began in :attr:`story`.
    read: dict[int, int] = field(default_factory=dict)

    def tell(self, before: Any, event: Event, after: Any) -> None:
        """Narrate an event now (public views only) and keep it for the recaps."""
        self.story.append((before, event, after))
        self.screen.narrate(self.console, before, event, after, self.names)

    def pass_to(self, seat: int) -> None:
        """Wipe the screen and its scrollback, wait for ``seat``'s player, then tell them
        what happened since their last turn."""
        name = self.names[seat]
        wipe(self.console)
        self.console.input(f"Pass the keyboard to [bold]{name}[/] and press Enter ")
        wipe(self.console)
        if seat in self.read:
            self.recap(self.read[seat], f"Since {whose(name)} last turn")
        else:
            self.recap(0, "The game so far")

    def turn_starts(self, seat: int) -> None:
        """Mark where ``seat``'s turn begins: its next recap starts here, with its own move."""
        self.read[seat] = len(self.story)

    def finish(self) -> None:
        """At the end: wipe the last player's screen and tell what not everyone has read."""
        wipe(self.console)
        self.recap(min(self.read.values(), default=0), "The last moves")

    def recap(self, start: int, title: str) -> None:
        """Tell the story again from ``start`` (nothing when nothing public happened)."""
        with self.console.capture() as told:
            for before, event, after in self.story[start:]:
                self.screen.narrate(self.console, before, event, after, self.names)
        text = told.get()
        if not text.strip():
            return
        self.console.rule(title, align="left")
        self.console.file.write(text)  # already rendered for this console
        self.console.rule()
