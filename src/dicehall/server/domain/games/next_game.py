"""The next game waiting on me: of the games where it is my turn, the one with the least
time left (games without a clock after those with one, then the one whose turn began
first), for the board's "Next game" button and key."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, func, select

from dicehall.server.domain.games.records import GAMES, SEATS


def _mine(user_pk: int, skip: int | None) -> list[Any]:
    where = [
        SEATS.c.user_pk == user_pk,
        SEATS.c.status == "playing",
        GAMES.c.status == "active",
        GAMES.c.to_act == SEATS.c.seat,
    ]
    if skip is not None:
        where.append(GAMES.c.id != skip)
    return where


def next_game(conn: Connection, user_pk: int, skip: int | None = None) -> dict[str, int | None]:
    """``{"game": id or None, "waiting": n}``: the next game where it is ``user_pk``'s turn
    and how many are, ``skip`` (the game on screen) left out."""
    joined = GAMES.join(SEATS, SEATS.c.game_id == GAMES.c.id)
    where = _mine(user_pk, skip)
    first = conn.execute(
        select(GAMES.c.id)
        .select_from(joined)
        .where(*where)
        .order_by(
            GAMES.c.deadline.is_(None),
            GAMES.c.deadline,
            GAMES.c.updated_at,
            GAMES.c.id,
        )
        .limit(1)
    ).scalar()
    count = conn.execute(select(func.count()).select_from(joined).where(*where)).scalar_one()
    return {"game": None if first is None else int(first), "waiting": int(count)}
