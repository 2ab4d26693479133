"""The dice pool: pre-rolled sets of six faces, committed in batches, served strictly in order.

Each batch is made with ``secrets`` and committed by SHA-256 over a random salt and its sets
(see :func:`commitment_of`) in its own transaction before its first set can be served.
Sets are served through a single cursor row that every serving transaction locks, so under
any concurrency each set goes to exactly one roll request, in order, and is never reused.
A batch is revealed (its salt published) once it is spent and every game that drew from it
has ended, so an audit never exposes a die of a game in progress.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session, sessionmaker

from dicehall.server.clock import now
from dicehall.server.models import DiceBatch, DiceCursor, DiceSet, GameRow

SET_SIZE = 6


class PoolEmpty(Exception):
    """No committed set is left; the caller must top the pool up and try again."""


@dataclass(frozen=True)
class ServedSet:
    """One set handed to one roll request."""

    set_id: int
    faces: tuple[int, ...]


def commitment_of(salt: str, sets: Sequence[str]) -> str:
    """SHA-256 (hex) of ``salt:set,set,...``: each set six digits 1..6, in serving order."""
    message = salt + ":" + ",".join(sets)
    return hashlib.sha256(message.encode("ascii")).hexdigest()


def roll_set() -> str:
    """Six fair faces from the OS's secure source, as six digits."""
    return "".join(str(secrets.randbelow(6) + 1) for _ in range(SET_SIZE))


class DicePool:
    """Serves pre-rolled sets from the database."""

    def __init__(self, batch_size: int) -> None:
        if batch_size < 1:
            raise ValueError("a dice batch needs at least one set")
        self.batch_size = batch_size

    def ensure_reserve(self, sessions: sessionmaker[Session]) -> None:
        """Commit new batches until at least one batch's worth of sets waits unserved."""
        with sessions.begin() as session:
            cursor = self._cursor(session)
            last = session.scalar(select(func.max(DiceSet.id))) or 0
            while last - cursor.next_set + 1 < self.batch_size:
                last = self._new_batch(session, last + 1)

    def _cursor(self, session: Session) -> DiceCursor:
        cursor = session.get(DiceCursor, 1)
        if cursor is None:
            cursor = DiceCursor(id=1, next_set=1)
            session.add(cursor)
            session.flush()
        return cursor

    def _new_batch(self, session: Session, first: int) -> int:
        salt = secrets.token_hex(32)
        sets = [roll_set() for _ in range(self.batch_size)]
        batch = DiceBatch(
            salt=salt,
            commitment=commitment_of(salt, sets),
            size=len(sets),
            first_set=first,
            created_at=now(),
            revealed=False,
        )
        session.add(batch)
        session.flush()
        session.add_all(
            DiceSet(id=first + i, batch_id=batch.id, faces=faces, game_id=None)
            for i, faces in enumerate(sets)
        )
        session.flush()
        return first + len(sets) - 1

    def take(self, session: Session, count: int, game_id: int) -> list[ServedSet]:
        """The next ``count`` sets in order, marked as served to ``game_id``.

        Runs inside the caller's transaction; raises :class:`PoolEmpty` when the committed
        sets run out (the caller rolls back, tops up with :meth:`ensure_reserve`, retries).
        """
        end = session.execute(
            update(DiceCursor)
            .where(DiceCursor.id == 1)
            .values(next_set=DiceCursor.next_set + count)
            .returning(DiceCursor.next_set)
        ).scalar_one_or_none()
        if end is None:
            raise PoolEmpty("the dice pool has not been started")
        start = end - count
        rows = session.execute(
            select(DiceSet.id, DiceSet.faces)
            .where(DiceSet.id >= start, DiceSet.id < end)
            .order_by(DiceSet.id)
        ).all()
        if len(rows) != count:
            raise PoolEmpty("the committed dice ran out")
        session.execute(
            update(DiceSet).where(DiceSet.id >= start, DiceSet.id < end).values(game_id=game_id)
        )
        return [ServedSet(r.id, tuple(int(c) for c in r.faces)) for r in rows]

    def reveal_ready(self, session: Session) -> list[int]:
        """Reveal every spent batch whose games have all ended; return their ids."""
        cursor = session.get(DiceCursor, 1)
        if cursor is None:
            return []
        revealed: list[int] = []
        batches = session.scalars(
            select(DiceBatch).where(
                DiceBatch.revealed.is_(False),
                DiceBatch.first_set + DiceBatch.size <= cursor.next_set,
            )
        ).all()
        for batch in batches:
            unfinished = session.scalar(
                select(DiceSet.id)
                .join(GameRow, GameRow.id == DiceSet.game_id)
                .where(DiceSet.batch_id == batch.id, GameRow.status != "finished")
                .limit(1)
            )
            if unfinished is None:
                batch.revealed = True
                batch.revealed_at = now()
                revealed.append(batch.id)
        return revealed
