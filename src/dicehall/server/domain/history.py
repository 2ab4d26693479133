"""A player's games, newest first, a page at a time, and their wins, losses and draws.

Pages are cut by keyset, never by offset: a cursor names the last game a page examined,
and the next page starts strictly after it in an order that never changes. Finished games
are ordered by when they ended, then by id (several games may end in the same instant);
games in progress by id alone, since their other times move with every move. So a game
that finishes between two pages is never shown twice, and none already finished is
skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, Select, and_, exists, func, or_, select
from sqlalchemy.sql.elements import ColumnElement

from dicehall.server.core.clock import aware
from dicehall.server.domain import cursors
from dicehall.server.domain.account_checks import USER_ID_MAX, user_key
from dicehall.server.domain.errors import Kind, Refused
from dicehall.server.domain.games.reading import summaries
from dicehall.server.domain.games.records import GAMES, SEATS, USERS, entry_of
from dicehall.server.domain.games.seat_results import (
    NO_OUTCOME,
    SEAT_RECORDS,
    SEAT_RESULTS,
    outcome_of,
)

STATES = ("finished", "active")
RESULTS = ("win", "loss", "draw")
#: What ``kind=`` may ask for: only ladder games.
KINDS = ("ladder",)
#: A page's size by default, and the most one page may hold.
PAGE = 20
PAGE_MAX = 100

#: What a user id may look like (anything else names nobody, and never reaches the database).
_USER_ID = re.compile(rf"[A-Za-z0-9_-]{{1,{USER_ID_MAX}}}")

#: The history's player's seat: in a finished game (with its outcome), in any other.
_MINE = SEAT_RESULTS.alias("mine")
_SEAT = SEATS.alias("seat")


@dataclass(frozen=True)
class Player:
    """A user the history is about (or is filtered by)."""

    pk: int
    user_id: str
    display_name: str = ""


@dataclass(frozen=True)
class Cursor:
    """Where a page ends: the last examined game's end time (finished games) and id."""

    state: str
    id: int
    at: datetime | None = None

    def encode(self) -> str:
        """Opaque text for the ``cursor`` parameter."""
        raw: dict[str, Any] = {"s": self.state, "i": self.id}
        if self.at is not None:
            raw["t"] = self.at.isoformat()
        return cursors.encode(raw)

    @classmethod
    def decode(cls, text: str, state: str) -> Cursor:
        """The cursor a previous page of the same ``state`` gave (422 ``invalid_cursor``)."""
        try:
            raw = cursors.decode(text)
            game_id, kind = raw["i"], raw["s"]
            at = datetime.fromisoformat(raw["t"]).astimezone(UTC) if "t" in raw else None
            valid = isinstance(game_id, int) and not isinstance(game_id, bool) and game_id > 0
        except (ValueError, TypeError, KeyError):
            valid = False
        if not valid or kind != state or (state == "finished") != (at is not None):
            raise cursors.refused(
                "the cursor is not one this list gave (use `next` of the previous page, "
                "with the same state)"
            )
        return cls(state, game_id, at)


@dataclass(frozen=True)
class HistoryQuery:
    """What a history page asks for, checked (see :func:`history_query`)."""

    state: str = "finished"
    game: str | None = None
    result: str | None = None
    vs: Player | None = None
    cursor: Cursor | None = None
    limit: int = PAGE
    kind: str | None = None


def find_player(conn: Connection, user_id: str, code: str = "no_such_user") -> Player:
    """The user with this id (any case); 404 ``no_such_user`` (or 422 ``unknown_user`` for
    ``code="unknown_user"``, a filter naming nobody)."""
    row = None
    if _USER_ID.fullmatch(user_id):
        row = conn.execute(
            select(USERS.c.id, USERS.c.user_id, USERS.c.display_name).where(
                USERS.c.key == user_key(user_id)
            )
        ).first()
    if row is None:
        shown = user_id if len(user_id) <= USER_ID_MAX else user_id[:USER_ID_MAX] + "..."
        kind: Kind = "not_found" if code == "no_such_user" else "invalid"
        raise Refused(kind, code, f"there is no user {shown!r}")
    return Player(row.id, row.user_id, row.display_name)


