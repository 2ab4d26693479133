"""Seat orders the site draws (auto-match, tournament tables, ladder challenges) come from the
seat key of the deck the game will be bound to, so a game's proof shows who was seated first
and why, and the site could not pick the dice: the deck was committed before, and is the
next in line.

The draw is made before the game exists (the order is needed to write its seats) and
claimed for the game once it has an id; see :mod:`dicehall.fairness.seating` for the draw.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from sqlalchemy import Connection, select, update

from dicehall.fairness.decks import seat_faces
from dicehall.fairness.seating import NotEnoughDice, shuffle_by_dice
from dicehall.server.domain.dice.decks import GAME_DECKS
from dicehall.server.domain.dice.pool import SETS, DicePool
from dicehall.server.domain.games.records import GAMES, entry_of

T = TypeVar("T")


@dataclass(frozen=True)
class SeatDraw(Generic[T]):
    """Items in their drawn order, what the draw read (the next deck's seat key, or, on a
    site without decks, dice sets of the pool), and the seats' labels in the canonical
    order the draw started from."""

    order: list[T]
    sets: list[int]
    before: list[str]
    #: The deck whose seat key drew the order (the game must be bound to it); None: sets.
    deck: int | None = None


def deck_for_draw(conn: Connection, pool: DicePool, bags: bool) -> tuple[int, bytes] | None:
    """The deck the next game of the kind will get, and its seat key."""
    return pool.decks.peek(conn, bags)


def draw_seats(
    conn: Connection, pool: DicePool, items: Sequence[T], labels: Sequence[str], kind: str
) -> SeatDraw[T]:
    """``items`` (named ``labels``: handles, ``bot:name``) in the order drawn with the seat
    key of the deck the game of ``kind`` will be bound to (committed in the public log before
    the draw; the game takes it next, in order). The draw starts from the labels' sorted
    order, never the caller's: whoever calls it cannot arrange the start to suit the dice.
    Caller commits, holding the pool's cursor from here to the game's binding; :func:`claim`
    records the draw on the game."""
    if len(items) != len(labels):
        raise ValueError(f"{len(items)} seats but {len(labels)} labels")
    ranked = sorted(zip(labels, range(len(items)), strict=True))
    start = [items[i] for _, i in ranked]
    before = [label for label, _ in ranked]
    pool.hold_cursor(conn)
    peeked = deck_for_draw(conn, pool, entry_of(kind).bag)
    if peeked is not None:
        deck, seat_key = peeked
        count = 64
        while True:
            try:
                return SeatDraw(
                    shuffle_by_dice(start, seat_faces(seat_key, count)), [], before, deck
                )
            except NotEnoughDice:
                count *= 4
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
    """Record on game ``game_id`` that its seats were drawn: the seat key (or sets) read, and
    the seats' labels (handles, ``bot:name``) in the order before the draw."""
    if draw.deck is not None:
        bound = conn.execute(
            select(GAME_DECKS.c.deck_id).where(
                GAME_DECKS.c.game_id == game_id, GAME_DECKS.c.part == 0
            )
        ).scalar()
        if bound != draw.deck:
            raise AssertionError(
                f"game {game_id} got deck {bound}, its seats drew with {draw.deck}"
            )
        stored = {"key": 0, "before": draw.before}
    elif draw.sets:
        conn.execute(update(SETS).where(SETS.c.id.in_(draw.sets)).values(game_id=game_id))
        stored = {"sets": draw.sets, "before": draw.before}
    else:
        return
    conn.execute(update(GAMES).where(GAMES.c.id == game_id).values(seat_draw=json.dumps(stored)))
