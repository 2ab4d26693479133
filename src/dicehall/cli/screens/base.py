"""The interactive terminal game: the protocol a game's screen follows, and the loop."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Protocol

from rich.console import Console

from dicehall.cli.common import SeatSpec
from dicehall.cli.hotseat import HotSeat
from dicehall.engine.dice import DiceSource
from dicehall.engine.errors import IllegalMove
from dicehall.engine.events import Event
from dicehall.engine.game import Finished, Result, ToAct
from dicehall.engine.table import Table
from dicehall.games import GameEntry


class Screen(Protocol):
    """How one game draws itself and asks a human for a move."""

    def render(self, console: Console, view: Any, names: Sequence[str]) -> None:
        """Draw the position as ``view``'s seat sees it."""
        ...

    def choose(
        self, console: Console, view: Any, legal: Sequence[Any], names: Sequence[str]
    ) -> Any:
        """Ask the human at ``view``'s seat for one of ``legal``."""
        ...

    def narrate(
        self, console: Console, before: Any, event: Event, after: Any, names: Sequence[str]
    ) -> None:
        """Tell the watcher what just happened, using only the watcher's views."""
        ...

    def show_result(
        self, console: Console, view: Any, result: Result, names: Sequence[str]
    ) -> None:
        """Show the end of the game."""
        ...


def play_in_terminal(
    entry: GameEntry,
    seats: Sequence[SeatSpec],
    options: Any,
    source: DiceSource,
    console: Console,
    screen: Screen,
    rng: random.Random,
) -> Result:
    """Run a game at the keyboard: bots move by themselves, humans are asked in turn."""
    game = entry.game
    names = [s.name for s in seats]
    humans = [i for i, s in enumerate(seats) if s.is_human]
    bots = {i: entry.bot(s.bot, rng) for i, s in enumerate(seats) if s.bot is not None}
    # With one human the screen is theirs; with several, narration shows only public dice.
    watcher: int | None = humans[0] if len(humans) == 1 else None
    # People who must not see each other's dice pass the keyboard (see dicehall.cli.hotseat).
    hot_seat = (
        HotSeat(console, screen, names) if game.hidden_information and len(humans) > 1 else None
    )

    def listener(before: Any, event: Event, after: Any) -> None:
        shown = game.view(before, watcher), event, game.view(after, watcher)
        if hot_seat is not None:
            hot_seat.tell(*shown)
        else:
            screen.narrate(console, *shown, names)

    table: Table[Any, Any] = Table(game, len(seats), options, listener=listener)
    last_human: int | None = None
    while True:
        turn = table.advance(source, bots)
        if isinstance(turn, Finished):
            if hot_seat is not None:
                hot_seat.finish()
            screen.show_result(console, game.view(table.state, watcher), turn.result, names)
            return turn.result
        if not isinstance(turn, ToAct):  # pragma: no cover - advance resolves all chance
            raise RuntimeError(f"unexpected turn {turn!r}")
        seat = turn.seat
        if hot_seat is not None:
            if seat != last_human:
                hot_seat.pass_to(seat)
            hot_seat.turn_starts(seat)
        last_human = seat
        view = game.view(table.state, seat)
        screen.render(console, view, names)
        action = screen.choose(console, view, game.legal(table.state, seat), names)
        try:
            table.act(seat, action)
        except IllegalMove as exc:
            console.print(f"[red]Not allowed:[/] {exc.reason}")
