"""Replaying stored games: does each game's event log rebuild exactly its stored snapshot?

Reads only. Each game is decoded afresh from its stored text (no cache), started from its
options and seat count as :mod:`~dicehall.server.domain.games.seating` starts it, and every
logged event applied through the game's checks; the result must equal the snapshot, and the
game's status, seat to act and result must agree with the replayed state.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import Connection, Table, inspect, select

from dicehall import games
from dicehall.engine import codec
from dicehall.engine.errors import InvalidInput
from dicehall.engine.events import apply_event, decode_event
from dicehall.engine.game import Finished, Game, ToAct
from dicehall.engine.jsondiff import first_difference
from dicehall.server.core.models import EventRow, GameRow
from dicehall.server.domain.games.ending import FORFEIT_REASONS

GAMES = cast(Table, GameRow.__table__)
EVENTS = cast(Table, EventRow.__table__)


class NotADicehallDatabase(InvalidInput):
    """The database has no games table (never served, or another program's database)."""


@dataclass(frozen=True)
class Discrepancy:
    """A game whose stored record does not agree with its replay."""

    game_id: int
    kind: str
    problem: str

    def as_json(self) -> dict[str, Any]:
        """The discrepancy as JSON."""
        return {"id": self.game_id, "kind": self.kind, "problem": self.problem}


@dataclass(frozen=True)
class IntegrityReport:
    """How many games were replayed, and those that disagree."""

    checked: int
    discrepancies: tuple[Discrepancy, ...]

    @property
    def ok(self) -> bool:
        """Every game replays to its snapshot."""
        return not self.discrepancies

    def summary(self) -> str:
        """One line for people."""
        if self.ok:
            return f"{self.checked} games checked: every game replays to its stored snapshot"
        return (
            f"{self.checked} games checked: {len(self.discrepancies)} do not agree "
            "with their event logs"
        )

    def as_json(self) -> dict[str, Any]:
        """The report as JSON (``dicehall check --json``)."""
        return {
            "ok": self.ok,
            "checked": self.checked,
            "discrepancies": [d.as_json() for d in self.discrepancies],
        }


def require_schema(conn: Connection) -> None:
    """Raise :class:`NotADicehallDatabase` unless the games and their logs are there."""
    names = set(inspect(conn).get_table_names())
    missing = [t.name for t in (GAMES, EVENTS) if t.name not in names]
    if missing:
        raise NotADicehallDatabase(
            f"the database has no {' or '.join(missing)} table: is it a dicehall database?"
        )


def game_ids(conn: Connection) -> list[int]:
    """Every stored game's id, in order."""
    return [int(i) for i in conn.execute(select(GAMES.c.id).order_by(GAMES.c.id)).scalars()]


def check_games(
    conn: Connection, ids: Iterable[int], on_checked: Callable[[], None] | None = None
) -> IntegrityReport:
    """Replay the games ``ids``; ``on_checked`` is called after each (a progress bar)."""
    found: list[Discrepancy] = []
    checked = 0
    for game_id in ids:
        discrepancy = check_game(conn, game_id)
        if discrepancy is not None:
            found.append(discrepancy)
        checked += 1
        if on_checked is not None:
            on_checked()
    return IntegrityReport(checked, tuple(found))


def check_all(conn: Connection) -> IntegrityReport:
    """Replay every stored game."""
    return check_games(conn, game_ids(conn))


_GAME = select(
    GAMES.c.id,
    GAMES.c.kind,
    GAMES.c.options,
    GAMES.c.seats,
    GAMES.c.status,
    GAMES.c.snapshot,
    GAMES.c.to_act,
    GAMES.c.result,
    GAMES.c.event_count,
)


def check_game(conn: Connection, game_id: int) -> Discrepancy | None:
    """The way game ``game_id`` disagrees with its replay, or None when it agrees (or is gone)."""
    row = conn.execute(_GAME.where(GAMES.c.id == game_id)).first()
    if row is None:
        return None
    # Events are only ever appended, so the first ``event_count`` are the ones the snapshot
    # was made from, even when a move lands between the two reads.
    events = conn.execute(
        select(EVENTS.c.seq, EVENTS.c.data)
        .where(EVENTS.c.game_id == game_id, EVENTS.c.seq < row.event_count)
        .order_by(EVENTS.c.seq)
    ).all()
    stored = _Stored(**row._asdict())
    problem = _problem(stored, [(int(e.seq), str(e.data)) for e in events])
    return None if problem is None else Discrepancy(row.id, row.kind, problem)


@dataclass(frozen=True)
class _Stored:
    id: int
    kind: str
    options: str
    seats: int
    status: str
    snapshot: str | None
    to_act: int | None
    result: str | None
    event_count: int


def _problem(row: _Stored, events: list[tuple[int, str]]) -> str | None:
    try:
        game: Game[Any, Any, Any, Any] = games.get(row.kind).game
    except InvalidInput:
        return f"unknown game kind {row.kind!r}"
    # Stored text can be damaged in any way, and a game's code may fail in any way on a
    # damaged value: every failure is a finding about this game, never the end of the check.
    try:
        options = codec.loads(row.options, game.options_type)
    except Exception as exc:
        return f"options do not decode: {_line(exc)}"
    if row.snapshot is None:
        if row.status not in ("waiting", "cancelled"):
            return f"no snapshot, though the game is {row.status!r}"
        if row.event_count:
            return f"waiting for players, yet it counts {row.event_count} events"
        return None
    if row.status == "waiting":
        return "waiting for players, yet it has a snapshot"
    for expected, (seq, _) in enumerate(events):
        if seq != expected:
            return f"event {expected} is missing from the log"
    if len(events) != row.event_count:
        return f"the game counts {row.event_count} events, the log holds {len(events)}"
    try:
        state = game.start(row.seats, options)
    except Exception as exc:
        return f"does not start with {row.seats} seats and its options: {_line(exc)}"
    for seq, data in events:
        try:
            decoded = decode_event(game, json.loads(data))
        except Exception as exc:
            return f"event {seq} does not decode: {_line(exc)}"
        try:
            state = apply_event(game, state, decoded)
        except Exception as exc:
            return f"event {seq} does not apply: {_line(exc)}"
    return _compare(game, row, row.snapshot, state)


def _compare(game: Game[Any, Any, Any, Any], row: _Stored, snapshot: str, state: Any) -> str | None:
    try:
        stored = codec.loads(snapshot, game.state_type)
    except Exception as exc:
        return f"snapshot does not decode: {_line(exc)}"
    if stored != state:
        where = first_difference(codec.encode(stored), codec.encode(state))
        return "snapshot differs from replay" + ("" if where is None else f" at {where}")
    turn = game.turn(state)
    status = "finished" if isinstance(turn, Finished) else "active"
    if status == "active" and row.status in ("aborted", "finished"):
        # The site ended a game its rules had not: aborted, or forfeited by a seat that
        # resigned or ran out of time (no event says so; the row does).
        return _ended_by_the_site(row)
    if row.status != status:
        return f"status is {row.status!r}, the replay is {status!r}"
    to_act = turn.seat if isinstance(turn, ToAct) else None
    if row.to_act != to_act:
        return f"to_act is {row.to_act}, the replay waits on {to_act}"
    result = codec.encode(turn.result) if isinstance(turn, Finished) else None
    try:
        stored_result = None if row.result is None else json.loads(row.result)
    except Exception as exc:
        return f"result does not decode: {_line(exc)}"
    if stored_result != result:
        return f"result differs from replay at {first_difference(stored_result, result)}"
    return None


def _ended_by_the_site(row: _Stored) -> str | None:
    """What is wrong with a game the site ended before its rules did: an aborted game has no
    result; a forfeit names the seat that left and why, and in a 2-seat game the other seat
    wins."""
    if row.to_act is not None:
        return f"the game is {row.status}, yet to_act is {row.to_act}"
    if row.status == "aborted":
        return None if row.result is None else "the game is aborted, yet it has a result"
    try:
        result: Any = None if row.result is None else json.loads(row.result)
    except Exception as exc:
        return f"result does not decode: {_line(exc)}"
    forfeit: Any = result.get("forfeit") if isinstance(result, dict) else None
    if not isinstance(forfeit, dict):
        return "the game is finished, the replay is 'active', and its result is no forfeit"
    seat, reason = forfeit.get("seat"), forfeit.get("reason")
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < row.seats:
        return f"a forfeit by no seat of the game: {seat!r}"
    if reason not in FORFEIT_REASONS:
        return f"a forfeit for an unknown reason: {reason!r}"
    if row.seats == 2 and result.get("winners") != [1 - seat]:
        return f"seat {seat} forfeited, yet the winners are {result.get('winners')!r}"
    return None


def _line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    text = lines[0] if lines else type(exc).__name__
    return text if len(text) <= 200 else text[:197] + "..."
