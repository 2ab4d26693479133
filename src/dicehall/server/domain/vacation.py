"""Vacation: each account's allowance of time that saves its seats from timeouts.

An account starts with 7 days, gains 2 days a month (30 days, accrued by the second), and
holds at most 30 days. When one of its seats would time out, an hour of allowance is spent
and every deadline of the account inside that hour moves to its end (floating vacation:
spent only when it saves a game). An announced absence (``away``) is paid for up front and
moves every deadline before its end to its end. Ending it early (coming back, or any move)
gives back the part from then to its end, whole, unless a game still waits on a deadline
the absence moved: then that part less an hour, which becomes a floating hour from then for
those games (see :mod:`~dicehall.server.domain.games.absence`, which moves them).

Only games that allow vacation at a pace of a day or more are saved
(:func:`~dicehall.server.domain.games.pace.vacation_saves`): the callers check that.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Connection, Table, select, update

from dicehall.server.core.clock import aware, now
from dicehall.server.core.models import User
from dicehall.server.domain.errors import Refused

DAY = 24 * 3600
SIGN_UP_ALLOWANCE = 7 * DAY
MONTHLY_ALLOWANCE = 2 * DAY
MOST_ALLOWANCE = 30 * DAY
MONTH = 30 * DAY
#: What one timeout saved by vacation costs, and how far it moves the deadline.
FLOATING_HOUR = 3600

USERS: Table = User.__table__  # type: ignore[assignment]


@dataclass(frozen=True, slots=True)
class Allowance:
    """An account's vacation as of ``at``: seconds left, and its windows."""

    seconds: float
    at: datetime
    until: datetime | None
    away_until: datetime | None

    def as_json(self) -> dict[str, Any]:
        """The allowance as the API shows it: seconds left, and the windows still ahead."""

        def ahead(end: datetime | None) -> str | None:
            return end.isoformat() if end is not None and end > self.at else None

        return {
            "allowance_seconds": float(self.seconds),
            "away_until": ahead(self.away_until),
            "vacation_until": ahead(self.until),
        }

    def covering(self, moment: datetime) -> datetime | None:
        """The end of a paid window (floating hour or announced absence) that ``moment``
        falls in, if any."""
        ends = [end for end in (self.until, self.away_until) if end is not None and moment < end]
        return max(ends) if ends else None


def accrued(seconds: float, since: datetime | None, at: datetime) -> float:
    """The allowance ``seconds`` held at ``since`` has grown to by ``at``."""
    if since is None or at <= since:
        return min(float(MOST_ALLOWANCE), seconds)
    gained = (at - since).total_seconds() / MONTH * MONTHLY_ALLOWANCE
    return min(float(MOST_ALLOWANCE), seconds + gained)


def allowance(conn: Connection, user_pk: int, at: datetime, *, lock: bool = False) -> Allowance:
    """An account's allowance now (its row locked for a write on PostgreSQL)."""
    query = select(
        USERS.c.vacation_seconds,
        USERS.c.vacation_accrued_at,
        USERS.c.vacation_until,
        USERS.c.away_until,
    ).where(USERS.c.id == user_pk)
    row = conn.execute(query.with_for_update() if lock else query).one()
    since = None if row.vacation_accrued_at is None else aware(row.vacation_accrued_at)
    return Allowance(
        accrued(row.vacation_seconds, since, at),
        at,
        None if row.vacation_until is None else aware(row.vacation_until),
        None if row.away_until is None else aware(row.away_until),
    )


def away_until(user: User, at: datetime) -> datetime | None:
    """The end of ``user``'s announced absence, if it still runs at ``at`` (shown to all)."""
    end = None if user.away_until is None else aware(user.away_until)
    return end if end is not None and end > at else None


def _store(conn: Connection, user_pk: int, allowance_: Allowance) -> None:
    conn.execute(
        update(USERS)
        .where(USERS.c.id == user_pk)
        .values(
            vacation_seconds=allowance_.seconds,
            vacation_accrued_at=allowance_.at,
            vacation_until=allowance_.until,
            away_until=allowance_.away_until,
        )
    )


@dataclass(frozen=True, slots=True)
class Saved:
    """A seat saved from a timeout: its new deadline, and what paid for it (``vacation``:
    a floating hour; ``away``: an announced absence)."""

    until: datetime
    by: str


def save_from_timeout(conn: Connection, user_pk: int, deadline: datetime) -> Saved | None:
    """The new deadline for a seat of ``user_pk`` whose time ran out at ``deadline``: the
    end of a window already paid for, or of a new floating hour (spent now); None when the
    allowance cannot pay for an hour."""
    held = allowance(conn, user_pk, now(), lock=True)
    covered = held.covering(deadline)
    if covered is not None:
        return Saved(covered, "away" if covered == held.away_until else "vacation")
    if held.seconds < FLOATING_HOUR:
        return None
    end = deadline + timedelta(seconds=FLOATING_HOUR)
    _store(
        conn,
        user_pk,
        Allowance(held.seconds - FLOATING_HOUR, held.at, end, held.away_until),
    )
    return Saved(end, "vacation")


def go_away(conn: Connection, user_pk: int, until: datetime, at: datetime) -> Allowance:
    """Announce an absence until ``until``, paid from the allowance now (a longer absence
    than the allowance is refused; announcing again replaces the last one, refunding it)."""
    if until.tzinfo is None:
        raise Refused(
            "invalid",
            "invalid_away",
            "give the end of the absence with its UTC offset, e.g. 2030-01-31T18:00:00Z",
        )
    if until <= at:
        raise Refused("invalid", "invalid_away", "an absence must end in the future")
    held = ended_away(conn, user_pk, at)
    wanted = (until - at).total_seconds()
    if wanted > held.seconds:
        days = held.seconds / DAY
        raise Refused(
            "invalid",
            "not_enough_vacation",
            f"you have {days:.1f} days of vacation left; that absence needs {wanted / DAY:.1f}",
        )
    new = Allowance(held.seconds - wanted, at, held.until, until.astimezone(UTC))
    _store(conn, user_pk, new)
    return new


def ended_away(conn: Connection, user_pk: int, at: datetime, *, holding: bool = False) -> Allowance:
    """End an announced absence at ``at``, giving back its part from ``at`` to its end (up to
    the 30-day ceiling). ``holding``: a game still waits on a deadline the absence moved, so
    an hour from ``at`` (or up to the absence's end, when sooner) is kept as a floating hour
    (``until``) and the rest given back; the caller moves those deadlines to its end."""
    held = allowance(conn, user_pk, at, lock=True)
    if held.away_until is None:
        return held
    # A floating hour's end equal to the absence's end is the mark of an older release
    # that kept a saving absence's whole time: it is no window of its own.
    until = None if held.until == held.away_until else held.until
    kept = at
    if holding and held.away_until > at:
        kept = min(held.away_until, at + timedelta(seconds=FLOATING_HOUR))
        until = kept if until is None else max(until, kept)
    unused = max(0.0, (held.away_until - kept).total_seconds())
    new = Allowance(min(float(MOST_ALLOWANCE), held.seconds + unused), at, until, None)
    _store(conn, user_pk, new)
    return new
