"""Decks (scheme 3): committed ahead, bound in order to each new game before any seed is
known, then mixed with its players' seeds (the scheme: :mod:`dicehall.fairness.decks`).

Decks are made outside any transaction (hashing a deck takes milliseconds) and committed,
with a ``deck`` record in the public log, by the pool's top-up; a game takes the oldest
unbound deck of its kind and a ``game`` record says so. Log appends run under the dice
pool's cursor, like every append, so records stay gap-free. A roll takes the game's next
key and a hand its next shuffle through one ``UPDATE ... RETURNING`` on the game's row,
which the move already holds: no site-wide lock on a roll.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import cast

from sqlalchemy import Connection, Table, bindparam, func, insert, select, update

from dicehall.engine.chance import Draw, Roll
from dicehall.engine.events import Resolved
from dicehall.fairness import decks as scheme
from dicehall.server.core.clock import now
from dicehall.server.core.models import Deck, GameDeck, GameRow, GameSeed
from dicehall.server.domain.dice import fairlog
from dicehall.server.domain.dice.bags import FULL_BAG, draw_from

DECKS = cast(Table, Deck.__table__)
GAME_DECKS = cast(Table, GameDeck.__table__)
GAME_SEEDS = cast(Table, GameSeed.__table__)
GAMES = cast(Table, GameRow.__table__)

_NEXT_KEY = (
    update(GAMES)
    .where(GAMES.c.id == bindparam("b_game"), GAMES.c.next_key.is_not(None))
    .values(next_key=GAMES.c.next_key + 1)
    .returning(GAMES.c.next_key, GAMES.c.next_shuffle, GAMES.c.seats)
)
_NEXT_SHUFFLE = (
    update(GAMES)
    .where(GAMES.c.id == bindparam("b_game"), GAMES.c.next_shuffle.is_not(None))
    .values(next_shuffle=GAMES.c.next_shuffle + bindparam("b_step"))
    .returning(GAMES.c.next_shuffle, GAMES.c.next_key, GAMES.c.seats)
)


@dataclass(frozen=True)
class DeckUse:
    """What a scheme-3 chance event used: the game's key ``index``, or its shuffle."""

    index: int
    hand: bool


@dataclass(frozen=True)
class NewDeck:
    """A deck made and hashed, not yet committed."""

    secret: bytes
    roots: scheme.DeckRoots
    bags: bool


@dataclass(frozen=True)
class BoundPart:
    """The deck that covers a game's key or shuffle."""

    secret: bytes
    first_key: int
    first_shuffle: int
    keys: int
    shuffles: int


def _no_cursor(_conn: Connection) -> None:
    raise AssertionError("a deck pool outside a dice pool cannot bind decks during play")


