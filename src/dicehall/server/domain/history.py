"""A player's games, newest first, a page at a time, and their wins, losses and draws.

Pages are cut by keyset, never by offset: a cursor names the last game a page examined,
and the next page starts strictly after it in an order that never changes. Finished games
are ordered by when they ended, then by id (several games may end in the same instant);
games in progress by id alone, since their other times move with every move. So a game
that finishes between two pages is never shown twice, and none already finished is
skipped.
"""

from __future__ import annotations

import json
import re
from collections import Counter
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

STATES = ("finished", "active")
RESULTS = ("win", "loss", "draw")
#: What ``kind=`` may ask for: only ladder games.
KINDS = ("ladder",)
#: A page's size by default, and the most one page may hold.
PAGE = 20
PAGE_MAX = 100
#: With ``result=``, games are filtered after reading: a page reads at most this many rows
#: (so a rare result cannot make one request read a whole history); its ``next`` goes on
#: from the last row read, so a page may hold fewer games than asked and still have a next.
SCAN_MAX = 1000

#: What a user id may look like (anything else names nobody, and never reaches the database).
_USER_ID = re.compile(rf"[A-Za-z0-9_-]{{1,{USER_ID_MAX}}}")

#: The seat the history's player sat in.
_MINE = SEATS.alias("mine")
#: Finished games in the order they ended (``updated_at`` for a row from before the clocks).
_ENDED = func.coalesce(GAMES.c.ended_at, GAMES.c.updated_at)


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
    if winners is None:
        return None
    if seat in winners:
        return "win" if len(winners) == 1 else "draw"
    return "loss"


def _winners(result: str | None) -> list[int] | None:
    if result is None:
        return None
    winners: list[int] = json.loads(result).get("winners", [])
    return winners


def _games_of(
    player: Player,
    state: str,
    viewer_pk: int | None,
    game: str | None,
    vs: Player | None,
    kind: str | None = None,
) -> Select[Any]:
    """The player's games in ``state`` that the viewer may see, with the player's seat."""
    query = (
        select(GAMES, _MINE.c.seat.label("history_seat"))
        .join(_MINE, and_(_MINE.c.game_id == GAMES.c.id, _MINE.c.user_pk == player.pk))
        .where(GAMES.c.status == state)
    )
    if game is not None:
        query = query.where(GAMES.c.kind == game)
    if vs is not None:
        query = query.where(_seated(vs.pk))
    if kind == "ladder":
        query = query.where(GAMES.c.ladder.is_(True))
    if viewer_pk != player.pk:
        # A private game is listed only to its players.
        visible: ColumnElement[bool] = GAMES.c.private.is_(False)
        if viewer_pk is not None:
            visible = or_(visible, _seated(viewer_pk))
        query = query.where(visible)
    return query


def _seated(user_pk: int) -> ColumnElement[bool]:
    return exists(
        select(SEATS.c.id).where(SEATS.c.game_id == GAMES.c.id, SEATS.c.user_pk == user_pk)
    )


def _after(query: Select[Any], cursor: Cursor | None) -> Select[Any]:
    if cursor is None:
        return query
    if cursor.at is None:
        return query.where(GAMES.c.id < cursor.id)
    ended = _ENDED
    return query.where(or_(ended < cursor.at, and_(ended == cursor.at, GAMES.c.id < cursor.id)))


def _ordered(query: Select[Any], state: str) -> Select[Any]:
    if state == "finished":
        return query.order_by(_ENDED.desc(), GAMES.c.id.desc())
    return query.order_by(GAMES.c.id.desc())


def _cursor_of(row: Any, state: str) -> Cursor:
    if state == "finished":
        ended = row.ended_at if row.ended_at is not None else row.updated_at
        return Cursor(state, row.id, aware(ended))
    return Cursor(state, row.id)


def history(
    conn: Connection, player: Player, query: HistoryQuery, viewer_pk: int | None
) -> dict[str, Any]:
    """One page of the player's games, newest first: ``{"games": [...], "next": cursor or
    None}``. Each game is a summary as the viewer sees it, with the player's ``result``
    and when it ended."""
    games = _games_of(player, query.state, viewer_pk, query.game, query.vs, query.kind)
    base = _ordered(games, query.state)
    batch = query.limit + 1 if query.result is None else min(max(query.limit + 1, 100), SCAN_MAX)
    taken: list[Any] = []
    cursor = query.cursor
    scanned = 0
    more = False
    while not more:
        rows = conn.execute(_after(base, cursor).limit(batch)).all()
        for row in rows:
            if query.result is None or (
                result_for(_winners(row.result), row.history_seat) == query.result
            ):
                if len(taken) == query.limit:
                    more = True  # one more game to show: the next page starts before it
                    break
                taken.append(row)
            cursor = _cursor_of(row, query.state)
            scanned += 1
        if len(rows) < batch and not more:
            break
        if scanned >= SCAN_MAX:
            more = True
    out = summaries(conn, taken, -1 if viewer_pk is None else viewer_pk)
    for summary, row in zip(out, taken, strict=True):
        summary["result"] = result_for(_winners(row.result), row.history_seat)
        summary["ended_at"] = None if row.ended_at is None else aware(row.ended_at).isoformat()
    return {"games": out, "next": cursor.encode() if more and cursor is not None else None}


def record(
    conn: Connection, player: Player, viewer_pk: int | None, vs: Player | None = None
) -> dict[str, Any]:
    """The player's wins, losses and draws in the finished games the viewer may see, per
    game (against ``vs`` only, when given): ``{"games": {kind: {"win", "loss", "draw"}}}``."""
    games = _games_of(player, "finished", viewer_pk, None, vs).subquery()
    rows = conn.execute(select(games.c.kind, games.c.result, games.c.history_seat))
    counts: dict[str, Counter[str]] = {}
    for row in rows:
        outcome = result_for(_winners(row.result), row.history_seat)
        if outcome is not None:
            counts.setdefault(row.kind, Counter())[outcome] += 1
    return {
        "games": {
            kind: {outcome: counts[kind][outcome] for outcome in RESULTS} for kind in sorted(counts)
        }
    }
