"""Ratings as people see them: each seat's rating on a game's board, and a user's ratings on
their profile.

A rating shows as :func:`~dicehall.server.domain.ratings.model.shown` (1500 + 40 per unit of
mu) with "provisional" while it has fewer than 10 games or its sigma, widened by the days
since its last rated game, is still large. A board reads everything it shows in one query:

- before and during a rated game, each seat's rating now and the model's chance that the
  seat finishes first (:func:`~dicehall.server.domain.ratings.model.win_chances`);
- once it is rated, each seat's rating after the game, its change, and the chances the
  ratings before the game gave.

"Hide my rating while I play" (the ``hide_rating_while_playing`` setting) leaves the
viewer's own rating, and the table's chances (which would give it away), off the board of a
game they sit in until that game is over; once it is over they see their new rating and its
change. Profiles, histories and leaderboards are pages one opens on purpose: they always
show it. Which kinds a profile lists is the owner's ``ratings_shown`` setting.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from functools import lru_cache
from typing import Any

from sqlalchemy import Connection, and_, bindparam, func, select

from dicehall.server.core.clock import now
from dicehall.server.domain.games.records import SEATS, USERS, GameRecord, SeatInfo
from dicehall.server.domain.people import settings
from dicehall.server.domain.ratings import kinds, model
from dicehall.server.domain.ratings.model import Skill
from dicehall.server.domain.ratings.store import CHANGES, RATINGS, skill_at

#: Chances are shown to this many decimals (of 1).
CHANCE_DIGITS = 4
_EARLIER = CHANGES.alias("earlier")


def _seat(
    seat: int,
    rating: int | None = None,
    provisional: bool | None = None,
    change: int | None = None,
    chance: float | None = None,
) -> dict[str, Any]:
    return {
        "seat": seat,
        "rating": rating,
        "provisional": provisional,
        "change": change,
        "chance": chance,
    }


def _chances(kind: str, skills: Sequence[Skill | None]) -> list[float | None]:
    if any(s is None for s in skills):
        return [None] * len(skills)
    known = [s for s in skills if s is not None]
    return [round(p, CHANCE_DIGITS) for p in model.win_chances(kind, known)]


def game_ratings(
    conn: Connection, record: GameRecord, seats: Sequence[SeatInfo], viewer_pk: int | None
) -> dict[str, Any] | None:
    """The ``ratings`` of a game's JSON as ``viewer_pk`` sees it: ``{"seats": [{seat,
    rating, provisional, change, chance}], "hidden": bool}``; None for an unrated game, or
    one that was called off or aborted (never rated)."""
    kind = record.rating_kind
    if kind is None or record.status not in ("waiting", "active", "finished"):
        return None
    if record.status == "finished":
        return _after(conn, kind, record, seats)
    return _before(conn, kind, record.id, seats, viewer_pk)


def _after(
    conn: Connection, kind: str, record: GameRecord, seats: Sequence[SeatInfo]
) -> dict[str, Any]:
    # How many rated games each player had after this one (for "provisional" then).
    games_then = (
        select(func.count())
        .where(
            _EARLIER.c.user_pk == CHANGES.c.user_pk,
            _EARLIER.c.kind == CHANGES.c.kind,
            _EARLIER.c.id <= CHANGES.c.id,
        )
        .scalar_subquery()
    )
    rows = {
        row.user_pk: row
        for row in conn.execute(
            select(
                CHANGES.c.user_pk,
                CHANGES.c.mu_before,
                CHANGES.c.sigma_before,
                CHANGES.c.mu_after,
                CHANGES.c.sigma_after,
                games_then.label("games"),
            ).where(CHANGES.c.game_id == record.id)
        )
    }
    found = [rows.get(s.user_pk) if s.user_pk is not None else None for s in seats]
    chances = _chances(
        kind, [None if r is None else Skill(r.mu_before, r.sigma_before) for r in found]
    )
    out = []
    for seat, row, chance in zip(seats, found, chances, strict=True):
        if row is None:
            out.append(_seat(seat.seat))
            continue
        before, after = Skill(row.mu_before, row.sigma_before), Skill(row.mu_after, row.sigma_after)
        rating = model.shown(after)
        out.append(
            _seat(
                seat.seat,
                rating,
                model.provisional(after, int(row.games), kind),
                rating - model.shown(before),
                chance,
            )
        )
    return {"seats": out, "hidden": False}


#: Each seated user's rating of a kind, and their settings, for a game's board: built once.
_SEATED_RATINGS = (
    select(
        USERS.c.id,
        USERS.c.settings,
        RATINGS.c.mu,
        RATINGS.c.sigma,
        RATINGS.c.games,
        RATINGS.c.last_game_at,
    )
    .select_from(
        SEATS.join(USERS, USERS.c.id == SEATS.c.user_pk).outerjoin(
            RATINGS,
            and_(RATINGS.c.user_pk == USERS.c.id, RATINGS.c.kind == bindparam("b_kind")),
        )
    )
    .where(SEATS.c.game_id == bindparam("b_game"))
)


@lru_cache(maxsize=4096)
def _hides_rating(settings_text: str | None) -> bool:
    # A board is read on every move: the stored settings' JSON is parsed once per text.
    return settings.parse(settings_text).hide_rating_while_playing


def _before(
    conn: Connection, kind: str, game_id: int, seats: Sequence[SeatInfo], viewer_pk: int | None
) -> dict[str, Any]:
    rows: dict[int, Any] = {}
    if any(s.user_pk is not None for s in seats):
        found = conn.execute(_SEATED_RATINGS, {"b_kind": kind, "b_game": game_id})
        rows = {row.id: row for row in found}
    at = now()
    skills: list[Skill | None] = []
    games: list[int] = []
    for seat in seats:
        row = rows.get(seat.user_pk) if seat.user_pk is not None else None
        if row is None:
            skills.append(None)
            games.append(0)
        elif row.mu is None:  # no rated game of this kind yet: the defaults
            skills.append(Skill())
            games.append(0)
        else:
            skills.append(skill_at(row, at))
            games.append(int(row.games))
    hidden = viewer_pk is not None and (
        viewer_pk in rows and _hides_rating(rows[viewer_pk].settings)
    )
    chances = [None] * len(seats) if hidden else _chances(kind, skills)
    out = []
    for seat, skill, played, chance in zip(seats, skills, games, chances, strict=True):
        if skill is None or (hidden and seat.user_pk == viewer_pk):
            out.append(_seat(seat.seat))
        else:
            out.append(
                _seat(
                    seat.seat,
                    model.shown(skill),
                    model.provisional(skill, played, kind),
                    None,
                    chance,
                )
            )
    return {"seats": out, "hidden": bool(hidden)}


def rating_of(row: Any, at: datetime, kind: str) -> dict[str, Any]:
    """A stored rating as profiles show it: ``{"rating", "provisional", "games"}``."""
    skill = skill_at(row, at)
    return {
        "rating": model.shown(skill),
        "provisional": model.provisional(skill, int(row.games), kind),
        "games": int(row.games),
    }


def profile_ratings(conn: Connection, user_pk: int) -> dict[str, dict[str, Any]]:
    """The ratings ``user_pk``'s profile shows, by kind in the site's order: those with a
    rated game, of the kinds their ``ratings_shown`` setting lists."""
    shown = set(settings.of(conn, user_pk).ratings_shown)
    rows = conn.execute(
        select(RATINGS).where(
            RATINGS.c.user_pk == user_pk, RATINGS.c.games > 0, RATINGS.c.kind.in_(shown)
        )
    ).all()
    at = now()
    by_kind = {row.kind: rating_of(row, at, row.kind) for row in rows}
    return {kind: by_kind[kind] for kind in kinds.names() if kind in by_kind}
