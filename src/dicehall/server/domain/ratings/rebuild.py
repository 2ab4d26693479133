"""Replaying every rated game from scratch: ``dicehall ratings rebuild``.

Every finished game with a rating kind is replayed with the model
(:func:`~dicehall.server.domain.ratings.model.rate`), each player starting from the defaults,
exactly as :func:`~dicehall.server.domain.ratings.store.rate_game` rated it: the same places
(:func:`~dicehall.server.domain.ratings.store.place_groups`), the same widening for the days
between games (:func:`~dicehall.server.domain.ratings.store.skill_at`), the same order of the
seats. So the replay must reproduce the stored ratings and rating changes to the last bit.

The order is the order the site rated the games: by the id of each game's first rating
change. Ids grow in the order transactions took the players' rating rows, so this is the
order each player's rating was really built in, even when two games of one player ended in
the same instant and the later one was rated first (an order by ``ended_at`` would then
replay them the other way round and differ). Finished rated games that have no stored
change (none, unless something went wrong) come after all the others, by ``ended_at`` and
id: ``--check`` names their missing changes, and a rewrite rates them last.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine, delete, func, insert, inspect, select, update

from dicehall.server.core.clock import aware
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.games.records import GAMES, SEATS, USERS, GameRecord, SeatInfo
from dicehall.server.domain.ratings import model
from dicehall.server.domain.ratings.store import CHANGES, RATINGS, place_groups, skill_at


@dataclass(frozen=True)
class RatingState:
    """A rating as stored: what :func:`skill_at` reads, and the games count."""

    mu: float
    sigma: float
    games: int
    last_game_at: datetime


@dataclass(frozen=True)
class ChangeState:
    """One rating change as stored."""

    kind: str
    place: int
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float
    at: datetime


@dataclass
class Replayed:
    """What replaying every rated game makes: ratings by (user, kind), changes by (game,
    user), and how many games were rated."""

    ratings: dict[tuple[int, str], RatingState] = field(default_factory=dict)
    changes: dict[tuple[int, int], ChangeState] = field(default_factory=dict)
    games: int = 0


@dataclass(frozen=True)
class Difference:
    """A stored rating or rating change that the replay does not make."""

    what: str  # "rating" or "change"
    user: str
    kind: str
    game: int | None
    problem: str

    def line(self) -> str:
        """One line for people."""
        where = f"game {self.game}, " if self.game is not None else ""
        return f"{where}{self.what} of {self.user} ({self.kind}): {self.problem}"

    def as_json(self) -> dict[str, Any]:
        """The difference as JSON."""
        return {
            "what": self.what,
            "user": self.user,
            "kind": self.kind,
            "game": self.game,
            "problem": self.problem,
        }


@dataclass(frozen=True)
class RebuildReport:
    """The replay's size, the differences from what is stored, and whether it was written."""

    games: int
    ratings: int
    changes: int
    differences: tuple[Difference, ...]
    written: bool

    @property
    def ok(self) -> bool:
        """What is stored now is what the replay makes."""
        return self.written or not self.differences

    def summary(self) -> str:
        """One line for people."""
        made = (
            f"{self.games} rated games replayed: {self.ratings} ratings, "
            f"{self.changes} rating changes"
        )
        if self.written:
            return f"{made}; {len(self.differences)} differences rewritten"
        if not self.differences:
            return f"{made}: every stored rating and change agrees"
        return f"{made}: {len(self.differences)} stored rows differ from the replay"

    def as_json(self) -> dict[str, Any]:
        """The report as JSON (``--json``)."""
        return {
            "ok": self.ok,
            "written": self.written,
            "games": self.games,
            "ratings": self.ratings,
            "changes": self.changes,
            "differences": [d.as_json() for d in self.differences],
        }


def require_tables(conn: Connection) -> None:
    """Refused unless the database has the games and the ratings tables."""
    names = set(inspect(conn).get_table_names())
    missing = [t.name for t in (GAMES, SEATS, RATINGS, CHANGES) if t.name not in names]
    if missing:
        raise Refused(
            "invalid",
            "no_ratings_tables",
            f"the database has no {', '.join(missing)} table: is it a dicehall database "
            "migrated by dicehall 0.5 or later (start `dicehall serve` once)?",
        )


