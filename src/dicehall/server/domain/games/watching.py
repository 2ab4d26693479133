"""Spectators: the games in progress one may watch, the users the players invite to watch a
private game, and what a spectator's socket is told when a game changes.

Who may watch is :mod:`dicehall.server.domain.games.privacy`'s rule. A spectator's push says
only which game changed, to which version and status: never a view, so no die a spectator
may not see can travel in it (the spectator reads the game again, as seat None).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, delete, insert, or_, select

from dicehall.server.core.models import User
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.games.privacy import WATCHERS, may_watch, seated, watchable
from dicehall.server.domain.games.reading import summaries
from dicehall.server.domain.games.records import (
    GAMES,
    SEATS,
    USERS,
    GameRecord,
    entry_of,
    fetch_game,
    seats_of,
)
from dicehall.server.domain.people import relations
from dicehall.server.domain.people.lookup import person

#: The live list's page size, and the most one page may hold.
LIVE_PAGE = 50
LIVE_PAGE_MAX = 100


def spectator_push(record: GameRecord) -> dict[str, Any]:
    """What a spectator's socket is told after a change to game ``record``."""
    return {
        "type": "game",
        "game": record.id,
        "version": record.version,
        "status": record.status,
    }


def live_games(
    conn: Connection,
    user: User | None,
    kind: str | None = None,
    limit: int = LIVE_PAGE,
    before: int | None = None,
) -> list[dict[str, Any]]:
    """Games in progress that ``user`` may watch (public ones, and private ones they sit in
    or were invited to watch), newest first, a page at a time (``before``: only games with
    a smaller id, the last id of the previous page); ``kind`` keeps one game."""
    query = select(GAMES).where(GAMES.c.status == "active")
    if kind is not None:
        query = query.where(GAMES.c.kind == entry_of(kind).name)
    if user is None:
        query = query.where(GAMES.c.private.is_(False))
    else:
        mine = select(SEATS.c.game_id).where(SEATS.c.user_pk == user.id)
        invited = select(WATCHERS.c.game_id).where(WATCHERS.c.user_pk == user.id)
        query = query.where(
            or_(GAMES.c.private.is_(False), GAMES.c.id.in_(mine), GAMES.c.id.in_(invited))
        )
    if before is not None:
        query = query.where(GAMES.c.id < before)
    rows = conn.execute(
        query.order_by(GAMES.c.id.desc()).limit(max(1, min(limit, LIVE_PAGE_MAX)))
    ).all()
    return summaries(conn, rows, -1 if user is None else user.id)


def watchers(conn: Connection, game_id: int, user: User | None) -> list[str]:
    """The user ids the players invited to watch game ``game_id``, in order (404 to a user
    who may not see the game)."""
    watchable(conn, game_id, None if user is None else user.id)
    return _invited(conn, game_id)


def _invited(conn: Connection, game_id: int) -> list[str]:
    return list(
        conn.execute(
            select(USERS.c.user_id)
            .select_from(WATCHERS.join(USERS, USERS.c.id == WATCHERS.c.user_pk))
            .where(WATCHERS.c.game_id == game_id)
            .order_by(USERS.c.key)
        ).scalars()
    )


def _player_and_guest(
    conn: Connection, game_id: int, player: User, guest_id: str
) -> tuple[int, bool]:
    """The guest's user pk and whether they sit at the game, once ``player`` is known to sit
    at it (a stranger to a private game gets its 404; an unknown guest a 404 too)."""
    _record, seats = watchable(conn, game_id, player.id)
    if not seated(seats, player.id):
        raise Refused("forbidden", "not_a_player", "only the game's players may invite watchers")
    found = conn.execute(
        select(USERS.c.id).where(USERS.c.key == guest_id.strip().lower())
    ).scalar_one_or_none()
    if found is None:
        shown = guest_id if len(guest_id) <= 40 else guest_id[:40] + "..."
        raise Refused("not_found", "no_such_user", f"there is no user {shown!r}")
    return int(found), seated(seats, int(found))


def invite(conn: Connection, game_id: int, player: User, guest_id: str) -> list[str]:
    """``player`` (seated at the game) invites the user ``guest_id`` to watch it: the
    invited users after the change. Inviting twice, or a player, changes nothing."""
    guest, plays = _player_and_guest(conn, game_id, player, guest_id)
    if not relations.may_interact(conn, player.id, guest, "watch"):
        raise relations.not_accepted(person(conn, guest).user_id, "watch")  # as they spell it
    already = conn.execute(
        select(WATCHERS.c.user_pk).where(WATCHERS.c.game_id == game_id, WATCHERS.c.user_pk == guest)
    ).first()
    if not plays and already is None:
        conn.execute(insert(WATCHERS).values(game_id=game_id, user_pk=guest))
    return _invited(conn, game_id)


def uninvite(
    conn: Connection, game_id: int, player: User, guest_id: str
) -> tuple[list[str], int | None]:
    """``player`` withdraws the user ``guest_id``'s invitation to watch the game: the
    invited users after the change, and the guest's pk when the withdrawal shuts them out
    (a private game: their sockets must stop following it). Withdrawing twice changes
    nothing."""
    guest, _plays = _player_and_guest(conn, game_id, player, guest_id)
    removed = conn.execute(
        delete(WATCHERS).where(WATCHERS.c.game_id == game_id, WATCHERS.c.user_pk == guest)
    ).rowcount
    record = fetch_game(conn, game_id)
    shut_out = removed and not may_watch(conn, record, seats_of(conn, game_id), guest)
    return _invited(conn, game_id), (guest if shut_out else None)


def watch_access(conn: Connection, game_id: int, user_pk: int | None) -> bool:
    """Whether ``user_pk`` plays game ``game_id`` (their socket follows it uncounted), for a
    socket that asks to follow it; a 404 when they may not watch it."""
    _record, seats = watchable(conn, game_id, user_pk)
    return seated(seats, user_pk)
