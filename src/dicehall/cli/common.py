"""What every command shares: consoles, errors, seat lists, option pairs, JSON output."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from typing import Any, NoReturn

from rich.console import Console

from dicehall.engine.errors import InvalidInput

console = Console(highlight=False)
err_console = Console(stderr=True, highlight=False)


def fail(message: str) -> NoReturn:
    """Print a one-line error and exit with status 2."""
    err_console.print(f"[bold red]error:[/] {message}", soft_wrap=True)
    raise SystemExit(2)


def print_json(data: Any) -> None:
    """Print JSON on standard output (no colours, no wrapping)."""
    sys.stdout.write(json.dumps(data, indent=2) + "\n")


@dataclass(frozen=True)
class SeatSpec:
    """One seat from ``--seats``: a human by name, or a bot by name."""

    name: str
    bot: str | None = None

    @property
    def is_human(self) -> bool:
        """True for a person at the keyboard."""
        return self.bot is None


def parse_seats(text: str) -> list[SeatSpec]:
    """``you,bot:heuristic,alice`` as seat specs; names are made unique."""
    specs: list[SeatSpec] = []
    seen: dict[str, int] = {}
    for raw in text.split(","):
        token = raw.strip()
        if not token:
            raise InvalidInput(f"--seats: empty seat in {text!r}")
        if token.lower().startswith("bot:"):
            bot = token[4:].strip().lower()
            if not bot:
                raise InvalidInput("--seats: a bot seat needs a name, like bot:random")
            label = f"{bot} bot"
            spec = SeatSpec(label, bot)
        else:
            if len(token) > 24 or not all(c.isalnum() or c in "-_ ." for c in token):
                raise InvalidInput(f"--seats: {token!r} is not a usable player name")
            spec = SeatSpec("You" if token.lower() == "you" else token)
        count = seen.get(spec.name, 0) + 1
        seen[spec.name] = count
        if count > 1:
            spec = SeatSpec(f"{spec.name} {count}", spec.bot)
        specs.append(spec)
    return specs


def parse_bot_list(text: str) -> list[str]:
    """``heuristic,random`` as bot names, one per seat."""
    names = [t.strip().lower() for t in text.split(",")]
    if not names or any(not n for n in names):
        raise InvalidInput(f"--bots: expected names like heuristic,random, not {text!r}")
    return [n[4:] if n.startswith("bot:") else n for n in names]
