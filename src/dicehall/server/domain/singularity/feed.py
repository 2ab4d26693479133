"""Reading Singularity's moments for one viewer: the latest shown, newest first, each with
the name of the player it is about.

Only cheap indexed reads: the latest rows of the shown moments (``ix_highlights_shown``),
then the seats of their games and the tournaments' winners. A moment is left out when its
game is private (none is written, but a game's flag is checked again), when anyone seated in
its game, or its tournament winner, hides from Who is here (the ``show_presence`` setting),
and when any of them is across an ignore with the viewer.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Connection, Row, Table, select

from dicehall.server.core.clock import aware
from dicehall.server.core.models import User
from dicehall.server.domain.games.records import (
    GAMES,
    SEAT_COLUMNS,
    SEATS,
    SeatInfo,
    seat_of,
    seats_json,
)
from dicehall.server.domain.people.here import shows_presence
from dicehall.server.domain.people.relations import others_across_an_ignore
from dicehall.server.domain.singularity.moments import HIGHLIGHTS

USERS = cast(Table, User.__table__)

#: Moments a page shows, and the most one request may ask for.
SHOWN = 20
MOST = 50
#: Rows read at a time, and how many times, while moments are left out.
BATCH = 60
BATCHES = 4


@dataclass(frozen=True)
class Player:
    """Whom a moment is about: a member (``user_id``) or a bot (None)."""

    name: str
    user_id: str | None


@dataclass(frozen=True)
class Moment:
    """One moment as the viewer may see it."""

    id: int
    #: The game's kind of highlight (boatzee, pot, bullseye, turn, flush), record, or
    #: tournament.
    what: str
    player: Player
    #: What the player did, in words that follow their name.
    text: str
    #: The game's name as its options make it, or the tournament's name.
    title: str
    game: int | None
    tournament: int | None
    value: int
    at: datetime

    @property
    def sentence(self) -> str:
        """The moment in one sentence, without its game or tournament."""
        return f"{self.player.name} {self.text}"

    def as_json(self) -> dict[str, Any]:
        """The moment as the API sends it."""
        return {
            "id": self.id,
            "what": self.what,
            "player": {"name": self.player.name, "user_id": self.player.user_id},
            "text": self.text,
            "sentence": self.sentence,
            "title": self.title,
            "game": self.game,
            "tournament": self.tournament,
            "value": self.value,
            "at": self.at.isoformat(),
        }


def latest(conn: Connection, viewer_pk: int | None, limit: int = SHOWN) -> list[Moment]:
    """The latest moments ``viewer_pk`` (None: a visitor) may see, newest first."""
    apart = others_across_an_ignore(conn, viewer_pk) if viewer_pk is not None else set()
    found: list[Moment] = []
    before: int | None = None
    for _ in range(BATCHES):
        query = select(HIGHLIGHTS).where(HIGHLIGHTS.c.shown.is_(True))
        if before is not None:
            query = query.where(HIGHLIGHTS.c.id < before)
        rows = conn.execute(query.order_by(HIGHLIGHTS.c.id.desc()).limit(BATCH)).all()
        found.extend(_shown(conn, rows, apart))
        if len(found) >= limit or len(rows) < BATCH:
            break
        before = int(rows[-1].id)
    return found[:limit]


def _shown(conn: Connection, rows: Sequence[Row[Any]], apart: Collection[int]) -> list[Moment]:
    """Those of ``rows`` that may be shown, with their players named."""
    game_ids = {int(r.game_id) for r in rows if r.game_id is not None}
    public = set(
        conn.scalars(select(GAMES.c.id).where(GAMES.c.id.in_(game_ids), GAMES.c.private.is_(False)))
    )
    seats: dict[int, list[SeatInfo]] = {}
    for seat_row in conn.execute(
        select(SEATS.c.game_id, *SEAT_COLUMNS)
        .select_from(SEATS.outerjoin(USERS, USERS.c.id == SEATS.c.user_pk))
        .where(SEATS.c.game_id.in_(public))
        .order_by(SEATS.c.game_id, SEATS.c.seat)
    ):
        seats.setdefault(int(seat_row.game_id), []).append(seat_of(seat_row))
    winners = {
        int(u.id): u
        for u in conn.execute(
            select(USERS.c.id, USERS.c.user_id, USERS.c.settings).where(
                USERS.c.id.in_({int(r.user_pk) for r in rows if r.user_pk is not None})
            )
        )
    }
    shown: list[Moment] = []
    for row in rows:
        player: Player | None = None
        if row.game_id is not None and int(row.game_id) in public:
            player = _seated(seats.get(int(row.game_id), []), row.seat, apart)
        elif row.user_pk is not None and int(row.user_pk) in winners:
            winner = winners[int(row.user_pk)]
            if shows_presence(winner.settings) and winner.id not in apart:
                player = Player(str(winner.user_id), str(winner.user_id))
        if player is not None:
            shown.append(_moment(row, player))
    return shown


def _seated(seats: Sequence[SeatInfo], seat: int | None, apart: Collection[int]) -> Player | None:
    """The player of ``seat``, unless someone at the table hides or is across an ignore."""
    people = [s for s in seats if s.user_pk is not None]
    if any(s.user_pk in apart or not shows_presence(s.settings) for s in people):
        return None
    if seat is None or not 0 <= seat < len(seats):
        return None
    return Player(str(seats_json(seats)[seat]["name"]), seats[seat].user_id)


def _moment(row: Row[Any], player: Player) -> Moment:
    return Moment(
        int(row.id),
        str(row.what),
        player,
        str(row.text),
        str(row.title),
        None if row.game_id is None else int(row.game_id),
        None if row.tournament_id is None else int(row.tournament_id),
        int(row.value),
        aware(row.at),
    )
