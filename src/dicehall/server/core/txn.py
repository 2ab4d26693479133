"""Work that must wait until a transaction has committed (filling caches, pushes).

A rejected or rolled-back request must leave no trace anywhere, so nothing derived from a
transaction's writes may be published before it commits. Code inside a transaction registers
callbacks with :func:`after_commit`; the owner of the transaction runs them with
:func:`committed` once the commit succeeded, or drops them with :func:`rolled_back`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import Connection

_KEY = "dicehall_after_commit"
_PUBLISH = "dicehall_publish"
_PUBLISH_TOURNAMENT = "dicehall_publish_tournament"
_PUBLISH_SITE = "dicehall_publish_site"

Publish = Callable[[int, dict[str, Any]], None]
"""Sends a message to one user's live connections (the push broker's ``publish``)."""


def after_commit(conn: Connection, callback: Callable[[], object]) -> None:
    """Run ``callback`` once the transaction on ``conn`` has committed."""
    conn.info.setdefault(_KEY, []).append(callback)


def committed(conn: Connection) -> None:
    """The transaction committed: run its callbacks in order."""
    for callback in conn.info.pop(_KEY, []):
        callback()


def rolled_back(conn: Connection) -> None:
    """The transaction rolled back: forget its callbacks (``conn.info`` outlives it)."""
    conn.info.pop(_KEY, None)


def bind_publisher(conn: Connection, publish: Publish) -> None:
    """Let work on ``conn`` push messages to users once it commits."""
    conn.info[_PUBLISH] = publish


def publish_after_commit(conn: Connection, user_pk: int, message: dict[str, Any]) -> None:
    """Push ``message`` to ``user_pk`` once the transaction on ``conn`` has committed (a
    connection with no publisher bound pushes nothing)."""
    publish: Publish | None = conn.info.get(_PUBLISH)
    if publish is not None:
        after_commit(conn, lambda: publish(user_pk, message))


def bind_tournament_publisher(conn: Connection, publish: Publish) -> None:
    """Let work on ``conn`` push messages to the sockets following a tournament (its page)
    once it commits (``publish(tournament_id, message)``: the broker's)."""
    conn.info[_PUBLISH_TOURNAMENT] = publish


def publish_tournament_after_commit(
    conn: Connection, tournament_id: int, message: dict[str, Any]
) -> None:
    """Push ``message`` to the sockets following tournament ``tournament_id`` once the
    transaction on ``conn`` has committed (a connection with no publisher bound pushes
    nothing)."""
    publish: Publish | None = conn.info.get(_PUBLISH_TOURNAMENT)
    if publish is not None:
        after_commit(conn, lambda: publish(tournament_id, message))


def bind_site_publisher(conn: Connection, publish: Callable[[dict[str, Any]], None]) -> None:
    """Let work on ``conn`` push messages to the sockets following the site's pulse (the
    Singularity page) once it commits (``publish(message)``: the broker's)."""
    conn.info[_PUBLISH_SITE] = publish


def publish_site_after_commit(conn: Connection, message: dict[str, Any]) -> None:
    """Push ``message`` to the sockets following the site's pulse once the transaction on
    ``conn`` has committed (a connection with no publisher bound pushes nothing)."""
    publish: Callable[[dict[str, Any]], None] | None = conn.info.get(_PUBLISH_SITE)
    if publish is not None:
        after_commit(conn, lambda: publish(message))
