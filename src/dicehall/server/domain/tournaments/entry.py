"""Joining and withdrawing.

Join: only while the tournament is open, once, up to its size; a buddies-only tournament
takes its creator and those the creator names a buddy; never across an ignore with anyone
in it (answered exactly as a full tournament is, so an ignore is never told); not while the
timeout ban lasts (:mod:`.bans`); at most :data:`MOST_JOINED` tournaments at once. The join
that fills a start-when-full tournament wakes the tournaments job, which starts it.

Withdraw: before the start the player simply leaves; once it runs they are marked
``withdrawn`` (a game in progress goes on; they are seated in no later round) and keep
their place in the standings.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Connection, delete, func, insert, select, update

from dicehall.server.core.models import User
from dicehall.server.domain import jobs
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.people import relations
from dicehall.server.domain.people.relations import RELATIONS
from dicehall.server.domain.tournaments import bans, live
from dicehall.server.domain.tournaments.rows import (
    PLAYERS,
    TOURNAMENTS,
    Row_,
    bump,
    fetch,
    lock_player,
    players_of,
)

#: Tournaments one player may be in at once (open or running, still playing).
MOST_JOINED = 20


def _full() -> Refused:
    return Refused("conflict", "full", "this tournament is full")


def joined_now(conn: Connection, user_pk: int) -> int:
    """How many open or running tournaments ``user_pk`` still plays in."""
    return int(
        conn.execute(
            select(func.count())
            .select_from(PLAYERS.join(TOURNAMENTS, TOURNAMENTS.c.id == PLAYERS.c.tournament_id))
            .where(
                PLAYERS.c.user_pk == user_pk,
                PLAYERS.c.status == "active",
                TOURNAMENTS.c.status.in_(("open", "running")),
            )
        ).scalar_one()
    )


def _buddy_of_creator(conn: Connection, tournament: Row_, user_pk: int) -> bool:
    creator: int | None = tournament.created_by
    if creator is None or creator == user_pk:
        return creator == user_pk
    found = conn.execute(
        select(RELATIONS.c.kind).where(
            RELATIONS.c.owner_pk == creator,
            RELATIONS.c.target_pk == user_pk,
            RELATIONS.c.kind == "buddy",
        )
    ).first()
    return found is not None


def why_not(conn: Connection, tournament: Row_, user_pk: int) -> Refused | None:
    """Why ``user_pk`` may not join ``tournament`` now (None: they may)."""
    if tournament.status != "open":
        return Refused("conflict", "not_open", f"this tournament is {tournament.status}")
    players = [int(p.user_pk) for p in players_of(conn, tournament.id)]
    if user_pk in players:
        return Refused("conflict", "already_joined", "you are in this tournament already")
    if tournament.buddies_only and not _buddy_of_creator(conn, tournament, user_pk):
        return Refused(
            "forbidden",
            "buddies_only",
            "this tournament is for its creator's buddies only",
        )
    banned = bans.ban_of(conn, user_pk)
    if banned is not None:
        return banned
    if tournament.size is not None and len(players) >= tournament.size:
        return _full()
    if any(user_pk in pair for pair in relations.apart_pairs(conn, [user_pk, *players])):
        return _full()
    if joined_now(conn, user_pk) >= MOST_JOINED:
        return Refused(
            "too_many",
            "too_many_tournaments",
            f"you play in {MOST_JOINED} tournaments already; finish or withdraw from one first",
        )
    return None


def join(conn: Connection, user: User, tournament_id: int, at: datetime) -> None:
    """``user`` joins tournament ``tournament_id`` (refused as :func:`why_not` says, and
    404 ``no_such_tournament``). Caller commits."""
    lock_player(conn, user.id)
    tournament = fetch(conn, tournament_id, lock=True)
    refused = why_not(conn, tournament, user.id)
    if refused is not None:
        raise refused
    conn.execute(
        insert(PLAYERS).values(
            tournament_id=tournament_id,
            user_pk=user.id,
            joined_at=at,
            status="active",
            points=0.0,
            seed=0.0,
            left_round=None,
            place=None,
        )
    )
    version = bump(conn, tournament_id)
    live.changed(conn, tournament_id, version)
    count = len(players_of(conn, tournament_id))
    if tournament.starts_at is None and tournament.size is not None and count >= tournament.size:
        jobs.wake(conn, "tournaments")


def withdraw(conn: Connection, user: User, tournament_id: int, at: datetime) -> None:
    """``user`` leaves tournament ``tournament_id``: before the start, for good; while it
    runs, from every later round (409 ``not_joined``, ``not_playing`` when they no longer
    play in it, ``finished`` when it is over). Caller commits."""
    del at
    tournament = fetch(conn, tournament_id, lock=True)
    player = conn.execute(
        select(PLAYERS).where(
            PLAYERS.c.tournament_id == tournament_id, PLAYERS.c.user_pk == user.id
        )
    ).first()
    if player is None:
        raise Refused("conflict", "not_joined", "you are not in this tournament")
    if tournament.status in ("finished", "cancelled"):
        raise Refused("conflict", "finished", f"this tournament is {tournament.status}")
    mine = (PLAYERS.c.tournament_id == tournament_id) & (PLAYERS.c.user_pk == user.id)
    if tournament.status == "open":
        conn.execute(delete(PLAYERS).where(mine))
    elif player.status != "active":
        raise Refused("conflict", "not_playing", "you no longer play in this tournament")
    else:
        conn.execute(
            update(PLAYERS).where(mine).values(status="withdrawn", left_round=tournament.round)
        )
    version = bump(conn, tournament_id)
    live.changed(conn, tournament_id, version)
