"""Pre-shuffled Hold'em bags: committed in batches like the dice, served in order.

A shuffle is one order of the bag's 20 coloured dice, made with ``secrets``. A batch of
shuffles is committed by the Merkle root over their leaves (each leaf covers the 20 salted
position digests, see :mod:`dicehall.fairness.leaves`) and logged before its first shuffle is
served. A hand takes the next shuffle when it draws from a full bag; every later draw of the
hand is the shuffle's next items, so a hand's draws are the shuffle's prefix, in order.

Serving and topping up take the dice pool's cursor first (the caller holds it), so the two
cursors are always locked in one order and log appends stay serialised.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

from sqlalchemy import Connection, Table, bindparam, func, insert, select, update

from dicehall.engine.chance import Draw
from dicehall.fairness.leaves import shuffle_digests, shuffle_leaf
from dicehall.fairness.merkle import merkle_root
from dicehall.games.holdem.dice import bag_after
from dicehall.server.core.clock import now
from dicehall.server.core.models import BagBatch, BagCursor, BagShuffle
from dicehall.server.domain.dice import fairlog

#: The full bag, in its canonical order (a draw from it starts a hand's shuffle).
FULL_BAG: tuple[str, ...] = bag_after(())
BAG_BATCHES = cast(Table, BagBatch.__table__)
SHUFFLES = cast(Table, BagShuffle.__table__)
BAG_CURSOR = cast(Table, BagCursor.__table__)

_ADVANCE = (
    update(BAG_CURSOR)
    .where(BAG_CURSOR.c.id == 1)
    .values(next_shuffle=BAG_CURSOR.c.next_shuffle + 1)
    .returning(BAG_CURSOR.c.next_shuffle)
)
_SERVE = (
    update(SHUFFLES)
    .where(SHUFFLES.c.id == bindparam("b_id"))
    .values(game_id=bindparam("b_game"))
    .returning(SHUFFLES.c.colours)
)


class BagsEmpty(Exception):
    """No committed shuffle is left (the dice pool's :class:`PoolEmpty` wraps this)."""


@dataclass(frozen=True)
class ServedShuffle:
    """One shuffle handed to one hand."""

    shuffle_id: int
    colours: str


def shuffle_bag() -> str:
    """The 20 colours in a fair random order from the OS's secure source."""
    items = list(FULL_BAG)
    secrets.SystemRandom().shuffle(items)
    return "".join(items)


def draw_from(colours: str, population: Sequence[str], count: int) -> tuple[str, ...]:
    """The next ``count`` colours of a hand's shuffle, given what is left in the bag.

    The draws so far took the shuffle's first ``20 - len(population)`` colours; what is
    left must be exactly ``population`` (else the game and its shuffle disagree)."""
    offset = len(FULL_BAG) - len(population)
    if sorted(colours[offset:]) != sorted(population):
        raise AssertionError("the bag left does not match the hand's committed shuffle")
    return tuple(colours[offset : offset + count])


class BagPool:
    """Serves committed shuffles from the database (the dice pool owns one)."""

    def __init__(self, batch_size: int) -> None:
        if batch_size < 1:
            raise ValueError("a bag batch needs at least one shuffle")
        self.batch_size = batch_size

    def short(self, conn: Connection) -> bool:
        """Whether fewer than a batch's worth of shuffles wait unserved."""
        cursor = conn.execute(select(BAG_CURSOR.c.next_shuffle).where(BAG_CURSOR.c.id == 1))
        next_shuffle = cursor.scalar()
        last = conn.execute(select(func.max(SHUFFLES.c.id))).scalar() or 0
        return next_shuffle is None or last - next_shuffle + 1 < self.batch_size

    def reserve(self, conn: Connection) -> None:
        """Commit batches until a batch's worth waits (the caller holds the dice cursor)."""
        cursor = conn.execute(
            select(BAG_CURSOR.c.next_shuffle).where(BAG_CURSOR.c.id == 1).with_for_update()
        ).scalar_one_or_none()
        if cursor is None:
            conn.execute(insert(BAG_CURSOR).values(id=1, next_shuffle=1))
            cursor = 1
        last = conn.execute(select(func.max(SHUFFLES.c.id))).scalar_one_or_none() or 0
        while last - cursor + 1 < self.batch_size:
            last = self._new_batch(conn, last + 1)

    def _new_batch(self, conn: Connection, first: int) -> int:
        rows = []
        leaves = []
        for i in range(self.batch_size):
            colours, salt, secret = shuffle_bag(), secrets.token_bytes(32), secrets.token_bytes(32)
            leaves.append(shuffle_leaf(salt, first + i, shuffle_digests(secret, colours)))
            rows.append({"colours": colours, "salt": salt.hex(), "secret": secret.hex()})
        root = merkle_root(leaves).hex()
        batch_id = conn.execute(
            insert(BAG_BATCHES)
            .values(root=root, size=len(rows), first_shuffle=first, created_at=now(), log_seq=0)
            .returning(BAG_BATCHES.c.id)
        ).scalar_one()
        seq = fairlog.append(conn, "bags", batch_id, first, len(rows), root)
        conn.execute(update(BAG_BATCHES).where(BAG_BATCHES.c.id == batch_id).values(log_seq=seq))
        conn.execute(
            insert(SHUFFLES),
            [
                {**row, "id": first + i, "batch_id": batch_id, "game_id": None}
                for i, row in enumerate(rows)
            ],
        )
        return first + len(rows) - 1

    def take(self, conn: Connection, game_id: int) -> ServedShuffle:
        """The next shuffle, marked as served to ``game_id`` (the caller holds the dice
        cursor); raises :class:`BagsEmpty` when none is committed."""
        end = conn.execute(_ADVANCE).scalar_one_or_none()
        if end is None:
            raise BagsEmpty("the bag pool has not been started")
        colours = conn.execute(_SERVE, {"b_id": end - 1, "b_game": game_id}).scalar_one_or_none()
        if colours is None:
            raise BagsEmpty("the committed bags ran out")
        return ServedShuffle(end - 1, colours)

    def colours_of(self, conn: Connection, shuffle_id: int) -> str:
        """The colours of a shuffle already served."""
        return str(
            conn.execute(select(SHUFFLES.c.colours).where(SHUFFLES.c.id == shuffle_id)).scalar_one()
        )


def uncommitted_draw(request: Draw) -> tuple[str, ...]:
    """A draw of a hand begun before committed bags (migration 0007; an old site's game
    caught mid-hand by the upgrade): from the OS's secure source, as that hand's first
    draws were. Its proof marks it ``uncommitted``; the hand's next one has a shuffle."""
    left = list(request.population)
    return tuple(left.pop(secrets.randbelow(len(left))) for _ in range(request.count))
