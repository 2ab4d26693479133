"""Seat orders the site draws (auto-match, tournament tables, ladder challenges) come from the
dice pool like every roll, so a game's proof shows who was seated first and why.

The dice sets are served before the game exists (the order is needed to write its seats) and
claimed for the game once it has an id; see :mod:`dicehall.fairness.seating` for the draw.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from sqlalchemy import Connection, update

from dicehall.fairness.seating import NotEnoughDice, shuffle_by_dice
from dicehall.server.domain.dice.pool import SETS, DicePool
from dicehall.server.domain.games.records import GAMES

T = TypeVar("T")


@dataclass(frozen=True)
class SeatDraw(Generic[T]):
    """Items in their drawn order, and the dice sets the draw read."""

    order: list[T]
    sets: list[int]


def draw_seats(conn: Connection, pool: DicePool, items: Sequence[T]) -> SeatDraw[T]:
    """``items`` shuffled by the next dice sets of the pool (one set at a time, as many as
    the draw reads). Caller commits; :func:`claim` ties the sets to the game."""
    faces: list[int] = []
    sets: list[int] = []
    while True:
        try:
            return SeatDraw(shuffle_by_dice(items, faces), sets)
        except NotEnoughDice:
            (served,) = pool.take(conn, 1, None)
            faces.extend(served.faces)
            sets.append(served.set_id)


def claim(conn: Connection, draw: SeatDraw[T], game_id: int, before: Sequence[str]) -> None:
    """Record on game ``game_id`` that its seats were drawn: the sets, and the seats'
    labels (handles, ``bot:name``) in the order before the draw."""
    if not draw.sets:
        return
    conn.execute(update(SETS).where(SETS.c.id.in_(draw.sets)).values(game_id=game_id))
    conn.execute(
        update(GAMES)
        .where(GAMES.c.id == game_id)
        .values(seat_draw=json.dumps({"sets": draw.sets, "before": list(before)}))
    )
