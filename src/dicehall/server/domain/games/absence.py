"""An announced absence where games are concerned: the allowance's side is
:mod:`~dicehall.server.domain.vacation`; this module moves the deadlines an absence had
moved to its end when it ends early or is replaced, so no game waits on time given back.

Coming back (``I am back``, or any move) gives back the absence's part from now to its end.
A game still waiting on a deadline the absence moved then gets an hour from now (the
absence's end, when sooner): a floating hour, kept from what is given back. Announcing a
new absence first gives the old one back whole; a game it held past the new end waits
until the new end instead.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from sqlalchemy import Connection, select, update

from dicehall.server.domain import notifications, vacation
from dicehall.server.domain.games import notice_texts
from dicehall.server.domain.games.pace import Clock
from dicehall.server.domain.games.records import GAMES, SEATS, GameRecord, fetch_game
from dicehall.server.domain.people.settings import of as settings_of
from dicehall.server.domain.people.settings import reminders_of

Held = tuple[GameRecord, Clock]


def come_back(
    conn: Connection, user_pk: int, at: datetime
) -> tuple[vacation.Allowance, list[GameRecord]]:
    """End ``user_pk``'s absence at ``at`` (nothing changes without one): its unused part
    is given back, less a floating hour when games still wait on deadlines it moved; those
    games, as they are now, are the second value. Caller commits."""
    held = _held(conn, user_pk, at)
    back = vacation.ended_away(conn, user_pk, at, holding=bool(held))
    if not held or back.until is None:
        return back, []
    until = back.until
    moved = [_move(conn, user_pk, game, until, "vacation") for game in held]
    _tell(conn, user_pk, moved, "You are back", until)
    return back, moved


def go_away(conn: Connection, user_pk: int, until: datetime, at: datetime) -> vacation.Allowance:
    """Announce an absence until ``until`` (see :func:`~dicehall.server.domain.vacation.
    go_away`), replacing any: a game the last one held past ``until`` waits until ``until``.
    Caller commits."""
    held = _held(conn, user_pk, at)
    new = vacation.go_away(conn, user_pk, until, at)
    end = new.away_until
    assert end is not None
    moved = [
        _move(conn, user_pk, (game, clock), end, "away")
        for game, clock in held
        if game.deadline is not None and game.deadline > end
    ]
    _tell(conn, user_pk, moved, "Your absence now ends sooner", end)
    return new


def _held(conn: Connection, user_pk: int, at: datetime) -> list[Held]:
    """The games (rows locked, in id order) waiting on ``user_pk`` at a deadline their
    running absence moved to its end."""
    away = vacation.allowance(conn, user_pk, at).away_until
    if away is None or away <= at:
        return []
    mine = conn.execute(
        select(GAMES.c.id, SEATS.c.seat)
        .join(SEATS, SEATS.c.game_id == GAMES.c.id)
        .where(SEATS.c.user_pk == user_pk, GAMES.c.status == "active", GAMES.c.deadline > at)
        .order_by(GAMES.c.id)
    ).all()
    held = []
    for game_id, seat in mine:
        game = fetch_game(conn, int(game_id), lock=True)
        if game.status != "active" or game.clock is None:
            continue
        clock = Clock.loads(game.clock)
        # ``saved`` tells; a game saved before the clock kept it has the absence's end.
        if clock.running == seat and (clock.saved == "away" or game.deadline == away):
            held.append((game, clock))
    return held


def _move(conn: Connection, user_pk: int, held: Held, until: datetime, by: str) -> GameRecord:
    game, clock = held
    moved = clock.extended_to(until, by)
    reminders = moved.reminders(reminders_of(conn, user_pk))
    conn.execute(
        update(GAMES)
        .where(GAMES.c.id == game.id)
        .values(
            clock=moved.dumps(),
            deadline=until,
            remind_at=reminders[0] if reminders else None,
        )
    )
    return replace(game, clock=moved.dumps(), deadline=until)


def _tell(
    conn: Connection, user_pk: int, games: list[GameRecord], why: str, until: datetime
) -> None:
    if not games:
        return
    zone = settings_of(conn, user_pk).time_zone
    when = notice_texts.exact_time(until, zone)
    notifications.add_many(
        conn,
        [
            (
                user_pk,
                game.id,
                f"{why}: your deadline in {notice_texts.game_title(game.kind, game.options)} (game "
                f"{game.id}) is now {when}.",
            )
            for game in games
        ],
        "vacation",
        playing=True,  # each game waits on their seat
    )
