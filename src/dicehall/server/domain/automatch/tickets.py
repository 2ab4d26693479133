"""Auto-match tickets: filing one (checked, then an open waiting-room seat that fits is taken
at once, else the ticket waits for the matcher), cancelling one, and the player's list.

A ticket asks for a game with options, a range of table sizes, a pace and rated or not,
and optionally bots after some minutes. A player has at most one waiting ticket per game
and options (Double and Triple Boatzee are apart) and :data:`MOST_WAITING` in all. Every
check comes before the first write, so a refused ticket changes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

from sqlalchemy import Connection, insert, select, update

from dicehall.engine import codec
from dicehall.engine.errors import InvalidOptions
from dicehall.server.core.clock import aware
from dicehall.server.core.models import User
from dicehall.server.domain.automatch import estimate, locks, open_seats
from dicehall.server.domain.automatch.records import TICKETS
from dicehall.server.domain.dice.pool import DicePool
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.games import quotas
from dicehall.server.domain.games.pace import BadPace, Pace, parse_pace
from dicehall.server.domain.games.records import GameRecord, SeatInfo, entry_of, variant_title
from dicehall.server.domain.jobs import wake
from dicehall.server.domain.ratings import kinds

#: Waiting tickets one player may hold (one per game and options).
MOST_WAITING = 3
#: The latest ``bots_after`` (minutes): a day.
BOTS_AFTER_MAX = 1440
#: Matched tickets stay in the player's list this long.
SHOWN_MATCHED = timedelta(days=1)
#: The most tickets the list shows.
LIST_MAX = 20


@dataclass(frozen=True)
class Wish:
    """A ticket's request, checked: the game, its decoded options and their stored text,
    the table sizes, the pace, rated or not, and the minutes before bots (None: never)."""

    game: str
    options: Any
    options_text: str
    low: int
    high: int
    pace: Pace
    rated: bool
    bots_after: int | None


@dataclass
class Filed:
    """A ticket filed: as the API shows it, and the games it changed (a seat taken)."""

    ticket: dict[str, Any]
    changed: list[tuple[GameRecord, list[SeatInfo]]] = field(default_factory=list)


# -- checking ----------------------------------------------------------------------------------


def check(
    game: str,
    options: Mapping[str, object],
    seats: Sequence[int],
    pace: object,
    rated: bool,
    bots_after: int | None,
) -> Wish:
    """The request checked (422 with a code for each problem), nothing written."""
    entry = entry_of(game)
    try:
        decoded = entry.game.options(dict(options))
    except InvalidOptions as exc:
        raise Refused("invalid", "invalid_options", str(exc)) from exc
    text = codec.dumps(decoded)
    low, high = _seat_range(entry.name, text, seats)
    try:
        chosen = parse_pace("daily" if pace is None else pace)
    except BadPace as exc:
        raise Refused("invalid", "invalid_pace", str(exc)) from exc
    if chosen is None:
        raise Refused("invalid", "invalid_pace", "auto-match games need a clock (not 'none')")
    if rated and kinds.kind_of(entry.name, decoded) is None:
        raise Refused("invalid", "not_rateable", f"{entry.title} games are never rated")
    if bots_after is not None and (
        isinstance(bots_after, bool) or not 0 <= bots_after <= BOTS_AFTER_MAX
    ):
        raise Refused(
            "invalid",
            "invalid_bots_after",
            f"bots_after is minutes from 0 to {BOTS_AFTER_MAX}, or null for never",
        )
    return Wish(entry.name, decoded, text, low, high, chosen, bool(rated), bots_after)


def _seat_range(game: str, options_text: str, seats: Sequence[int]) -> tuple[int, int]:
    if len(seats) != 2 or any(isinstance(s, bool) or not isinstance(s, int) for s in seats):
        raise Refused("invalid", "invalid_seats", "seats is [smallest, largest] table size")
    low, high = seats
    allowed = seat_counts(game, options_text)
    if low < 2:
        raise Refused("invalid", "invalid_seats", "an auto-match table has 2 seats or more")
    if low > high:
        raise Refused("invalid", "invalid_seats", "the smallest table size is above the largest")
    if not allowed or not all(n in allowed for n in range(low, high + 1)):
        title = entry_of(game).title
        sizes = "no" if not allowed else f"{allowed[0]}"
        if len(allowed) > 1:
            sizes += f" to {allowed[-1]}"
        raise Refused(
            "invalid", "invalid_seats", f"{title} with these options takes {sizes} seats here"
        )
    return low, high


@lru_cache(maxsize=256)
def seat_counts(game: str, options_text: str) -> tuple[int, ...]:
    """The table sizes (2 or more) a game with these options can start with: its seat range,
    less what the options forbid (Bull's Eye takes two seats only with its house rule)."""
    entry = entry_of(game)
    options = codec.loads(options_text, entry.game.options_type)
    counts = []
    for seats in range(max(2, entry.game.min_seats), entry.game.max_seats + 1):
        try:
            entry.game.start(seats, options)
        except InvalidOptions:
            continue
        counts.append(seats)
    return tuple(counts)


# -- filing and cancelling --------------------------------------------------------------------


def file(
    conn: Connection,
    pool: DicePool,
    user: User,
    wish: Wish,
    at: datetime,
    limits: quotas.GameLimits | None = None,
) -> Filed:
    """File ``user``'s ticket for ``wish`` (see :func:`check`). Refused: 409
    ``already_waiting`` (a waiting ticket for this game), 429 ``too_many_tickets`` or the
    quota of games in progress. An open seat that fits is taken at once (the ticket comes
    back matched); else the matcher is told after the commit. Caller commits."""
    locks.lock_player(conn, user.id)
    waiting = conn.execute(
        select(TICKETS.c.game, TICKETS.c.options).where(
            TICKETS.c.user_pk == user.id, TICKETS.c.status == "waiting"
        )
    ).all()
    games = [(row.game, row.options) for row in waiting]
    if (wish.game, wish.options_text) in games:
        title = variant_title(wish.game, wish.options)
        raise Refused(
            "conflict",
            "already_waiting",
            f"you are waiting for a {title} table already; cancel that ticket first",
        )
    if len(games) >= MOST_WAITING:
        raise Refused(
            "too_many",
            "too_many_tickets",
            f"you are waiting for {MOST_WAITING} games already; cancel one first",
        )
    quotas.check_active_quota(conn, user.id, limits or quotas.GameLimits())
    ticket_id = conn.execute(
        insert(TICKETS)
        .values(
            user_pk=user.id,
            game=wish.game,
            options=wish.options_text,
            seats_min=wish.low,
            seats_max=wish.high,
            pace=wish.pace.dumps(),
            rated=wish.rated,
            bots_after=wish.bots_after,
            status="waiting",
            game_id=None,
            created_at=at,
            matched_at=None,
        )
        .returning(TICKETS.c.id)
    ).scalar_one()
    row = conn.execute(select(TICKETS).where(TICKETS.c.id == ticket_id)).one()
    seated = open_seats.fill(conn, pool, [row], {user.id: user.user_id}, at, limits)
    if not seated:
        wake(conn, "automatch")  # two players asking at once meet at once
    row = conn.execute(select(TICKETS).where(TICKETS.c.id == ticket_id)).one()
    return Filed(ticket_json(conn, row, at), [(s.record, s.seats) for s in seated])


def cancel(conn: Connection, user_pk: int, ticket_id: int, at: datetime) -> dict[str, Any]:
    """Cancel ``user_pk``'s waiting ticket (404 ``not_found`` when there is none of theirs,
    409 ``already_matched``); cancelling a cancelled ticket again changes nothing. The
    row lock makes a cancel wait for a matcher pass that holds the ticket. Caller commits."""
    row = conn.execute(
        select(TICKETS).where(TICKETS.c.id == ticket_id).with_for_update()
    ).one_or_none()
    if row is None or row.user_pk != user_pk:
        raise Refused("not_found", "not_found", f"you have no auto-match ticket {ticket_id}")
    if row.status == "matched":
        raise Refused(
            "conflict",
            "already_matched",
            f"this ticket found its table already: game {row.game_id}",
            game=row.game_id,
        )
    if row.status == "waiting":
        conn.execute(update(TICKETS).where(TICKETS.c.id == ticket_id).values(status="cancelled"))
        row = conn.execute(select(TICKETS).where(TICKETS.c.id == ticket_id)).one()
    return ticket_json(conn, row, at)


# -- reading ------------------------------------------------------------------------------------


def mine(
    conn: Connection,
    user_pk: int,
    at: datetime,
    waits: estimate.Waits | None = None,
) -> list[dict[str, Any]]:
    """``user_pk``'s waiting tickets and those matched in the last day, newest first."""
    rows = conn.execute(
        select(TICKETS)
        .where(
            TICKETS.c.user_pk == user_pk,
            (TICKETS.c.status == "waiting")
            | ((TICKETS.c.status == "matched") & (TICKETS.c.matched_at >= at - SHOWN_MATCHED)),
        )
        .order_by(TICKETS.c.id.desc())
        .limit(LIST_MAX)
    ).all()
    if waits is None:
        waits = estimate.typical_waits(conn, at)
    return [ticket_json(conn, row, at, waits) for row in rows]


def listing(conn: Connection, user_pk: int | None, at: datetime) -> dict[str, Any]:
    """My tickets (none for a visitor) and, per game, how many wait."""
    waits = estimate.typical_waits(conn, at)
    tickets = [] if user_pk is None else mine(conn, user_pk, at, waits)
    return {"tickets": tickets, "queues": estimate.queues(conn, at, waits)}


def ticket_json(
    conn: Connection, row: Any, at: datetime, waits: estimate.Waits | None = None
) -> dict[str, Any]:
    """A ticket as the API shows it."""
    created = aware(row.created_at)
    matched = None if row.matched_at is None else aware(row.matched_at)
    waited = (matched or at) - created
    pace = Pace.loads(row.pace)
    entry = entry_of(row.game)
    if waits is None:
        waits = estimate.typical_waits(conn, at) if row.status == "waiting" else estimate.Waits()
    options = codec.loads(row.options, entry.game.options_type)
    return {
        "id": row.id,
        "game": row.game,
        "title": variant_title(row.game, options),
        "options": codec.encode(options),
        "seats": [row.seats_min, row.seats_max],
        "pace": None if pace is None else pace.as_json(),
        "rated": bool(row.rated),
        "bots_after": row.bots_after,
        "status": row.status,
        "game_id": row.game_id,
        "created_at": created.isoformat(),
        "matched_at": None if matched is None else matched.isoformat(),
        "waited_s": max(0, int(waited.total_seconds())),
        "estimated_wait_s": estimate.for_ticket(row, waits, at)
        if row.status == "waiting"
        else None,
    }