class DeckPool:
    """Makes, commits and binds decks."""

    def __init__(self, keys: int, shuffles: int, reserve: int) -> None:
        if keys < 1 or shuffles < 1 or reserve < 1:
            raise ValueError("a deck needs a key and a shuffle or more, and a reserve of one")
        self.keys, self.shuffles, self.reserve = keys, shuffles, reserve
        #: Takes the dice pool's cursor (every log append runs under it); set by the pool.
        self.hold_cursor: Callable[[Connection], None] = _no_cursor

    def make(self, bags: bool) -> NewDeck:
        """A fresh deck (CPU work: call it outside transactions)."""
        secret = secrets.token_bytes(scheme.SECRET_BYTES)
        shuffles = self.shuffles if bags else 0
        return NewDeck(secret, scheme.deck_roots(secret, self.keys, shuffles), bags)

    def short(self, conn: Connection) -> dict[bool, int]:
        """How many decks of each kind (with bags or not) the reserve lacks."""
        rows = conn.execute(
            select(DECKS.c.bags, func.count())
            .where(DECKS.c.game_id.is_(None))
            .group_by(DECKS.c.bags)
        ).all()
        ready = {bool(bags): int(n) for bags, n in rows}
        return {bags: max(0, self.reserve - ready.get(bags, 0)) for bags in (False, True)}

    def commit(self, conn: Connection, deck: NewDeck) -> int:
        """Store ``deck`` and log its roots; its id. The caller holds the pool's cursor."""
        roots = deck.roots
        deck_id: int = conn.execute(
            insert(DECKS)
            .values(
                bags=deck.bags,
                secret=deck.secret.hex(),
                keys=roots.keys,
                shuffles=roots.shuffles,
                root=roots.root.hex(),
                shuffles_root=None if roots.shuffles_root is None else roots.shuffles_root.hex(),
                log_seq=0,
                created_at=now(),
                game_id=None,
            )
            .returning(DECKS.c.id)
        ).scalar_one()
        fields = {
            "deck": deck_id,
            "keys": roots.keys,
            "root": roots.root.hex(),
            "shuffles": roots.shuffles,
            "shuffles_root": None if roots.shuffles_root is None else roots.shuffles_root.hex(),
        }
        seq = fairlog.append_record(conn, "deck", deck_id, fields)
        conn.execute(update(DECKS).where(DECKS.c.id == deck_id).values(log_seq=seq))
        return deck_id

    def top_up(
        self,
        read: Callable[[], AbstractContextManager[Connection]],
        write: Callable[[], AbstractContextManager[Connection]],
        hold_cursor: Callable[[Connection], None],
    ) -> None:
        """Commit decks until the reserve of each kind is full (made outside the write)."""
        with read() as conn:
            short = self.short(conn)
        made = [self.make(bags) for bags, n in short.items() for _ in range(n)]
        if not made:
            return
        with write() as conn:
            hold_cursor(conn)
            for deck in made:
                self.commit(conn, deck)

    def bind(
        self,
        conn: Connection,
        game_id: int,
        bags: bool,
        first_key: int = 0,
        first_shuffle: int = 0,
    ) -> BoundPart:
        """Bind the oldest unbound deck of the kind to ``game_id`` from its key
        ``first_key`` and shuffle ``first_shuffle`` on (a deck is made here only when the
        reserve ran dry). The caller holds the pool's cursor and the game's row."""
        for _ in range(20):  # another process may bind the same deck first (PostgreSQL)
            row = conn.execute(
                select(
                    DECKS.c.id, DECKS.c.secret, DECKS.c["keys"].label("key_count"), DECKS.c.shuffles
                )
                .where(DECKS.c.game_id.is_(None), DECKS.c.bags.is_(bags))
                .order_by(DECKS.c.id)
                .limit(1)
            ).first()
            if row is None:
                self.commit(conn, self.make(bags))
                continue
            taken = conn.execute(
                update(DECKS)
                .where(DECKS.c.id == row.id, DECKS.c.game_id.is_(None))
                .values(game_id=game_id)
            ).rowcount
            if taken != 1:
                continue
            part = conn.execute(
                select(func.count()).select_from(GAME_DECKS).where(GAME_DECKS.c.game_id == game_id)
            ).scalar_one()
            fields = {
                "game": game_id,
                "deck": row.id,
                "first_key": first_key,
                "first_shuffle": first_shuffle,
            }
            seq = fairlog.append_record(conn, "game", row.id, fields)
            conn.execute(
                insert(GAME_DECKS).values(
                    game_id=game_id,
                    part=part,
                    deck_id=row.id,
                    first_key=first_key,
                    first_shuffle=first_shuffle,
                    log_seq=seq,
                )
            )
            if part == 0:
                # Key 0 is the game's seat key (a seat order the site draws): rolls from 1.
                conn.execute(
                    update(GAMES)
                    .where(GAMES.c.id == game_id)
                    .values(next_key=first_key + scheme.SEAT_KEYS, next_shuffle=first_shuffle)
                )
            return BoundPart(
                bytes.fromhex(row.secret), first_key, first_shuffle, row.key_count, row.shuffles
            )
        raise RuntimeError("could not bind a deck: every try lost a race")

    def peek(self, conn: Connection, bags: bool) -> tuple[int, bytes]:
        """The deck the next game of the kind will be bound to, and its seat key (key 0),
        for a seat draw made before that game exists (one is committed here if none waits).
        The caller holds the pool's cursor until it binds the game."""
        while True:
            row = conn.execute(
                select(DECKS.c.id, DECKS.c.secret)
                .where(DECKS.c.game_id.is_(None), DECKS.c.bags.is_(bags))
                .order_by(DECKS.c.id)
                .limit(1)
            ).first()
            if row is not None:
                return int(row.id), scheme.dice_key(bytes.fromhex(row.secret), 0)
            self.commit(conn, self.make(bags))

    def rebind(self, conn: Connection, game_id: int) -> BoundPart | None:
        """Bind a fresh deck to a game in play from its next key and shuffle on, so that
        none of its later dice is one it may already have shown (a restore from a backup
        taken before those moves). None for a game that does not roll from decks. The
        caller holds the pool's cursor."""
        game = conn.execute(
            select(GAMES.c.next_key, GAMES.c.next_shuffle).where(GAMES.c.id == game_id)
        ).first()
        if game is None or game.next_key is None:
            return None
        bags = conn.execute(
            select(DECKS.c.bags)
            .join(GAME_DECKS, GAME_DECKS.c.deck_id == DECKS.c.id)
            .where(GAME_DECKS.c.game_id == game_id)
            .order_by(GAME_DECKS.c.part)
            .limit(1)
        ).scalar()
        return self.bind(conn, game_id, bool(bags), int(game.next_key), int(game.next_shuffle))

    def part_for(
        self,
        conn: Connection,
        game_id: int,
        bags: bool,
        *,
        key: int | None = None,
        shuffle: int | None = None,
        next_key: int,
        next_shuffle: int,
    ) -> BoundPart:
        """The deck that covers the game's ``key`` (or ``shuffle``); when the game has used
        up its decks, the next one is bound now, from ``next_key`` and ``next_shuffle``."""
        rows = conn.execute(
            select(
                GAME_DECKS.c.first_key,
                GAME_DECKS.c.first_shuffle,
                DECKS.c.secret,
                DECKS.c["keys"].label("key_count"),
                DECKS.c.shuffles,
                DECKS.c.bags,
            )
            .join(DECKS, DECKS.c.id == GAME_DECKS.c.deck_id)
            .where(GAME_DECKS.c.game_id == game_id)
            .order_by(GAME_DECKS.c.part)
        ).all()
        spans = [scheme.Span(r.first_key, r.first_shuffle, r.key_count, r.shuffles) for r in rows]
        index = shuffle if shuffle is not None else key
        assert index is not None
        found = scheme.covering(spans, index, hand=shuffle is not None)
        if found is not None:
            row = rows[found]
            return BoundPart(
                bytes.fromhex(row.secret),
                row.first_key,
                row.first_shuffle,
                row.key_count,
                row.shuffles,
            )
        # The game's decks are used up: the next one, of the kind its first deck was. Its
        # binding is a log append: under the pool's cursor, taken after the game's row as
        # every roll takes them.
        bags = bool(rows[0].bags) if rows else bags
        self.hold_cursor(conn)
        return self.bind(conn, game_id, bags, next_key, next_shuffle)

    def resolve(
        self, conn: Connection, game_id: int, request: Roll | Draw, bags: bool
    ) -> tuple[Resolved, DeckUse] | None:
        """Answer a chance request of a scheme-3 game from its deck and seeds; None for a
        game whose dice come from the old pool."""
        if isinstance(request, Draw):
            new_hand = sorted(request.population) == sorted(FULL_BAG)
            taken = hand_shuffle(conn, game_id, new_hand)
            if taken is None:
                return None
            index, following_key, seats = taken
            part = self.part_for(
                conn, game_id, bags, shuffle=index, next_key=following_key, next_shuffle=index
            )
            local = index - part.first_shuffle
            committed = scheme.shuffle_colours(part.secret, local)
            mix = seeds_in_force(conn, game_id, seats, shuffle=index)
            colours = scheme.drawn_colours(committed, scheme.drawing_order(game_id, index, mix))
            outcome = draw_from(colours, request.population, request.count)
            return Resolved(outcome), DeckUse(index, hand=True)
        taken_key = next_key(conn, game_id)
        if taken_key is None:
            return None
        index, following_shuffle, seats = taken_key
        part = self.part_for(
            conn, game_id, bags, key=index, next_key=index, next_shuffle=following_shuffle
        )
        key = scheme.dice_key(part.secret, index - part.first_key)
        mix = seeds_in_force(conn, game_id, seats, key=index)
        faces = scheme.roll_faces(key, game_id, index, mix, request.count)
        return Resolved(faces), DeckUse(index, hand=False)


