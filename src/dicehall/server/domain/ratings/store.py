"""Rating a finished game, in the transaction that finishes it: each seat's place from the
game's result (ties share a place; seats that resigned or timed out come below every seat
that finished, the earlier leaver lower), each person's rating before (widened by the days
since their last rated game) and after, stored once per game and seat."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Connection, Table, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite

from dicehall.server.core.clock import aware
from dicehall.server.core.models import Rating, RatingChange
from dicehall.server.domain.games.records import GameRecord, SeatInfo, seats_of
from dicehall.server.domain.ratings import model
from dicehall.server.domain.ratings.model import Skill

RATINGS = cast(Table, Rating.__table__)
CHANGES = cast(Table, RatingChange.__table__)
DAY = 86400.0


def place_groups(record: GameRecord, seats: Sequence[SeatInfo]) -> list[list[int]]:
    """A finished game's seats in groups, best first: those that finished by the rules'
    result (winners first, then by score; equal ones share a group), then those that left
    (resigned or timed out), the later leaver first, each alone."""
    result: dict[str, Any] = json.loads(record.result or "{}")
    winners = set(result.get("winners", []))
    scores = result.get("scores") or [0] * record.seats
    stayed: dict[tuple[bool, float], list[int]] = {}
    for seat in seats:
        if not seat.forfeited:
            key = (seat.seat not in winners, -float(scores[seat.seat]))
            stayed.setdefault(key, []).append(seat.seat)
    left = sorted((s for s in seats if s.forfeited), key=lambda s: (-(s.left_version or 0), s.seat))
    return [stayed[key] for key in sorted(stayed)] + [[s.seat] for s in left]


def skill_at(row: Any, at: datetime) -> Skill:
    """A stored rating as it stands at ``at``: sigma widened by the days without a game."""
    idle = (at - aware(row.last_game_at)).total_seconds() / DAY
    return model.widened(Skill(row.mu, row.sigma), idle)


def ensure_rows(conn: Connection, kind: str, user_pks: Sequence[int], at: datetime) -> None:
    """Make the rating rows of ``kind`` that ``user_pks`` do not have yet (a new rating:
    openskill's defaults, no games, counted from ``at``), leaving existing rows alone.

    Two games that end at once and share a player new to the kind would otherwise both find
    no row and both insert one (PostgreSQL: a unique violation that fails the second game's
    end). ON CONFLICT DO NOTHING waits for the other transaction's row and then keeps it,
    so the row can then be locked and updated like any other."""
    dialect: Any = postgresql if conn.dialect.name == "postgresql" else sqlite
    statement = dialect.insert(RATINGS).values(
        [
            {
                "user_pk": pk,
                "kind": kind,
                "mu": model.MU,
                "sigma": model.SIGMA,
                "games": 0,
                "last_game_at": at,
            }
            for pk in sorted(set(user_pks))
        ]
    )
    conn.execute(
        statement.on_conflict_do_nothing(index_elements=[RATINGS.c.user_pk, RATINGS.c.kind])
    )


def _current(conn: Connection, kind: str, user_pks: Sequence[int]) -> dict[int, Any]:
    # Locked in pk order, so two games ending at once that share players never deadlock
    # (SQLite's writers are serialised anyway).
    query = (
        select(RATINGS)
        .where(RATINGS.c.kind == kind, RATINGS.c.user_pk.in_(user_pks))
        .order_by(RATINGS.c.user_pk)
    )
    if conn.dialect.name == "postgresql":
        query = query.with_for_update()
    return {row.user_pk: row for row in conn.execute(query)}


def already_rated(conn: Connection, game_id: int) -> bool:
    """Whether game ``game_id`` has changed ratings already."""
    return (
        conn.execute(select(CHANGES.c.id).where(CHANGES.c.game_id == game_id).limit(1)).first()
        is not None
    )


def rate_game(
    conn: Connection, record: GameRecord, seats: Sequence[SeatInfo] | None = None
) -> bool:
    """Rate ``record`` if it is a finished rated game not rated yet; whether it was rated now.

    Called where every game change is written, in the same transaction; the game's row is
    locked by then, and each (game, seat) change is unique, so a game is rated exactly once.
    """
    kind = record.rating_kind
    if kind is None or record.status != "finished" or already_rated(conn, record.id):
        return False
    seats = list(seats) if seats is not None else seats_of(conn, record.id)
    people = {s.seat: s.user_pk for s in seats if s.user_pk is not None}
    if len(people) != len(seats) or len(seats) < 2:
        return False  # only games where every seat is a person are rated
    at = record.ended_at or record.updated_at
    places = model.places_of(place_groups(record, seats), len(seats))
    user_pks = [people[s.seat] for s in seats]
    ensure_rows(conn, kind, user_pks, at)
    stored = _current(conn, kind, sorted(user_pks))
    before = [skill_at(stored[pk], at) for pk in user_pks]
    after = model.rate(kind, before, places)
    for pk, old, new, place in zip(user_pks, before, after, places, strict=True):
        conn.execute(
            update(RATINGS)
            .where(RATINGS.c.user_pk == pk, RATINGS.c.kind == kind)
            .values(games=RATINGS.c.games + 1, mu=new.mu, sigma=new.sigma, last_game_at=at)
        )
        conn.execute(
            insert(CHANGES).values(
                game_id=record.id,
                user_pk=pk,
                kind=kind,
                place=place,
                mu_before=old.mu,
                sigma_before=old.sigma,
                mu_after=new.mu,
                sigma_after=new.sigma,
                at=at,
            )
        )
    return True
