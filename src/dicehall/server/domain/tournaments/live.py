"""Telling players, and everyone with the tournament's page open, that a tournament changed
(the live standings of its page).

The page follows the tournament over the push socket (``/api/v1/ws?tournament=ID``, signed
in or not): the broker delivers what is published for the tournament to those sockets.
"""

from __future__ import annotations

from sqlalchemy import Connection, select

from dicehall.server.core.txn import publish_after_commit, publish_tournament_after_commit
from dicehall.server.domain.tournaments.rows import PLAYERS, TOURNAMENTS


def changed(conn: Connection, tournament_id: int, version: int) -> None:
    """After the commit, push ``{"type": "tournament", "id", "version"}`` to every player of
    the tournament and to every socket following it (their pages fetch the new standings)."""
    message = {"type": "tournament", "id": tournament_id, "version": version}
    players = conn.execute(
        select(PLAYERS.c.user_pk).where(PLAYERS.c.tournament_id == tournament_id)
    ).scalars()
    for user_pk in list(players):
        publish_after_commit(conn, int(user_pk), message)
    publish_tournament_after_commit(conn, tournament_id, message)


def followable(conn: Connection, tournament_id: int) -> bool:
    """Whether a socket may follow tournament ``tournament_id`` (it exists: every
    tournament's page is public)."""
    found = conn.execute(select(TOURNAMENTS.c.id).where(TOURNAMENTS.c.id == tournament_id))
    return found.first() is not None
