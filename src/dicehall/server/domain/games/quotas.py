"""Quotas on games, so that nobody can flood the waiting room, another user's list or other
people's open seats; each check raises :class:`Refused` (too many)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import Connection, func, select

from dicehall.server.core.clock import now
from dicehall.server.core.models import User
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.games.records import GAMES, SEATS, SeatInfo

#: Quotas, so that nobody can flood the waiting room, another user's list or other people's
#: open seats: games created and games joined in the last minute, games waiting for players
#: one sits in, and invitations from one creator to one other user still unanswered.
CREATES_PER_MINUTE = 30
OPEN_GAMES_PER_USER = 10
PENDING_INVITES_TO_ONE_USER = 3
JOINS_PER_MINUTE = 30
#: The most games one player may have in progress at once.
ACTIVE_GAMES_PER_USER = 100


@dataclass(frozen=True)
class GameLimits:
    """How many games one player may sit in: in progress, and waiting for players (the
    site's settings ``max_active_games`` and ``max_open_games``)."""

    active: int = ACTIVE_GAMES_PER_USER
    open: int = OPEN_GAMES_PER_USER


def check_active_quota(conn: Connection, user_pk: int, limits: GameLimits) -> None:
    """Refused (too many) when ``user_pk`` already plays ``limits.active`` games."""
    playing = conn.execute(
        select(func.count())
        .select_from(GAMES.join(SEATS, SEATS.c.game_id == GAMES.c.id))
        .where(SEATS.c.user_pk == user_pk, GAMES.c.status == "active")
    ).scalar_one()
    if playing >= limits.active:
        raise Refused(
            "too_many",
            "too_many_active_games",
            f"you already play {limits.active} games; finish one before starting another",
        )


def check_join_quota(conn: Connection, user: User, limits: GameLimits | None = None) -> None:
    """Refused (too many) when ``user`` may not join another game now: more than
    ``JOINS_PER_MINUTE`` joins in the last minute, seats already held in ``limits.open``
    games still waiting for players, or ``limits.active`` games in progress."""
    limits = limits or GameLimits()
    recent = conn.execute(
        select(func.count())
        .select_from(SEATS)
        .where(SEATS.c.user_pk == user.id, SEATS.c.joined_at > now() - timedelta(minutes=1))
    ).scalar_one()
    if recent >= JOINS_PER_MINUTE:
        raise Refused(
            "too_many",
            "too_many_joins",
            f"you joined {JOINS_PER_MINUTE} games in the last minute; wait a little",
            retry_after=60,
        )
    waiting = conn.execute(
        select(func.count())
        .select_from(GAMES.join(SEATS, SEATS.c.game_id == GAMES.c.id))
        .where(SEATS.c.user_pk == user.id, GAMES.c.status == "waiting")
    ).scalar_one()
    if waiting >= limits.open:
        raise Refused(
            "too_many",
            "too_many_open_games",
            f"you already sit in {limits.open} games waiting for players",
        )
    check_active_quota(conn, user.id, limits)


def check_create_quota(
    conn: Connection, creator: User, seats: list[SeatInfo], limits: GameLimits | None = None
) -> None:
    """Refused (too many) when ``creator`` may not create this game now (see the quotas above)."""
    limits = limits or GameLimits()
    moment = now()
    mine = GAMES.c.created_by == creator.id
    recent = conn.execute(
        select(func.count())
        .select_from(GAMES)
        .where(mine, GAMES.c.created_at > moment - timedelta(minutes=1))
    ).scalar_one()
    if recent >= CREATES_PER_MINUTE:
        raise Refused(
            "too_many",
            "too_many_games",
            f"you created {CREATES_PER_MINUTE} games in the last minute; wait a little",
            retry_after=60,
        )
    if any(s.is_open for s in seats):
        waiting = conn.execute(
            select(func.count()).select_from(GAMES).where(mine, GAMES.c.status == "waiting")
        ).scalar_one()
        if waiting >= limits.open:
            raise Refused(
                "too_many",
                "too_many_open_games",
                f"you already have {limits.open} games waiting for players",
            )
    else:
        check_active_quota(conn, creator.id, limits)
    for other in {s.user_pk for s in seats if s.user_pk not in (None, creator.id)}:
        pending = conn.execute(
            select(func.count())
            .select_from(GAMES.join(SEATS, SEATS.c.game_id == GAMES.c.id))
            .where(
                mine,
                GAMES.c.status == "waiting",
                SEATS.c.user_pk == other,
                SEATS.c.invited.is_(True),
            )
        ).scalar_one()
        if pending >= PENDING_INVITES_TO_ONE_USER:
            raise Refused(
                "too_many",
                "too_many_invites",
                f"this player has {PENDING_INVITES_TO_ONE_USER} invitations from you to answer",
            )
