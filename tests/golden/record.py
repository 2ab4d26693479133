"""Record golden playthroughs: whole seeded games played by bots, stored as JSON.

Each :class:`Spec` names a game, its options, the seat count, the seed of the dice and one
bot per seat; a game's specs are ``SPECS`` in ``tests/games/<game>/golden.py``, gathered here
for every installed game. :func:`record` plays a spec through the engine's
:class:`~dicehall.engine.Table` and returns a JSON-able record: the header, then a frame for
the start and one after every event, each holding every seat's view, the spectator's view,
whose turn it is and the legal actions of the seat to act. ``python -m tests.golden.record``
(``make golden``) rewrites every file under ``tests/golden/``; ``test_golden.py`` replays the
specs and compares.
"""

from __future__ import annotations

import importlib
import json
import random
from pathlib import Path
from typing import Any

from dicehall import games
from dicehall.engine import Bot, Event, Finished, Seeded, Table, ToAct, codec
from dicehall.engine.events import encode_event
from tests.golden.spec import Spec

__all__ = ["GOLDEN_DIR", "SPECS", "Spec", "dumps", "record", "specs_of", "write_all"]

#: Where the golden files live.
GOLDEN_DIR = Path(__file__).resolve().parent

JSON = codec.JSON

#: The module holding a game's playthroughs, ``SPECS`` (a tuple of :class:`Spec`).
GOLDEN_MODULE = "tests.games.{game}.golden"


def specs_of(game: str) -> tuple[Spec, ...]:
    """The golden playthroughs of ``game`` (none when its tests have no ``golden`` module)."""
    name = GOLDEN_MODULE.format(game=game)
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name is None or not name.startswith(exc.name):
            raise
        return ()
    found: tuple[Spec, ...] = module.SPECS
    return found


#: Every golden playthrough, 2 or 3 per game, in the games' order. Seeds were picked for short
#: games that still show the rules at work (a pick-up in Boss Dice, a seat knocked out in
#: Hold'em Dice).
SPECS: tuple[Spec, ...] = tuple(spec for game in games.available() for spec in specs_of(game))


def _bot_rng(seed: int, seat: int) -> random.Random:
    # Each seat's bot has its own generator, apart from the dice.
    return random.Random(1000 * seed + seat)


def _frame(game: Any, state: Any, seats: int) -> dict[str, JSON]:
    """What everyone sees at ``state``: views, whose turn, and the legal actions."""
    turn = game.turn(state)
    legal = game.legal(state, turn.seat) if isinstance(turn, ToAct) else ()
    return {
        "turn": codec.encode(turn),
        "views": [codec.encode(game.view(state, seat)) for seat in range(seats)],
        "spectator": codec.encode(game.view(state, None)),
        "legal": [codec.encode(action) for action in legal],
    }


def record(spec: Spec) -> dict[str, JSON]:
    """Play ``spec`` with seeded dice and its bots; return the JSON-able record."""
    entry = games.get(spec.game)
    game = entry.game
    options = game.options(spec.options)
    bots: dict[int, Bot] = {
        seat: entry.bot(name, _bot_rng(spec.seed, seat)) for seat, name in enumerate(spec.bots)
    }
    steps: list[dict[str, JSON]] = []

    def listen(before: Any, event: Event, after: Any) -> None:
        steps.append({"event": encode_event(event), **_frame(game, after, spec.seats)})

    table: Table[Any, Any] = Table(game, spec.seats, options, record=False, listener=listen)
    start = _frame(game, table.state, spec.seats)
    turn = table.advance(Seeded(spec.seed), bots, max_steps=100_000)
    if not isinstance(turn, Finished):  # pragma: no cover - every seat has a bot
        raise RuntimeError(f"{spec.file_name} stopped at {turn!r}")
    return {
        "game": spec.game,
        "options": codec.encode(options),
        "seats": spec.seats,
        "seed": spec.seed,
        "bots": list(spec.bots),
        "start": start,
        "steps": steps,
        "result": codec.encode(turn.result),
    }


def dumps(data: JSON) -> str:
    """A record as the text stored in its file (indented, sorted keys, trailing newline)."""
    return json.dumps(data, indent=1, sort_keys=True) + "\n"


def write_all(directory: Path = GOLDEN_DIR) -> list[Path]:
    """Rewrite every golden file in ``directory``; remove stale ones; return those written."""
    written = []
    for spec in SPECS:
        path = directory / spec.file_name
        path.write_text(dumps(record(spec)))
        written.append(path)
    for stale in set(directory.glob("*.json")) - set(written):
        stale.unlink()
    return written


def main() -> None:
    """Rewrite every golden file and say what was written."""
    for path in write_all():
        print(f"{path.name}: {path.stat().st_size // 1024} KB")


if __name__ == "__main__":
    main()