@contextmanager
def snapshot(engine: Engine) -> Iterator[Connection]:
    """A connection whose reads all see one moment of the database (a check on a live site
    must not compare ratings with changes made after it read them)."""
    with engine.connect() as conn:
        if conn.dialect.name == "postgresql":
            conn = conn.execution_options(isolation_level="REPEATABLE READ")
            with conn.begin():
                yield conn
            return
        conn.exec_driver_sql("BEGIN")
        try:
            yield conn
        finally:
            conn.exec_driver_sql("ROLLBACK")


def _games_in_rating_order(conn: Connection) -> list[Any]:
    first = (
        select(CHANGES.c.game_id, func.min(CHANGES.c.id).label("first"))
        .group_by(CHANGES.c.game_id)
        .subquery()
    )
    return list(
        conn.execute(
            select(
                GAMES.c.id,
                GAMES.c.seats,
                GAMES.c.result,
                GAMES.c.rating_kind,
                GAMES.c.ended_at,
                GAMES.c.updated_at,
                first.c.first,
            )
            .outerjoin(first, first.c.game_id == GAMES.c.id)
            .where(GAMES.c.rating_kind.is_not(None), GAMES.c.status == "finished")
            .order_by(first.c.first.is_(None), first.c.first, GAMES.c.ended_at, GAMES.c.id)
        ).all()
    )


def _seats_by_game(conn: Connection) -> dict[int, list[SeatInfo]]:
    rows = conn.execute(
        select(
            SEATS.c.game_id,
            SEATS.c.seat,
            SEATS.c.user_pk,
            SEATS.c.bot,
            SEATS.c.status,
            SEATS.c.left_version,
        )
        .join(GAMES, GAMES.c.id == SEATS.c.game_id)
        .where(GAMES.c.rating_kind.is_not(None), GAMES.c.status == "finished")
        .order_by(SEATS.c.game_id, SEATS.c.seat)
    )
    found: dict[int, list[SeatInfo]] = {}
    for r in rows:
        found.setdefault(r.game_id, []).append(
            SeatInfo(r.seat, r.user_pk, None, r.bot, status=r.status, left_version=r.left_version)
        )
    return found


def replay(conn: Connection) -> Replayed:
    """Rate every rated finished game again, from scratch, in the order the site rated them."""
    out = Replayed()
    seats_of = _seats_by_game(conn)
    for game in _games_in_rating_order(conn):
        kind: str = game.rating_kind
        seats = seats_of.get(game.id, [])
        people = {s.seat: s.user_pk for s in seats if s.user_pk is not None}
        if len(people) != len(seats) or len(seats) < 2:
            continue  # as rate_game: only games where every seat is a person
        at = aware(game.ended_at or game.updated_at)
        record = GameRecord(
            id=game.id, kind=kind, options="{}", seats=game.seats, status="finished",
            version=0, snapshot=None, to_act=None, result=game.result, event_count=0,
            updated_at=at, rating_kind=kind,
        )  # fmt: skip
        places = model.places_of(place_groups(record, seats), len(seats))
        pks = [people[s.seat] for s in seats]
        states = [
            out.ratings.get((pk, kind)) or RatingState(model.MU, model.SIGMA, 0, at) for pk in pks
        ]
        before = [skill_at(state, at) for state in states]
        after = model.rate(kind, before, places)
        for pk, state, old, new, place in zip(pks, states, before, after, places, strict=True):
            out.ratings[(pk, kind)] = RatingState(new.mu, new.sigma, state.games + 1, at)
            out.changes[(game.id, pk)] = ChangeState(
                kind, place, old.mu, old.sigma, new.mu, new.sigma, at
            )
        out.games += 1
    return out


def _stored_ratings(conn: Connection) -> dict[tuple[int, str], RatingState]:
    return {
        (r.user_pk, r.kind): RatingState(r.mu, r.sigma, r.games, aware(r.last_game_at))
        for r in conn.execute(select(RATINGS))
    }


def _stored_changes(conn: Connection) -> dict[tuple[int, int], ChangeState]:
    return {
        (r.game_id, r.user_pk): ChangeState(
            r.kind, r.place, r.mu_before, r.sigma_before, r.mu_after, r.sigma_after, aware(r.at)
        )
        for r in conn.execute(select(CHANGES))
    }


def _shown(value: object) -> str:
    return value.isoformat() if isinstance(value, datetime) else repr(value)


def _words(state: RatingState | ChangeState) -> str:
    return ", ".join(f"{k} {_shown(v)}" for k, v in vars(state).items() if k != "kind")


