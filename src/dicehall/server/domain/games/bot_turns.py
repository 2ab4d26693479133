"""The bot driver's side: games due, leases, slow bots' turns, and driving a slice."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, bindparam, or_, select, update

from dicehall.engine.events import Acted
from dicehall.server.domain.dice.pool import DicePool
from dicehall.server.domain.games.play import advance, store
from dicehall.server.domain.games.records import (
    GAMES,
    GameRecord,
    SeatInfo,
    Step,
    entry_of,
    fetch_game,
    load_state,
    seats_of,
)

# -- the bot driver's side -----------------------------------------------------------------------

_DUE_GAMES = (
    select(GAMES.c.id)
    .where(
        GAMES.c.bot_due.is_(True),
        GAMES.c.status == "active",
        or_(GAMES.c.driver_lease.is_(None), GAMES.c.driver_lease < bindparam("b_now")),
    )
    .order_by(GAMES.c.updated_at)
    .limit(bindparam("b_limit"))
)


def due_games(conn: Connection, moment: datetime, limit: int) -> list[int]:
    """Games that wait on a bot or on dice and that no driver holds, longest waiting first."""
    return [int(i) for i in conn.execute(_DUE_GAMES, {"b_now": moment, "b_limit": limit}).scalars()]


def claim_game(conn: Connection, game_id: int, moment: datetime, until: datetime) -> bool:
    """Hold a due game for this driver until ``until``; False when another driver holds it."""
    claimed = conn.execute(
        update(GAMES)
        .where(
            GAMES.c.id == game_id,
            GAMES.c.bot_due.is_(True),
            or_(GAMES.c.driver_lease.is_(None), GAMES.c.driver_lease < moment),
        )
        .values(driver_lease=until)
    )
    return claimed.rowcount == 1


def renew_game(conn: Connection, game_id: int, moment: datetime, until: datetime) -> bool:
    """Hold a game this driver still holds until ``until``; False when its lease is gone
    (a commit ended it, or it ran out and another driver may have it)."""
    renewed = conn.execute(
        update(GAMES)
        .where(GAMES.c.id == game_id, GAMES.c.driver_lease >= moment)
        .values(driver_lease=until)
    )
    return renewed.rowcount == 1


def release_game(conn: Connection, game_id: int) -> None:
    """Give up a held game (another driver may take it at once)."""
    hold_game(conn, game_id, None)


def hold_game(conn: Connection, game_id: int, until: datetime | None) -> None:
    """Keep drivers off a game until ``until`` (None: free it now)."""
    conn.execute(update(GAMES).where(GAMES.c.id == game_id).values(driver_lease=until))


@dataclass(frozen=True)
class BotTurn:
    """A slow bot's decision the driver must get from the bot pool."""

    game_id: int
    version: int
    kind: str
    bot: str
    seat: int
    options: str
    state: str


def slow_bot_turn(conn: Connection, game_id: int) -> BotTurn | None:
    """The slow bot that must act now, or None when quick work (dice, quick bots) is due."""
    record = fetch_game(conn, game_id)
    if not record.bot_due or record.to_act is None or record.snapshot is None:
        return None
    entry = entry_of(record.kind)
    bot = seats_of(conn, game_id)[record.to_act].acting_bot(entry)
    if bot is None or bot not in entry.slow_bots:
        return None
    return BotTurn(
        record.id, record.version, record.kind, bot, record.to_act, record.options, record.snapshot
    )


def drive(
    conn: Connection,
    pool: DicePool,
    game_id: int,
    version: int | None,
    decided: tuple[int, Any] | None,
) -> tuple[GameRecord, list[SeatInfo]] | None:
    """One slice of a due game: the slow bot's decided action if any, then dice and quick
    bots within the budget. None (nothing written) when the game moved on meanwhile."""
    record = fetch_game(conn, game_id, lock=True)
    if not record.bot_due or record.status != "active":
        return None
    if version is not None and record.version != version:
        return None
    seats = seats_of(conn, game_id)
    game = entry_of(record.kind).game
    state = load_state(record)
    steps: list[Step] = []
    if decided is not None:
        seat, action = decided
        state = game.act(state, seat, action)
        steps.append((Acted(seat, action), None))
    state = advance(conn, pool, record, seats, state, steps)
    if not steps:
        return None
    return store(conn, record, seats, state, steps), seats
