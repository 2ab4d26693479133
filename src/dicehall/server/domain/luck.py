"""A player's luck: how their own shown rolls in finished games compared with chance.

Two measures, each an event with an exact probability per roll, so that luck is counted
against what the dice owed rather than against how the player chose to play:

- Ten Thousand, **zero-outs**: a roll of ``n`` dice that scores nothing, against the exact
  probability of that for ``n`` dice (and the game's four-and-a-pair option).
- Boatzee (every form), **Boatzees made by a roll**: five of a kind straight after a roll,
  against its probability given the dice held (a roll that holds two faces cannot make one).

Only finished, public games count, and only dice the table saw (never a hidden roll).
The totals come with a z-score: how many standard deviations the count is from what chance
owed. Other games have no per-roll measure yet and are listed without one.
"""

from __future__ import annotations

import json
import math
from functools import cache
from itertools import product
from typing import Any

from sqlalchemy import Connection, select

from dicehall.engine.events import Resolved, apply_event, decode_event
from dicehall.games.tenthousand.scoring import set_asides
from dicehall.server.core.clock import aware
from dicehall.server.domain.games.records import EVENTS, GAMES, SEATS, entry_of, load_options
from dicehall.server.domain.history import find_player
from dicehall.server.domain.publiclog import hidden_outcomes_of

#: The most recent finished games a report covers.
GAMES_SHOWN = 50
NOTE = (
    "Luck is the count against what chance owed, in standard deviations (z). A z beyond 2 "
    "either way happens by chance alone about 1 time in 20, beyond 3 about 1 in 370; over "
    "many games luck evens out, and a streak in a few games says little about the dice."
)
MEASURES = {"tenthousand": "zero-outs", "boatzee": "Boatzees made by a roll"}


@cache
def zero_out_chance(dice: int, four_and_pair: bool) -> float:
    """The exact chance that ``dice`` dice score nothing."""
    rolls = list(product(range(1, 7), repeat=dice))
    dead = sum(1 for roll in rolls if not set_asides(tuple(sorted(roll)), four_and_pair))
    return dead / len(rolls)


def boatzee_chance(held: tuple[int, ...]) -> float:
    """The chance a roll of the other dice makes five of a kind with ``held``."""
    if len(set(held)) > 1:
        return 0.0
    rolled = 5 - len(held)
    return (1 / 6) ** rolled * (6 if not held else 1)


def _observe(
    kind: str, state: Any, seat: int, outcome: tuple[Any, ...]
) -> tuple[float, int] | None:
    """(chance, happened) of this roll for the measure, when it is ``seat``'s own roll."""
    if kind == "tenthousand":
        if state.phase != "roll" or state.current != seat:
            return None
        four_and_pair = bool(state.options.four_and_pair_is_three_pairs)
        chance = zero_out_chance(len(outcome), four_and_pair)
        return chance, int(not set_asides(tuple(sorted(outcome)), four_and_pair))
    if kind == "boatzee":
        if state.current != seat:
            return None
        held = tuple(d for i, d in enumerate(state.dice) if i not in state.rerolling)
        final = held + tuple(int(f) for f in outcome)
        return boatzee_chance(held), int(len(final) == 5 and len(set(final)) == 1)
    return None


def game_luck(conn: Connection, game: Any, seat: int) -> dict[str, Any]:
    """One finished game's count of the measure for ``seat``, and what chance owed."""
    entry = entry_of(game.kind)
    rules = entry.game
    options = load_options(game)
    rows = conn.execute(
        select(EVENTS.c.data).where(EVENTS.c.game_id == game.id).order_by(EVENTS.c.seq)
    ).all()
    events = [decode_event(rules, json.loads(r.data)) for r in rows]
    hook = hidden_outcomes_of(game.kind)
    hidden = hook(options, game.seats, events) if hook is not None else frozenset()
    measured = entry.name in MEASURES
    rolls = happened = 0
    owed = variance = 0.0
    state = rules.start(game.seats, options)
    for index, event in enumerate(events):
        if measured and isinstance(event, Resolved) and index not in hidden:
            seen = _observe(entry.name, state, seat, tuple(event.outcome))
            if seen is not None:
                chance, hit = seen
                rolls, happened = rolls + 1, happened + hit
                owed, variance = owed + chance, variance + chance * (1 - chance)
        state = apply_event(rules, state, event)
    return {
        "game_id": game.id,
        "game": game.kind,
        "ended_at": aware(game.ended_at).isoformat() if game.ended_at else None,
        "measure": MEASURES.get(entry.name),
        "rolls": rolls,
        "observed": happened,
        "expected": round(owed, 4),
        "variance": variance,
    }


def luck_report(conn: Connection, user_id: str, most: int = GAMES_SHOWN) -> dict[str, Any]:
    """The luck of ``user_id`` (404 ``no_such_user``) over their latest ``most`` finished
    public games: per game, and totals per game with a z-score."""
    player = find_player(conn, user_id)
    found = conn.execute(
        select(GAMES, SEATS.c.seat.label("my_seat"))
        .join(SEATS, SEATS.c.game_id == GAMES.c.id)
        .where(
            SEATS.c.user_pk == player.pk,
            GAMES.c.status == "finished",
            GAMES.c.private.is_(False),
        )
        .order_by(GAMES.c.ended_at.desc(), GAMES.c.id.desc())
        .limit(most)
    ).all()
    per_game = [game_luck(conn, row, int(row.my_seat)) for row in found]
    totals: dict[str, dict[str, Any]] = {}
    for luck in per_game:
        if luck["measure"] is None:
            continue
        total = totals.setdefault(
            luck["game"],
            {
                "game": luck["game"],
                "measure": luck["measure"],
                "games": 0,
                "rolls": 0,
                "observed": 0,
                "expected": 0.0,
                "variance": 0.0,
            },
        )
        for key in ("rolls", "observed", "expected", "variance"):
            total[key] += luck[key]
        total["games"] += 1
    for total in totals.values():
        spread = math.sqrt(total.pop("variance"))
        total["expected"] = round(total["expected"], 4)
        total["z"] = (
            None if spread == 0 else round((total["observed"] - total["expected"]) / spread, 2)
        )
    for luck in per_game:
        del luck["variance"]
    return {
        "user": player.user_id,
        "games": per_game,
        "totals": list(totals.values()),
        "note": NOTE,
    }
