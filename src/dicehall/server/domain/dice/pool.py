"""The dice pool: pre-rolled sets of six faces, committed in batches, served strictly in order.

Each batch is made with ``secrets`` and committed, in its own transaction before its first
set can be served, by the Merkle root over its sets' salted leaves, appended to the public
log (:mod:`~dicehall.server.domain.dice.fairlog`). Sets are served through a single cursor row
that every serving transaction locks, so under any concurrency each set goes to exactly one
roll request, in order, and is never reused. A finished game's proof reveals its own leaves.

Batches made before migration 0007 (scheme 1) were committed by SHA-256 over one salt and
every set (:func:`commitment_of`); such a batch is revealed whole once it is spent and every
game that drew from it has ended.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import cast

from sqlalchemy import Connection, Table, bindparam, func, insert, select, update

from dicehall.fairness.leaves import dice_leaf
from dicehall.fairness.merkle import merkle_root
from dicehall.server.core.clock import now
from dicehall.server.core.models import DiceBatch, DiceCursor, DiceSet, GameRow
from dicehall.server.core.txn import after_commit
from dicehall.server.domain.dice import fairlog
from dicehall.server.domain.dice.bags import BagPool, BagsEmpty, ServedShuffle
from dicehall.server.domain.dice.decks import DeckPool

#: A game in these states may still roll: a spent batch is revealed once none of its games is.
LIVE_STATUSES = ("waiting", "active")

SET_SIZE = 6
#: A deck's dice keys and bag shuffles, and how many decks of each kind wait ready, unless
#: the settings say otherwise (``deck_keys``, ``deck_shuffles``, ``deck_reserve``).
DECK_KEYS, DECK_SHUFFLES, DECK_RESERVE = 8192, 512, 16
BATCHES = cast(Table, DiceBatch.__table__)
SETS = cast(Table, DiceSet.__table__)
CURSOR = cast(Table, DiceCursor.__table__)
GAMES = cast(Table, GameRow.__table__)


# Built once: serving dice is on every move's path.
_ADVANCE_CURSOR = (
    update(CURSOR)
    .where(CURSOR.c.id == 1)
    .values(next_set=CURSOR.c.next_set + bindparam("b_count"))
    .returning(CURSOR.c.next_set)
)
_SERVE_SETS = (
    update(SETS)
    .where(SETS.c.id >= bindparam("b_start"), SETS.c.id < bindparam("b_end"))
    .values(game_id=bindparam("b_game"))
    .returning(SETS.c.id, SETS.c.faces)
)


class PoolEmpty(Exception):
    """No committed set is left; the caller must top the pool up and try again."""


@dataclass(frozen=True)
class ServedSet:
    """One set handed to one roll request."""

    set_id: int
    faces: tuple[int, ...]


def commitment_of(salt: str, sets: Sequence[str]) -> str:
    """Scheme 1 (batches before migration 0007): SHA-256 (hex) of ``salt:set,set,...``,
    each set six digits 1..6, in serving order."""
    message = salt + ":" + ",".join(sets)
    return hashlib.sha256(message.encode("ascii")).hexdigest()


def roll_set() -> str:
    """Six fair faces from the OS's secure source, as six digits."""
    return "".join(str(secrets.randbelow(6) + 1) for _ in range(SET_SIZE))