def seeds_in_force(
    conn: Connection,
    game_id: int,
    seats: int,
    *,
    key: int | None = None,
    shuffle: int | None = None,
) -> bytes:
    """The seed mix for the game's roll ``key`` or hand ``shuffle``."""
    rows = conn.execute(
        select(
            GAME_SEEDS.c.seat, GAME_SEEDS.c.seed, GAME_SEEDS.c.from_key, GAME_SEEDS.c.from_shuffle
        ).where(GAME_SEEDS.c.game_id == game_id)
    ).all()
    return mix_of(
        [(r.seat, bytes.fromhex(r.seed), r.from_key, r.from_shuffle) for r in rows],
        seats,
        key=key,
        shuffle=shuffle,
    )


def mix_of(
    seeds: Sequence[tuple[int, bytes, int, int]],
    seats: int,
    *,
    key: int | None = None,
    shuffle: int | None = None,
) -> bytes:
    """The mix of ``seeds`` (seat, seed, from key, from shuffle) in force at ``key`` or
    ``shuffle``."""
    by_seat: list[bytes | None] = [None] * seats
    for seat, seed, from_key, from_shuffle in seeds:
        if (key is not None and from_key <= key) or (
            shuffle is not None and from_shuffle <= shuffle
        ):
            by_seat[seat] = seed
    return scheme.seed_mix(by_seat)


def next_key(conn: Connection, game_id: int) -> tuple[int, int, int] | None:
    """Take the game's next key: (its index, the game's next shuffle, its seats); None for
    a game whose dice come from the old pool."""
    row = conn.execute(_NEXT_KEY, {"b_game": game_id}).first()
    if row is None:
        return None
    return int(row.next_key) - 1, int(row.next_shuffle), int(row.seats)


def hand_shuffle(conn: Connection, game_id: int, new_hand: bool) -> tuple[int, int, int] | None:
    """The shuffle a hand draws from (a new one for ``new_hand``): (its index, the game's
    next key, seats); None for an old game."""
    row = conn.execute(_NEXT_SHUFFLE, {"b_game": game_id, "b_step": 1 if new_hand else 0}).first()
    if row is None:
        return None
    return int(row.next_shuffle) - 1, int(row.next_key), int(row.seats)
