"""Clocks that ran out are applied before a game is read or changed: nobody waits for the
sweeper (see :mod:`dicehall.server.domain.games.ending`)."""

from __future__ import annotations

from sqlalchemy import Connection

from dicehall.server.core.clock import now
from dicehall.server.core.models import User
from dicehall.server.domain.games.ending import apply_timeout
from dicehall.server.domain.games.payloads import GamePayload
from dicehall.server.domain.games.reading import read_game
from dicehall.server.domain.games.records import GameRecord, SeatInfo, fetch_game
from dicehall.server.domain.services import Services
from dicehall.server.domain.work import notify, read, run_db, write


class Overdue(Exception):
    """A clock ran out before this change: apply the timeout first."""


async def read_settled(services: Services, game_id: int, user: User | None) -> GamePayload:
    """A game's payload for ``user``, with a clock that ran out applied first (nobody waits
    for the sweeper)."""

    payload: GamePayload = await run_db(
        services, read, services, lambda conn: read_game(conn, game_id, user)
    )
    if not _out_of_time(payload):
        return payload
    await settle(services, game_id)
    fresh: GamePayload = await run_db(
        services, read, services, lambda conn: read_game(conn, game_id, user)
    )
    return fresh


def _out_of_time(payload: GamePayload) -> bool:
    clock = payload.get("clock")
    return (
        payload.get("status") == "active"
        and clock is not None
        and any(seat["running"] and seat["remaining"] <= 0 for seat in clock["seats"])
    )


async def settle(services: Services, game_id: int) -> None:
    """Apply game ``game_id``'s timeout if its clock ran out, and push the change."""

    def work(conn: Connection) -> tuple[GameRecord, list[SeatInfo]] | None:
        record = fetch_game(conn, game_id, lock=True)
        return apply_timeout(conn, services.pool, record, now())

    changed = await run_db(services, write, services, work)
    if changed is not None:
        notify(services, *changed)
