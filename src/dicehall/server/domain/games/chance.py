"""Where a game's chance outcomes come from: its deck and seeds (scheme 3), or, for a game
made before migration 0014, the old pool's next dice sets and the hand's bag shuffle; and
which source column of the game's events each is written to."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Connection, select

from dicehall.engine.chance import Draw, Roll
from dicehall.engine.events import Event, Resolved
from dicehall.server.domain.dice.bags import FULL_BAG, draw_from, uncommitted_draw
from dicehall.server.domain.dice.decks import DeckUse
from dicehall.server.domain.dice.pool import SET_SIZE, DicePool
from dicehall.server.domain.games.records import EVENTS, Step


def resolve_chance(
    conn: Connection,
    pool: DicePool,
    game_id: int,
    request: Roll | Draw,
    steps: Sequence[Step] = (),
) -> tuple[Resolved, int | DeckUse | None]:
    """Answer a chance request from a committed source only: the next dice sets, or the
    hand's bag shuffle (a new one when the bag is full). Returns the outcome and its source:
    the first set's number, or the shuffle's (``steps``: this request's steps so far); None
    for a draw of a hand begun before committed bags (:func:`uncommitted_draw`).
    A game made from migration 0014 on answers from its deck and seeds instead."""
    from_deck = pool.decks.resolve(conn, game_id, request, bags=isinstance(request, Draw))
    if from_deck is not None:
        return from_deck
    if isinstance(request, Draw):
        if sorted(request.population) == sorted(FULL_BAG):
            shuffle = pool.take_shuffle(conn, game_id)
            shuffle_id, colours = shuffle.shuffle_id, shuffle.colours
        else:
            found = hand_shuffle(conn, game_id, steps)
            if found is None:
                return Resolved(uncommitted_draw(request)), None
            shuffle_id, colours = found, pool.bags.colours_of(conn, found)
        return Resolved(draw_from(colours, request.population, request.count)), shuffle_id
    if request.sides != 6:  # pragma: no cover - every game rolls six-sided dice
        raise AssertionError("the pool serves six-sided dice only")
    served = pool.take(conn, sets_needed(request), game_id)
    faces = tuple(f for s in served for f in s.faces)[: request.count]
    return Resolved(faces), served[0].set_id


def is_draw(event: Event) -> bool:
    """Whether ``event`` is a bag draw's outcome (colours, not faces)."""
    return isinstance(event, Resolved) and any(isinstance(item, str) for item in event.outcome)


def hand_shuffle(conn: Connection, game_id: int, steps: Sequence[Step]) -> int | None:
    """The shuffle the hand under way draws from: the last draw's, in ``steps`` or stored;
    None when the game has none (its hand began before committed bags)."""
    for event, source in reversed(steps):
        if isinstance(source, int) and is_draw(event):
            return source
    found = conn.execute(
        select(EVENTS.c.bag_shuffle)
        .where(EVENTS.c.game_id == game_id, EVENTS.c.bag_shuffle.is_not(None))
        .order_by(EVENTS.c.seq.desc())
        .limit(1)
    ).scalar_one_or_none()
    return None if found is None else int(found)


def sets_needed(request: Roll | Draw) -> int:
    return max(1, -(-request.count // SET_SIZE)) if isinstance(request, Roll) else 0


def old_source(source: int | DeckUse | None, draw: bool, hand: bool) -> int | None:
    """An old-pool set (``hand``: shuffle) number an event used, for its column."""
    return source if isinstance(source, int) and draw == hand else None


def deck_source(source: int | DeckUse | None, hand: bool) -> int | None:
    """A deck key (``hand``: shuffle) of the game an event used, for its column."""
    return source.index if isinstance(source, DeckUse) and source.hand == hand else None
