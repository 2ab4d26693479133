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
    """Items in their drawn order, the dice sets the draw read, and the seats' labels in
    the canonical order the draw started from."""

    order: list[T]
    sets: list[int]
    before: list[str]


def draw_seats(
    conn: Connection, pool: DicePool, items: Sequence[T], labels: Sequence[str]
) -> SeatDraw[T]:
    """``items`` (named ``labels``: handles, ``bot:name``) shuffled by the next dice sets of
    the pool (one set at a time, as many as the draw reads). The draw starts from the
    labels' sorted order, never the caller's: whoever calls it cannot arrange the start to
    suit the dice it knows are next. Caller commits; :func:`claim` ties the sets to the
    game."""
    if len(items) != len(labels):
        raise ValueError(f"{len(items)} seats but {len(labels)} labels")
    ranked = sorted(zip(labels, range(len(items)), strict=True))
    start = [items[i] for _, i in ranked]
    before = [label for label, _ in ranked]
    faces: list[int] = []
    sets: list[int] = []
    while True:
        try:
            return SeatDraw(shuffle_by_dice(start, faces), sets, before)
        except NotEnoughDice:
            (served,) = pool.take(conn, 1, None)
            faces.extend(served.faces)
            sets.append(served.set_id)


def claim(conn: Connection, draw: SeatDraw[T], game_id: int) -> None:
    """Record on game ``game_id`` that its seats were drawn: the sets, and the seats'
    labels (handles, ``bot:name``) in the order before the draw."""
    if not draw.sets:
        return
    conn.execute(update(SETS).where(SETS.c.id.in_(draw.sets)).values(game_id=game_id))
    conn.execute(
        update(GAMES)
        .where(GAMES.c.id == game_id)
        .values(seat_draw=json.dumps({"sets": draw.sets, "before": draw.before}))
    )