def history_query(
    conn: Connection,
    *,
    state: str | None = None,
    game: str | None = None,
    result: str | None = None,
    vs: str | None = None,
    cursor: str | None = None,
    limit: int = PAGE,
    kind: str | None = None,
) -> HistoryQuery:
    """The parameters of a history page, checked; empty text means "any" (a GET form sends
    its empty fields). Each mistake is a 422 with its own code."""
    state = state or "finished"
    if state not in STATES:
        raise Refused("invalid", "invalid_state", "state must be 'finished' or 'active'")
    if game:
        entry_of(game)  # 422 unknown_game
    result = result or None
    if result is not None and result not in RESULTS:
        raise Refused("invalid", "invalid_result", "result must be 'win', 'loss' or 'draw'")
    if result is not None and state != "finished":
        raise Refused(
            "invalid", "invalid_result", "only finished games have a result (state=finished)"
        )
    if not 1 <= limit <= PAGE_MAX:
        raise Refused("invalid", "invalid_limit", f"limit must be 1 to {PAGE_MAX}")
    if kind and kind not in KINDS:
        raise Refused("invalid", "invalid_kind", "kind must be 'ladder' (ladder games only)")
    return HistoryQuery(
        state=state,
        game=game or None,
        result=result,
        vs=find_player(conn, vs, "unknown_user") if vs else None,
        cursor=Cursor.decode(cursor, state) if cursor else None,
        limit=limit,
        kind=kind or None,
    )


def result_for(winners: list[int] | None, seat: int) -> str | None:
    """The seat's result: ``win`` (the only winner), ``draw`` (a shared win), ``loss``
    (otherwise), or None for a game without a result."""
    return outcome_of(winners, seat)


def _games_of(player: Player, viewer_pk: int | None, query: HistoryQuery) -> Select[Any]:
    """The player's games in the query's state that the viewer may see, with the player's
    seat (and, for finished games, the seat's outcome and when the game ended), filtered as
    the query asks."""
    if query.state == "finished":
        return (
            select(
                GAMES,
                _MINE.c.seat.label("history_seat"),
                _MINE.c.outcome.label("history_outcome"),
                _MINE.c.ended_at.label("history_ended"),
            )
            .select_from(_MINE.join(GAMES, GAMES.c.id == _MINE.c.game_id))
            .where(*_finished(player, viewer_pk, query.vs, query.game, query.result, query.kind))
        )
    conditions = [GAMES.c.status == query.state]
    if query.game is not None:
        conditions.append(GAMES.c.kind == query.game)
    if query.kind == "ladder":
        conditions.append(GAMES.c.ladder.is_(True))
    conditions += _visible(player, viewer_pk, query.vs, GAMES.c.id, GAMES.c.private)
    return (
        select(GAMES, _SEAT.c.seat.label("history_seat"))
        .join(_SEAT, and_(_SEAT.c.game_id == GAMES.c.id, _SEAT.c.user_pk == player.pk))
        .where(*conditions)
    )


def _finished(
    player: Player,
    viewer_pk: int | None,
    vs: Player | None,
    game: str | None = None,
    result: str | None = None,
    kind: str | None = None,
) -> list[ColumnElement[bool]]:
    """The player's finished games as ``seat_results`` rows, filtered on its own columns:
    its indexes give them by player (then game or outcome) in the order they ended, so no
    page sorts the player's whole history."""
    conditions = [_MINE.c.user_pk == player.pk]
    if game is not None:
        conditions.append(_MINE.c.kind == game)
    if result is not None:
        conditions.append(_MINE.c.outcome == result)
    if kind == "ladder":
        conditions.append(_MINE.c.ladder.is_(True))
    return conditions + _visible(player, viewer_pk, vs, _MINE.c.game_id, _MINE.c.private)


def _visible(
    player: Player,
    viewer_pk: int | None,
    vs: Player | None,
    game_id: ColumnElement[int],
    private: ColumnElement[bool],
) -> list[ColumnElement[bool]]:
    conditions = []
    if vs is not None:
        conditions.append(_seated(vs.pk, game_id))
    if viewer_pk != player.pk:
        # A private game is listed only to its players.
        visible: ColumnElement[bool] = private.is_(False)
        if viewer_pk is not None:
            visible = or_(visible, _seated(viewer_pk, game_id))
        conditions.append(visible)
    return conditions


def _seated(user_pk: int, game_id: ColumnElement[int]) -> ColumnElement[bool]:
    return exists(select(SEATS.c.id).where(SEATS.c.game_id == game_id, SEATS.c.user_pk == user_pk))


