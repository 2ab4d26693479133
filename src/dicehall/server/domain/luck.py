"""A player's luck: how their own shown rolls in finished games compared with chance.

A game has at most one measure, named on its entry (see
:mod:`~dicehall.server.domain.luck_measures`): Ten Thousand zero-outs and Boatzees made by a
roll against their exact probabilities, Boss Dice and Bull's Eye sums of faces against 3.5 a
die; each counted against what the dice owed rather than against how the player chose to
play.

Only finished, public games count, and only dice the table saw (never a hidden roll).
The totals come with a z-score: how many standard deviations the count is from what chance
owed. Hold'em Dice has no measure (its dice are dealt, not rolled by a player).
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Connection, select

from dicehall.engine.events import Resolved, apply_event, decode_event
from dicehall.server.core.clock import aware
from dicehall.server.domain.dice.publiclog import hidden_outcomes_of
from dicehall.server.domain.games.records import EVENTS, GAMES, entry_of, load_options
from dicehall.server.domain.games.seat_results import SEAT_RESULTS
from dicehall.server.domain.history import find_player
from dicehall.server.domain.luck_measures import measure_of, measured_games, z_score

__all__ = ["GAMES_SHOWN", "NOTE", "game_luck", "luck_report", "measured_games"]

#: The most recent finished games a report covers.
GAMES_SHOWN = 50
NOTE = (
    "Luck is the count against what chance owed, in standard deviations (z). A z beyond 2 "
    "either way happens by chance alone about 1 time in 20, beyond 3 about 1 in 370; over "
    "many games luck evens out, and a streak in a few games says little about the dice."
)


def game_luck(conn: Connection, game: Any, seat: int) -> dict[str, Any]:
    """One finished game's count of the measure for ``seat``, and what chance owed."""
    entry = entry_of(game.kind)
    rules = entry.game
    options = load_options(game)
    measure = measure_of(entry.name)
    rows = (
        conn.execute(
            select(EVENTS.c.data).where(EVENTS.c.game_id == game.id).order_by(EVENTS.c.seq)
        ).all()
        if measure is not None
        else []  # nothing to measure: no need to replay it
    )
    events = [decode_event(rules, json.loads(r.data)) for r in rows]
    hook = hidden_outcomes_of(game.kind)
    hidden = hook(options, game.seats, events) if hook is not None else frozenset()
    rolls = happened = 0
    owed = variance = 0.0
    state = rules.start(game.seats, options)
    for index, event in enumerate(events):
        if measure is not None and isinstance(event, Resolved) and index not in hidden:
            seen = measure.observe(state, seat, tuple(event.outcome))
            if seen is not None:
                rolls, happened = rolls + 1, happened + seen.observed
                owed, variance = owed + seen.expected, variance + seen.variance
        state = apply_event(rules, state, event)
    return {
        "game_id": game.id,
        "game": game.kind,
        "ended_at": aware(game.ended_at).isoformat() if game.ended_at else None,
        "measure": None if measure is None else measure.counts,
        "rolls": rolls,
        "observed": happened,
        "expected": round(owed, 4),
        "variance": variance,
    }


def luck_report(conn: Connection, user_id: str, most: int = GAMES_SHOWN) -> dict[str, Any]:
    """The luck of ``user_id`` (404 ``no_such_user``) over their latest ``most`` finished
    public games: per game, and totals per game with a z-score."""
    player = find_player(conn, user_id)
    # Through seat_results' index: the latest games without sorting the whole history.
    found = conn.execute(
        select(GAMES, SEAT_RESULTS.c.seat.label("my_seat"))
        .select_from(SEAT_RESULTS.join(GAMES, GAMES.c.id == SEAT_RESULTS.c.game_id))
        .where(SEAT_RESULTS.c.user_pk == player.pk, SEAT_RESULTS.c.private.is_(False))
        .order_by(SEAT_RESULTS.c.ended_at.desc(), SEAT_RESULTS.c.game_id.desc())
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
        z = z_score(total["observed"], total["expected"], total.pop("variance"))
        total["expected"] = round(total["expected"], 4)
        total["z"] = None if z is None else round(z, 2)
    for luck in per_game:
        del luck["variance"]
    return {
        "user": player.user_id,
        "games": per_game,
        "totals": list(totals.values()),
        "note": NOTE,
    }
