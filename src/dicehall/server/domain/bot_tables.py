"""What the bot workers report of their slow bots' tables: when a build started, when one
was ready. Web processes without bot workers read it to tell players a bot is warming up."""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple, cast

from sqlalchemy import Connection, Table, and_, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.sql.elements import ColumnElement

from dicehall.server.core.clock import aware
from dicehall.server.core.models import BotTable

BOT_TABLES = cast(Table, BotTable.__table__)

WarmKey = tuple[str, str, str]
"""A game kind, a bot name and the game's options (canonical JSON)."""

#: Options longer than this are not reported (the column's width; default options are short).
OPTIONS_MAX = 400


class Warmth(NamedTuple):
    """When a worker first started building a bot's tables and when one had them; the
    fraction of the build done and the seconds left, as a worker last told them, and when."""

    started_at: datetime
    ready_at: datetime | None
    progress: float | None = None
    left_s: float | None = None
    told_at: datetime | None = None


def _where(key: WarmKey) -> ColumnElement[bool]:
    kind, bot, options = key
    return and_(BOT_TABLES.c.kind == kind, BOT_TABLES.c.bot == bot, BOT_TABLES.c.options == options)


def started(conn: Connection, key: WarmKey, at: datetime) -> None:
    """A worker starts building ``key``'s tables (the first start is kept)."""
    if len(key[2]) > OPTIONS_MAX:
        return
    if conn.execute(select(BOT_TABLES.c.kind).where(_where(key))).first() is not None:
        return
    kind, bot, options = key
    try:
        with conn.begin_nested():
            conn.execute(
                insert(BOT_TABLES).values(kind=kind, bot=bot, options=options, started_at=at)
            )
    except IntegrityError:
        pass  # another worker reported it first


def ready(conn: Connection, key: WarmKey, at: datetime) -> None:
    """A worker has ``key``'s tables."""
    if len(key[2]) > OPTIONS_MAX:
        return
    started(conn, key, at)
    conn.execute(
        update(BOT_TABLES).where(_where(key), BOT_TABLES.c.ready_at.is_(None)).values(ready_at=at)
    )


def progressed(
    conn: Connection, key: WarmKey, at: datetime, fraction: float, left_s: float | None
) -> None:
    """At ``at``, a worker's build of ``key``'s tables is ``fraction`` done, with ``left_s``
    seconds left at its pace (None: too early to tell)."""
    if len(key[2]) > OPTIONS_MAX:
        return
    started(conn, key, at)
    conn.execute(
        update(BOT_TABLES)
        .where(_where(key), BOT_TABLES.c.ready_at.is_(None))
        .values(progress=fraction, left_s=left_s, told_at=at)
    )


def every(conn: Connection) -> dict[WarmKey, Warmth]:
    """Every report, by key."""
    rows = conn.execute(select(BOT_TABLES)).all()
    return {
        (row.kind, row.bot, row.options): Warmth(
            aware(row.started_at),
            None if row.ready_at is None else aware(row.ready_at),
            row.progress,
            row.left_s,
            None if row.told_at is None else aware(row.told_at),
        )
        for row in rows
    }
