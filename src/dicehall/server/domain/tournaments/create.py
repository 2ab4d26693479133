"""Creating a tournament: every field checked, then one row (the creator does not join by
creating; they join like anyone).

A tournament starts when it is full (``size`` players, no ``starts_at``) or at
``starts_at`` with whoever joined (a cup needs exactly its size). A cup's size and table
must have an exact round-robin schedule (:func:`cup.cup_problem`); a Swiss has 1 to
:data:`MOST_ROUNDS` rounds; a knockout plays until one player is left. Anyone signed in
may keep up to :data:`MOST_OPEN_CREATED` of their tournaments open at once.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, func, insert, select

from dicehall import games
from dicehall.engine import codec
from dicehall.engine.errors import DicehallError
from dicehall.server.core.clock import aware
from dicehall.server.core.models import User
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.moderation.standing import may_write
from dicehall.server.domain.tournaments import cup, paces
from dicehall.server.domain.tournaments.rows import TOURNAMENTS, allowed_tables, lock_player

FORMATS = ("cup", "swiss", "knockout")
NAME_MAX = 80
#: Tournaments one user may have created and still open (not started) at once.
MOST_OPEN_CREATED = 5
#: The most players of a cup, and of a Swiss or a knockout; the most rounds of a Swiss.
MOST_CUP = 32
MOST_PLAYERS = 256
MOST_ROUNDS = 20
#: How far ahead a start time may lie.
FURTHEST_START = timedelta(days=60)
#: The fields of a tournament's specification (the API's body).
FIELDS = frozenset(
    {
        "name",
        "game",
        "options",
        "format",
        "size",
        "rounds",
        "table",
        "pace",
        "rated",
        "starts_at",
        "buddies_only",
    }
)


def _invalid(code: str, message: str) -> Refused:
    return Refused("invalid", code, message)


def _name(raw: object) -> str:
    if not isinstance(raw, str):
        raise _invalid("invalid_name", "a tournament needs a name")
    name = " ".join(raw.split())
    if not 1 <= len(name) <= NAME_MAX:
        raise _invalid("invalid_name", f"a tournament's name is 1 to {NAME_MAX} characters")
    if any(unicodedata.category(c).startswith("C") for c in name):
        raise _invalid("invalid_name", "a tournament's name may not hold control characters")
    return name


def _whole(spec: Mapping[str, object], key: str, low: int, high: int) -> int | None:
    value = spec.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise _invalid(f"invalid_{key}", f"{key} must be a whole number from {low} to {high}")
    return value


def _flag(spec: Mapping[str, object], key: str, default: bool) -> bool:
    value = spec.get(key, default)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise _invalid("invalid_request", f"{key} must be true or false")
    return value


def _start(raw: object, at: datetime) -> datetime | None:
    if raw is None or raw == "":
        return None
    if isinstance(raw, str):
        try:
            moment = datetime.fromisoformat(raw.strip())
        except ValueError as exc:
            raise _invalid("invalid_start", "starts_at is a date and time in ISO 8601") from exc
    elif isinstance(raw, datetime):
        moment = raw
    else:
        raise _invalid("invalid_start", "starts_at is a date and time in ISO 8601, or null")
    moment = aware(moment)
    if moment <= at:
        raise _invalid("invalid_start", "starts_at must lie in the future")
    if moment > at + FURTHEST_START:
        raise _invalid("invalid_start", "starts_at may lie at most 60 days ahead")
    return moment


def _game(spec: Mapping[str, object]) -> tuple[str, Any]:
    raw_game = spec.get("game")
    if not isinstance(raw_game, str):
        raise _invalid("unknown_game", "name the game the tournament plays")
    try:
        entry = games.get(raw_game)
    except DicehallError as exc:
        raise _invalid("unknown_game", str(exc)) from exc
    raw_options = spec.get("options") or {}
    if not isinstance(raw_options, Mapping):
        raise _invalid("invalid_options", "options are an object of option names and values")
    try:
        options = entry.game.options(dict(raw_options))
    except (DicehallError, ValueError, TypeError) as exc:
        raise _invalid("invalid_options", str(exc)) from exc
    return entry.name, options


def least_players(form: str, table: int, smallest: int, size: int | None) -> int:
    """How many players a tournament needs to start."""
    if form == "cup" and size is not None:
        return size
    return max(2, min(table, smallest))


def validate(spec: Mapping[str, object], at: datetime) -> dict[str, Any]:
    """A tournament's columns from its specification (see :data:`FIELDS`); 422 with a
    sentence for the first thing wrong."""
    unknown = sorted(set(spec) - FIELDS)
    if unknown:
        raise _invalid("invalid_request", f"unknown field {unknown[0][:30]!r}")
    name = _name(spec.get("name"))
    game, options = _game(spec)
    form = spec.get("format")
    if form not in FORMATS:
        raise _invalid("invalid_format", "format is one of cup, swiss or knockout")
    allowed = allowed_tables(game, options)
    if not allowed:
        raise _invalid("invalid_options", "no table size can play these options")
    default_table = 2 if 2 in allowed else min(allowed)
    table = _whole(spec, "table", 1, 8) or default_table
    if table not in allowed:
        shown = ", ".join(str(n) for n in allowed)
        raise _invalid("invalid_table", f"this game is played at tables of {shown}, not {table}")
    size = _whole(spec, "size", 2, MOST_CUP if form == "cup" else MOST_PLAYERS)
    rounds = _whole(spec, "rounds", 1, MOST_ROUNDS)
    starts_at = _start(spec.get("starts_at"), at)
    if form == "cup":
        if size is None:
            raise _invalid("invalid_size", "a cup needs its size (how many players)")
        problem = cup.cup_problem(size, table)
        if problem is not None:
            raise _invalid("invalid_size", problem)
    if form == "swiss" and rounds is None:
        raise _invalid("invalid_rounds", f"a Swiss needs its number of rounds (1 to {MOST_ROUNDS})")
    if form != "swiss" and rounds is not None:
        raise _invalid("invalid_rounds", "only a Swiss takes a number of rounds")
    if starts_at is None and size is None:
        raise _invalid(
            "invalid_size", "a tournament without a start time starts when full, so it needs a size"
        )
    least = least_players(form, table, min(allowed), size)
    if size is not None and size < least:
        raise _invalid("invalid_size", f"this tournament needs at least {least} players")
    pace_text, bank = paces.parse(spec.get("pace", "live"))
    return {
        "name": name,
        "game": game,
        "options": codec.dumps(options),
        "format": form,
        "table_seats": table,
        "size": size,
        "rounds": rounds,
        "pace": pace_text,
        "bank": bank,
        "rated": _flag(spec, "rated", True),
        "starts_at": starts_at,
        "buddies_only": _flag(spec, "buddies_only", False),
    }


def open_created(conn: Connection, user_pk: int) -> int:
    """How many tournaments ``user_pk`` created that have not started yet."""
    return int(
        conn.execute(
            select(func.count()).where(
                TOURNAMENTS.c.created_by == user_pk, TOURNAMENTS.c.status == "open"
            )
        ).scalar_one()
    )


def row_values(values: Mapping[str, Any], at: datetime) -> dict[str, Any]:
    """A new tournament's row: ``values`` (from :func:`validate`), open, at round 0."""
    return {
        **values,
        "status": "open",
        "round": 0,
        "round_deadline": None,
        "created_at": at,
        "version": 0,
    }


def create(conn: Connection, user: User, spec: Mapping[str, object], at: datetime) -> int:
    """Create the tournament ``spec`` describes (the API's body), open to join; its id.
    422 for anything wrong (nothing is written); 429 ``too_many_tournaments`` when
    ``user`` has :data:`MOST_OPEN_CREATED` open already; 403 ``muted`` (its name is read
    by others). Caller commits."""
    values = validate(spec, at)
    may_write(conn, user.id, at)
    lock_player(conn, user.id)
    if open_created(conn, user.id) >= MOST_OPEN_CREATED:
        raise Refused(
            "too_many",
            "too_many_tournaments",
            f"you have {MOST_OPEN_CREATED} tournaments open to join already; wait until one starts",
        )
    row = row_values({**values, "created_by": user.id, "schedule_key": None}, at)
    new_id = conn.execute(insert(TOURNAMENTS).values(**row).returning(TOURNAMENTS.c.id))
    return int(new_id.scalar_one())
