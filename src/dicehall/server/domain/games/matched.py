"""Games the site seats by itself: auto-match tables and tournament tables.

Nobody invites anybody here: the players asked to be matched (or joined a tournament), so
every seat is accepted at once and the game starts in the same transaction. The checks a
person's request goes through (naming opponents, quotas of open games) belong to those
requests; the matcher and the tournaments plan around ignores and make their own entry rules, and
:func:`start_matched_game` checks once more that nobody meets across an ignore
(:func:`~dicehall.server.domain.people.relations.apart_pairs`: what the one check,
``may_interact_many``, decides for the meeting ``"match"``, in one query).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import Connection

from dicehall.server.domain.dice.pool import DicePool
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.games.pace import Pace
from dicehall.server.domain.games.records import (
    GameRecord,
    SeatInfo,
    entry_of,
    fetch_game,
)
from dicehall.server.domain.games.seating import insert_game, start_game, vacation_for
from dicehall.server.domain.people import relations
from dicehall.server.domain.ratings import kinds


@dataclass(frozen=True)
class Player:
    """Who takes a seat: a user (pk and handle) or a bot (its name)."""

    user_pk: int | None = None
    user_id: str | None = None
    bot: str | None = None


def label_of(player: Player) -> str:
    """How a seat draw names the player: the handle, or ``bot:name``."""
    return player.user_id or "" if player.bot is None else f"bot:{player.bot}"


def start_matched_game(
    conn: Connection,
    pool: DicePool,
    kind: str,
    options: object,
    players: Sequence[Player],
    *,
    pace: Pace | None,
    rated: bool,
    vacation: bool | None = None,
    created_by: int,
) -> tuple[GameRecord, list[SeatInfo]]:
    """Create and start a game with ``players`` in seat order (every seat accepted).

    ``options`` are decoded options (``game.options(raw)`` already applied); ``rated``
    asks for a rated game, granted only when every seat is a person and the game has a
    rating kind (bots make it unrated); ``vacation`` (None: wherever the pace allows) as in
    :func:`~dicehall.server.domain.games.seating.vacation_for`. Refused (403
    ``not_accepted``, naming nobody) when two of the people may not meet. Caller commits."""
    entry = entry_of(kind)
    entry.game.check_seats(len(players))
    people = {p.user_pk: p.user_id or "" for p in players if p.user_pk is not None}
    if len(people) != sum(1 for p in players if p.user_pk is not None):
        raise Refused("invalid", "invalid_seats", "a player can take only one seat in a game")
    if relations.apart_pairs(conn, people):
        raise relations.not_accepted(None, "match")
    everyone_a_person = len(people) == len(players) >= 2
    rating_kind = kinds.kind_of(entry.name, options) if rated and everyone_a_person else None
    seats = [SeatInfo(i, p.user_pk, p.user_id, p.bot) for i, p in enumerate(players)]
    game_id = insert_game(
        conn,
        pool,
        entry.name,
        options,
        seats,
        created_by=created_by,
        pace=pace,
        vacation=vacation_for(vacation, pace),
        private=False,
        rating_kind=rating_kind,
        ladder=False,
        seated_now=True,
    )
    return start_game(conn, pool, fetch_game(conn, game_id), seats), seats
