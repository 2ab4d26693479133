"""What every command shares: consoles, errors, shared options, typed reports, seat lists."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape

from dicehall import games
from dicehall.engine import codec
from dicehall.engine.errors import InvalidInput

if TYPE_CHECKING:
    from dicehall.server.core.config import Settings

console = Console(highlight=False)
err_console = Console(stderr=True, highlight=False)

#: ``--json`` of a command whose text output is a table.
JsonTable = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]
#: ``--json`` of a command whose text output is sentences.
JsonText = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]
#: ``--json``, said plainly.
Json = Annotated[bool, typer.Option("--json", help="Print JSON.")]
#: ``--option name=value``, repeated: a game's house rules.
GameOptions = Annotated[
    list[str] | None, typer.Option("--option", "-o", help="A game option, name=value.")
]


def with_shortcuts(
    pairs: Mapping[str, str], shortcuts: Mapping[str, object | None]
) -> dict[str, object]:
    """Game options from ``-o name=value`` pairs and the flags that are shortcuts for some of
    them (``--columns 3`` is ``-o columns=3``): either form may be used, both if they agree."""
    merged: dict[str, object] = dict(pairs)
    for name, value in shortcuts.items():
        if value is None:
            continue
        given = merged.get(name)
        if given is not None and str(given).strip().lower() != str(value).strip().lower():
            raise InvalidInput(f"--{name} {value} and -o {name}={given} disagree: give one of them")
        merged[name] = value
    return merged


def fail(message: str) -> NoReturn:
    """Print a one-line error and exit with status 2 (``message`` is plain text, not markup)."""
    # The message may quote user input: escape it so brackets print as typed, never as markup.
    err_console.print(f"[bold red]error:[/] {escape(message)}", soft_wrap=True)
    raise SystemExit(2)


def printable(message: str) -> str:
    """``message`` safe to print: undecodable bytes of a file name (lone surrogates) must
    not stop the line from printing."""
    return message.encode("utf-8", "backslashreplace").decode("utf-8")


def site_settings_or_fail() -> Settings:
    """The site's settings from the environment, or one line naming the bad variable (its
    message, never its value: a URL may hold a password)."""
    from pydantic import ValidationError

    from dicehall.server.core.config import Settings

    try:
        return Settings()
    except ValidationError as exc:
        error = exc.errors()[0]
        name = str(error["loc"][0]) if error["loc"] else "a setting"
        variable = name.upper() if name.startswith("DICEHALL_") else f"DICEHALL_{name.upper()}"
        fail(printable(f"{variable}: {error['msg']}"))


def require_extra(module: str, extra: str, what: str) -> None:
    """Exit 2 with one line when ``module`` (from the ``extra`` of the package) is missing."""
    if importlib.util.find_spec(module) is None:
        fail(f"{what} needs dicehall's {extra} extra: pip install 'dicehall[{extra}]'")


def print_json(data: Any) -> None:
    """Print JSON on standard output (no colours, no wrapping)."""
    sys.stdout.write(json.dumps(data, indent=2) + "\n")


def seat_hint(game_name: str, view: Any, legal: Sequence[Any]) -> dict[str, Any]:
    """A game's seat hint for a position: the very object the site's hint API answers as
    ``"hint"`` (``GET /api/v1/games/{id}/hint``), worked out from the same view and actions."""
    entry = games.get(game_name)
    function = entry.seat_hint()
    if function is None:
        raise InvalidInput(f"{entry.title} has no hints")
    return function(view, legal)


def print_seat_hint(game_name: str, view: Any, legal: Sequence[Any]) -> None:
    """Print a game's seat hint for a position as JSON (see :func:`seat_hint`)."""
    print_json(seat_hint(game_name, view, legal))


# -- typed reports ------------------------------------------------------------------------------

#: Field metadata: leave the field out of the JSON while it is None.
OMIT_NONE: dict[str, Any] = {"omit_none": True}


@dataclass(frozen=True)
class Report:
    """A command's answer as a dataclass: ``--json`` prints its fields in order, by name.

    Reports nest (a field may hold reports, or lists and dicts of them); every other value
    is encoded by :mod:`dicehall.engine.codec`. Unlike the codec's own objects a report
    carries no ``"type"`` tag: its shape is the command's documented output.
    """


def report_json(value: Any) -> Any:
    """The JSON structure of a report (or of anything inside one)."""
    if isinstance(value, Report):
        out: dict[str, Any] = {}
        for field in dataclasses.fields(value):
            item = getattr(value, field.name)
            if item is None and field.metadata.get("omit_none"):
                continue
            out[field.name] = report_json(item)
        return out
    if isinstance(value, list | tuple):
        return [report_json(item) for item in value]
    if isinstance(value, dict):
        return {str(key): report_json(item) for key, item in value.items()}
    return codec.encode(value)


def print_report(report: Report) -> None:
    """Print a report as JSON on standard output."""
    print_json(report_json(report))


# -- seats --------------------------------------------------------------------------------------


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