class DicePool:
    """Serves pre-rolled sets, and (through :attr:`bags`) pre-shuffled Hold'em bags."""

    def __init__(
        self,
        batch_size: int,
        bag_batch_size: int | None = None,
        decks: DeckPool | None = None,
    ) -> None:
        if batch_size < 1:
            raise ValueError("a dice batch needs at least one set")
        self.batch_size = batch_size
        self.bags = BagPool(batch_size if bag_batch_size is None else bag_batch_size)
        #: Scheme 3: what every game made from migration 0014 on rolls from.
        self.decks = decks or DeckPool(DECK_KEYS, DECK_SHUFFLES, DECK_RESERVE)
        self.decks.hold_cursor = self.hold_cursor
        self._low_listeners: set[Callable[[], None]] = set()
        #: The highest committed set id this process has read: ids only grow, so while the
        #: cursor is a batch below it no move needs to ask again whether the pool runs low.
        self._known_last = 0

    def listen_low(self, listener: Callable[[], None]) -> None:
        """Call ``listener`` after each commit that left fewer than a batch's worth of sets
        unserved (so a background job tops the pool up before a request finds it empty)."""
        self._low_listeners.add(listener)

    def unlisten_low(self, listener: Callable[[], None]) -> None:
        """Stop calling ``listener``."""
        self._low_listeners.discard(listener)

    def _announce_low(self) -> None:
        for listener in list(self._low_listeners):
            listener()

    def ensure_reserve(self, write: Callable[[], AbstractContextManager[Connection]]) -> None:
        """Commit new batches until at least one batch's worth of sets (and of shuffles)
        waits unserved.

        ``write`` opens a write transaction (``Services.write_conn``).
        """
        with write() as conn:
            cursor = conn.execute(
                select(CURSOR.c.next_set).where(CURSOR.c.id == 1).with_for_update()
            ).scalar_one_or_none()
            if cursor is None:
                conn.execute(insert(CURSOR).values(id=1, next_set=1))
                cursor = 1
            last = conn.execute(select(func.max(SETS.c.id))).scalar_one_or_none() or 0
            while last - cursor + 1 < self.batch_size:
                last = self._new_batch(conn, last + 1)
            self.bags.reserve(conn)

    def top_up(
        self,
        read: Callable[[], AbstractContextManager[Connection]],
        write: Callable[[], AbstractContextManager[Connection]],
    ) -> None:
        """Commit new batches ahead of need: when fewer than a batch's worth of sets wait.

        Run by every server process now and then; the check is one read, and the top-up
        itself runs under the cursor's lock, so processes never commit a batch twice.
        """
        with read() as conn:
            cursor = conn.execute(select(CURSOR.c.next_set).where(CURSOR.c.id == 1)).scalar()
            last = conn.execute(select(func.max(SETS.c.id))).scalar() or 0
            bags_short = self.bags.short(conn)
        if cursor is None or last - cursor + 1 < self.batch_size or bags_short:
            self.ensure_reserve(write)
        self.decks.top_up(read, write, self.hold_cursor)

    def _new_batch(self, conn: Connection, first: int) -> int:
        sets = [roll_set() for _ in range(self.batch_size)]
        salted = [(secrets.token_bytes(32), faces) for faces in sets]
        leaves = [dice_leaf(salt, first + i, faces) for i, (salt, faces) in enumerate(salted)]
        root = merkle_root(leaves).hex()
        batch_id = conn.execute(
            insert(BATCHES)
            .values(
                salt="",
                commitment=root,
                size=len(sets),
                first_set=first,
                created_at=now(),
                revealed=False,
                scheme=2,
                root=root,
            )
            .returning(BATCHES.c.id)
        ).scalar_one()
        seq = fairlog.append(conn, "dice", batch_id, first, len(sets), root)
        conn.execute(update(BATCHES).where(BATCHES.c.id == batch_id).values(log_seq=seq))
        conn.execute(
            insert(SETS),
            [
                {
                    "id": first + i,
                    "batch_id": batch_id,
                    "faces": faces,
                    "game_id": None,
                    "salt": salt.hex(),
                }
                for i, (salt, faces) in enumerate(salted)
            ],
        )
        return first + len(sets) - 1

    def take(self, conn: Connection, count: int, game_id: int | None) -> list[ServedSet]:
        """The next ``count`` sets in order, marked as served to ``game_id``.

        Runs inside the caller's transaction; raises :class:`PoolEmpty` when the committed
        sets run out (the caller rolls back, tops up with :meth:`ensure_reserve`, retries).
        """
        end = conn.execute(_ADVANCE_CURSOR, {"b_count": count}).scalar_one_or_none()
        if end is None:
            raise PoolEmpty("the dice pool has not been started")
        start = end - count
        rows = conn.execute(_SERVE_SETS, {"b_start": start, "b_end": end, "b_game": game_id}).all()
        if len(rows) != count:
            raise PoolEmpty("the committed dice ran out")
        if self._low_listeners and self._known_last - end + 1 < self.batch_size:
            last = conn.execute(select(func.max(SETS.c.id))).scalar() or 0
            self._known_last = max(self._known_last, last)
            if last - end + 1 < self.batch_size:
                after_commit(conn, self._announce_low)
        ordered = sorted(rows, key=lambda r: int(r.id))
        return [ServedSet(r.id, tuple(int(c) for c in r.faces)) for r in ordered]

    def take_shuffle(self, conn: Connection, game_id: int) -> ServedShuffle:
        """The next committed bag shuffle, served to ``game_id`` (the dice cursor is taken
        first: one lock order everywhere). Raises :class:`PoolEmpty` when none is left."""
        self.hold_cursor(conn)
        try:
            served = self.bags.take(conn, game_id)
        except BagsEmpty as exc:
            raise PoolEmpty(str(exc)) from exc
        if self._low_listeners and self.bags.short(conn):
            after_commit(conn, self._announce_low)
        return served

    def hold_cursor(self, conn: Connection) -> None:
        """Lock the pool's cursor until the transaction ends, serving nothing.

        Every move that rolls takes the cursor after its game's row and before anything a
        game's end touches (a ladder, a tournament). A job that starts games under such a
        lock takes the cursor first, so the two orders never cross (PostgreSQL; SQLite's
        writers take turns anyway)."""
        conn.execute(_ADVANCE_CURSOR, {"b_count": 0})

    def reveal_ready(self, conn: Connection) -> list[int]:
        """Reveal every spent scheme-1 batch whose games have all ended; return their ids
        (a scheme-2 batch is never revealed whole: each game's proof shows its leaves)."""
        cursor = conn.execute(
            select(CURSOR.c.next_set).where(CURSOR.c.id == 1)
        ).scalar_one_or_none()
        if cursor is None:
            return []
        candidates = conn.execute(
            select(BATCHES.c.id).where(
                BATCHES.c.scheme == 1,
                BATCHES.c.revealed.is_(False),
                BATCHES.c.first_set + BATCHES.c.size <= cursor,
            )
        ).scalars()
        revealed: list[int] = []
        for batch_id in list(candidates):
            unfinished = conn.execute(
                select(SETS.c.id)
                .join(GAMES, GAMES.c.id == SETS.c.game_id)
                .where(SETS.c.batch_id == batch_id, GAMES.c.status.in_(LIVE_STATUSES))
                .limit(1)
            ).first()
            if unfinished is None:
                conn.execute(
                    update(BATCHES)
                    .where(BATCHES.c.id == batch_id)
                    .values(revealed=True, revealed_at=now())
                )
                revealed.append(batch_id)
        return revealed