def _after(query: Select[Any], cursor: Cursor | None) -> Select[Any]:
    if cursor is None:
        return query
    if cursor.at is None:
        return query.where(GAMES.c.id < cursor.id)
    ended, game_id = _MINE.c.ended_at, _MINE.c.game_id
    return query.where(or_(ended < cursor.at, and_(ended == cursor.at, game_id < cursor.id)))


def _ordered(query: Select[Any], state: str) -> Select[Any]:
    if state == "finished":
        return query.order_by(_MINE.c.ended_at.desc(), _MINE.c.game_id.desc())
    return query.order_by(GAMES.c.id.desc())


def _cursor_of(row: Any, state: str) -> Cursor:
    if state == "finished":
        return Cursor(state, row.id, aware(row.history_ended))
    return Cursor(state, row.id)


def page_statement(player: Player, viewer_pk: int | None, query: HistoryQuery) -> Select[Any]:
    """The statement that reads one history page (and one row more, to tell if there is a
    next page)."""
    base = _ordered(_games_of(player, viewer_pk, query), query.state)
    return _after(base, query.cursor).limit(query.limit + 1)


def history(
    conn: Connection, player: Player, query: HistoryQuery, viewer_pk: int | None
) -> dict[str, Any]:
    """One page of the player's games, newest first: ``{"games": [...], "next": cursor or
    None}``. Each game is a summary as the viewer sees it, with the player's ``result``
    and when it ended."""
    rows = conn.execute(page_statement(player, viewer_pk, query)).all()
    taken = rows[: query.limit]
    more = len(rows) > query.limit
    out = summaries(conn, taken, -1 if viewer_pk is None else viewer_pk)
    finished = query.state == "finished"
    for summary, row in zip(out, taken, strict=True):
        summary["result"] = row.history_outcome if finished else None
        summary["ended_at"] = None if row.ended_at is None else aware(row.ended_at).isoformat()
    cursor = _cursor_of(taken[-1], query.state).encode() if more else None
    return {"games": out, "next": cursor}


def record_statements(
    player: Player, viewer_pk: int | None, vs: Player | None
) -> list[Select[Any]]:
    """The statements whose rows (kind, outcome, n) add up to the player's record as the
    viewer may see it (against ``vs`` only, when given). Without ``vs`` the counts are read
    from ``seat_records``, whatever the history's size; a signed-in viewer who is someone
    else adds the player's private games they shared (few, through their own index)."""
    if vs is not None:
        return [
            select(_MINE.c.kind, _MINE.c.outcome, func.count().label("n"))
            .where(*_finished(player, viewer_pk, vs), _MINE.c.outcome.is_not(None))
            .group_by(_MINE.c.kind, _MINE.c.outcome)
        ]
    counted = select(
        SEAT_RECORDS.c.kind, SEAT_RECORDS.c.outcome, func.sum(SEAT_RECORDS.c.games).label("n")
    ).where(SEAT_RECORDS.c.user_pk == player.pk, SEAT_RECORDS.c.outcome != NO_OUTCOME)
    if viewer_pk == player.pk:
        return [counted.group_by(SEAT_RECORDS.c.kind, SEAT_RECORDS.c.outcome)]
    public = counted.where(SEAT_RECORDS.c.private.is_(False)).group_by(
        SEAT_RECORDS.c.kind, SEAT_RECORDS.c.outcome
    )
    if viewer_pk is None:
        return [public]
    shared = (
        select(_MINE.c.kind, _MINE.c.outcome, func.count().label("n"))
        .where(
            _MINE.c.user_pk == player.pk,
            _MINE.c.private.is_(True),
            _MINE.c.outcome.is_not(None),
            _seated(viewer_pk, _MINE.c.game_id),
        )
        .group_by(_MINE.c.kind, _MINE.c.outcome)
    )
    return [public, shared]


def record(
    conn: Connection, player: Player, viewer_pk: int | None, vs: Player | None = None
) -> dict[str, Any]:
    """The player's wins, losses and draws in the finished games the viewer may see, per
    game (against ``vs`` only, when given): ``{"games": {kind: {"win", "loss", "draw"}}}``.
    Counted by the database, never by reading the games."""
    counts: dict[str, dict[str, int]] = {}
    for statement in record_statements(player, viewer_pk, vs):
        for row in conn.execute(statement):
            counts.setdefault(row.kind, dict.fromkeys(RESULTS, 0))[row.outcome] += int(row.n)
    return {"games": {kind: counts[kind] for kind in sorted(counts)}}
