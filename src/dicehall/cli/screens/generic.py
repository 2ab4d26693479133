"""The screen of a game that has none of its own: its view as it is, its moves by number."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from rich.console import Console

from dicehall.cli.narration import agree, does, together
from dicehall.engine import codec
from dicehall.engine.events import Acted, Event
from dicehall.engine.game import Result


def action_text(action: Any) -> str:
    """An action in words from its codec form: ``roll again``, ``bet (amount 10)``."""
    data = codec.encode(action)
    if not isinstance(data, dict):
        return str(data)
    words = str(data.get("type", "move")).replace("_", " ")
    details = ", ".join(
        f"{key} {json.dumps(value)}" for key, value in data.items() if key != "type"
    )
    return f"{words} ({details})" if details else words


def _outcome_text(outcome: Sequence[Any]) -> str:
    return " ".join(str(item) for item in outcome)


class GenericScreen:
    """Any game at the keyboard: the seat's view field by field, and its legal actions."""

    def render(self, console: Console, view: Any, names: Sequence[str]) -> None:
        """Print every field of the view (what this seat may know), as JSON values."""
        console.print()
        data = codec.encode(view)
        fields = data.items() if isinstance(data, dict) else [("view", data)]
        for key, value in fields:
            if key != "type":
                console.print(f"  {key}: {json.dumps(value)}", markup=False, soft_wrap=True)

    def choose(
        self, console: Console, view: Any, legal: Sequence[Any], names: Sequence[str]
    ) -> Any:
        """List the legal actions by number and ask for one (by number or by its words)."""
        texts = [action_text(action) for action in legal]
        for number, text in enumerate(texts, 1):
            console.print(f"  {number}) {text}", markup=False)
        numbers = "1" if len(legal) == 1 else f"1-{len(legal)}"
        while True:
            answer = console.input(f"Your move ({numbers}): ", markup=False).strip().lower()
            if answer.isdigit() and 1 <= int(answer) <= len(legal):
                return legal[int(answer) - 1]
            if answer in texts:
                return legal[texts.index(answer)]
            console.print(f"[red]Type a number ({numbers}) or a move as listed.[/]")

    def narrate(
        self, console: Console, before: Any, event: Event, after: Any, names: Sequence[str]
    ) -> None:
        """Say who chose what, and what the dice showed."""
        if isinstance(event, Acted):
            line = does(names[event.seat], f"chooses {action_text(event.action)}.")
        else:
            line = f"Dice: {_outcome_text(event.outcome)}"
        console.print(line, markup=False)

    def show_result(
        self, console: Console, view: Any, result: Result, names: Sequence[str]
    ) -> None:
        """Who won, and every seat's score."""
        winners = [names[w] for w in result.winners]
        said = "share the win" if len(winners) > 1 else agree(winners[0], "wins")
        console.print(f"[bold green]{together(winners)} {said}[/] after {result.turns} turns.")
        scores = ", ".join(
            f"{name} {score}" for name, score in zip(names, result.scores, strict=True)
        )
        console.print(f"Scores: {scores}.", markup=False)