def _differs(stored: Any, replayed: Any) -> str | None:
    if stored == replayed:
        return None
    if stored is None:
        return f"missing; the replay makes {_words(replayed)}"
    if replayed is None:
        return f"stored ({_words(stored)}), but no rated game makes it"
    mine, theirs = vars(stored), vars(replayed)
    return "; ".join(
        f"{k} stored {_shown(v)}, replayed {_shown(theirs[k])}"
        for k, v in mine.items()
        if v != theirs[k]
    )


def differences(conn: Connection, replayed: Replayed) -> list[Difference]:
    """Every stored rating and rating change that the replay does not make exactly (a rating
    row with no games, which only a failed attempt could leave, counts as no rating)."""
    ratings = {k: v for k, v in _stored_ratings(conn).items() if v.games > 0}
    changes = _stored_changes(conn)
    found: list[tuple[str, int, str, int | None, str]] = []
    for key in sorted(set(ratings) | set(replayed.ratings)):
        problem = _differs(ratings.get(key), replayed.ratings.get(key))
        if problem is not None:
            found.append(("rating", key[0], key[1], None, problem))
    for game_key in sorted(set(changes) | set(replayed.changes)):
        stored_change, replayed_change = changes.get(game_key), replayed.changes.get(game_key)
        problem = _differs(stored_change, replayed_change)
        if problem is not None:
            kind = (stored_change or replayed_change).kind  # type: ignore[union-attr]
            found.append(("change", game_key[1], kind, game_key[0], problem))
    pks = {pk for _, pk, _, _, _ in found}
    names = (
        dict(conn.execute(select(USERS.c.id, USERS.c.user_id).where(USERS.c.id.in_(pks))).all())
        if pks
        else {}
    )
    return [
        Difference(what, names.get(pk, f"user #{pk}"), kind, game, problem)
        for what, pk, kind, game, problem in found
    ]


def lock_for_rewrite(conn: Connection) -> None:
    """Keep every game end from rating while the rewrite runs (PostgreSQL; a SQLite writer
    holds the whole database already)."""
    if conn.dialect.name == "postgresql":
        conn.exec_driver_sql("LOCK TABLE ratings, rating_changes IN SHARE ROW EXCLUSIVE MODE")


def rewrite(conn: Connection, replayed: Replayed) -> None:
    """Make the stored ratings and rating changes exactly the replay's (caller commits, and
    has called :func:`lock_for_rewrite` before reading)."""
    ratings = _stored_ratings(conn)
    for (pk, kind), state in replayed.ratings.items():
        values = {
            "mu": state.mu,
            "sigma": state.sigma,
            "games": state.games,
            "last_game_at": state.last_game_at,
        }
        if (pk, kind) not in ratings:
            conn.execute(insert(RATINGS).values(user_pk=pk, kind=kind, **values))
        elif ratings[(pk, kind)] != state:
            conn.execute(
                update(RATINGS)
                .where(RATINGS.c.user_pk == pk, RATINGS.c.kind == kind)
                .values(**values)
            )
    for pk, kind in set(ratings) - set(replayed.ratings):
        conn.execute(delete(RATINGS).where(RATINGS.c.user_pk == pk, RATINGS.c.kind == kind))
    changes = _stored_changes(conn)
    for (game_id, pk), change in replayed.changes.items():
        values = {**vars(change)}
        if (game_id, pk) not in changes:
            conn.execute(insert(CHANGES).values(game_id=game_id, user_pk=pk, **values))
        elif changes[(game_id, pk)] != change:
            conn.execute(
                update(CHANGES)
                .where(CHANGES.c.game_id == game_id, CHANGES.c.user_pk == pk)
                .values(**values)
            )
    for game_id, pk in set(changes) - set(replayed.changes):
        conn.execute(delete(CHANGES).where(CHANGES.c.game_id == game_id, CHANGES.c.user_pk == pk))


def rebuild(conn: Connection, *, write: bool) -> RebuildReport:
    """Replay every rated game; with ``write``, make the stored rows the replay's (in the
    caller's transaction); the report names every difference found before writing."""
    require_tables(conn)
    if write:
        lock_for_rewrite(conn)
    replayed = replay(conn)
    found = differences(conn, replayed)
    if write and found:
        rewrite(conn, replayed)
    return RebuildReport(
        replayed.games,
        len(replayed.ratings),
        len(replayed.changes),
        tuple(found),
        written=write and bool(found),
    )
