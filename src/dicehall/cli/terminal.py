"""The interactive terminal game: a generic loop, and the protocol each game's screen follows."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Protocol

from rich.console import Console
from rich.prompt import Prompt

from dicehall.cli.common import SeatSpec
from dicehall.engine.dice import DiceSource
from dicehall.engine.driver import Table
from dicehall.engine.errors import IllegalMove
from dicehall.engine.events import Event
from dicehall.engine.game import Finished, Result, ToAct
from dicehall.games import GameEntry


class TerminalUI(Protocol):
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


_UIS: dict[str, TerminalUI] = {}


def register_ui(game_name: str, ui: TerminalUI) -> None:
    """Make ``ui`` the terminal screen of ``game_name``."""
    _UIS[game_name] = ui


def ui_for(game_name: str) -> TerminalUI | None:
    """The terminal screen of a game, if it has one."""
    return _UIS.get(game_name)


def play_in_terminal(
    entry: GameEntry,
    seats: Sequence[SeatSpec],
    options: Any,
    source: DiceSource,
    console: Console,
    ui: TerminalUI,
    rng: random.Random,
) -> Result:
    """Run a game at the keyboard: bots move by themselves, humans are asked in turn."""
    game = entry.game
    names = [s.name for s in seats]
    humans = [i for i, s in enumerate(seats) if s.is_human]
    bots = {i: entry.bot(s.bot, rng) for i, s in enumerate(seats) if s.bot is not None}
    # With one human the screen is theirs; with several, narration shows only public dice.
    watcher: int | None = humans[0] if len(humans) == 1 else None
    if not humans:
        watcher = None

    def listener(before: Any, event: Event, after: Any) -> None:
        ui.narrate(console, game.view(before, watcher), event, game.view(after, watcher), names)

    table: Table[Any, Any] = Table(game, len(seats), options, listener=listener)
    last_human: int | None = None
    while True:
        turn = table.advance(source, bots)
        if isinstance(turn, Finished):
            ui.show_result(console, game.view(table.state, watcher), turn.result, names)
            return turn.result
        if not isinstance(turn, ToAct):  # pragma: no cover - advance resolves all chance
            raise RuntimeError(f"unexpected turn {turn!r}")
        seat = turn.seat
        if game.hidden_information and len(humans) > 1 and seat != last_human:
            console.clear()
            Prompt.ask(f"Pass the keyboard to [bold]{names[seat]}[/] and press Enter", default="")
        last_human = seat
        view = game.view(table.state, seat)
        ui.render(console, view, names)
        action = ui.choose(console, view, game.legal(table.state, seat), names)
        try:
            table.act(seat, action)
        except IllegalMove as exc:
            console.print(f"[red]Not allowed:[/] {exc.reason}")
