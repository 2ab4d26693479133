"""A property of one ladder under random sequences of joins, leaves, results (wins from below
and from above) and inactivity drops, checked against a model (a list, top first): the
positions always form a permutation 1..N; each step records exactly the moves the model
expects (a win from below moves the winner up to the loser's place and exactly those
between down one; a win from above moves nothing), and nobody else moves. The steps go
through the domain's own functions: join and leave, the ladder step of a finished game
(on a real ladder game whose loser resigns) and the inactivity job."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from sqlalchemy import Connection, delete, select, update

from dicehall.server.core.clock import now
from dicehall.server.core.models import User
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.games import ending, quotas
from dicehall.server.domain.games.records import fetch_game
from dicehall.server.domain.ratings import ladder_challenges, ladder_inactivity, ladders
from dicehall.server.domain.ratings.ladder_moves import CHALLENGES, MOVES, POSITIONS
from dicehall.server.domain.services import Services
from dicehall.server.domain.work import write
from tests.live import add_user

KIND = "boss"
PEOPLE = 7
#: Far enough ahead that nobody is idle unless a step makes them so.
FOREVER = timedelta(days=36500)

Step = tuple[str, int, int]
#: A step names a player by index: into all players for a join, else into the ladder as it
#: stands (so results and drops happen between players on it; a leave may name anyone).
steps = st.lists(
    st.tuples(
        st.sampled_from(["join", "leave", "win", "win", "win", "win", "drop", "drop"]),
        st.integers(0, 99),
        st.integers(0, 99),
    ),
    min_size=4,
    max_size=16,
)
starts = st.permutations(range(PEOPLE)).flatmap(
    lambda order: st.integers(2, PEOPLE).map(lambda n: order[:n])
)

Moved = tuple[int, int | None, int | None]


class Model:
    """The ladder as a list of user pks, top first, and the moves each step makes."""

    def __init__(self) -> None:
        self.order: list[int] = []

    def join(self, user: int) -> list[Moved] | None:
        if user in self.order:
            return None
        self.order.append(user)
        return [(user, None, len(self.order))]

    def leave(self, user: int) -> list[Moved] | None:
        if user not in self.order:
            return None
        at = self.order.index(user)
        below = self.order[at + 1 :]
        self.order.remove(user)
        return [(user, at + 1, None)] + [(v, at + 2 + i, at + 1 + i) for i, v in enumerate(below)]

    def win(self, winner: int, loser: int) -> list[Moved]:
        high, low = self.order.index(loser) + 1, self.order.index(winner) + 1
        if low < high:
            return []  # a win from above
        between = self.order[high - 1 : low - 1]
        self.order.remove(winner)
        self.order.insert(high - 1, winner)
        moved: list[Moved] = [(winner, low, high)]
        return moved + [(v, high + i, high + i + 1) for i, v in enumerate(between)]

    def drop(self, user: int) -> list[Moved]:
        at = self.order.index(user) + 1
        target = min(at + ladder_inactivity.DROP_PLACES, len(self.order))
        passed = self.order[at:target]
        self.order.remove(user)
        self.order.insert(target - 1, user)
        moved: list[Moved] = [(user, at, target)]
        return moved + [(v, at + 1 + i, at + i) for i, v in enumerate(passed)]


@pytest.fixture
def players(services: Services, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[User]]:
    # Every example's games are created within a minute by the same few players.
    monkeypatch.setattr(quotas, "CREATES_PER_MINUTE", 10_000)
    for n in range(PEOPLE):
        add_user(services, f"lp{n}")
    with services.sessions() as db:
        users = list(db.scalars(select(User).order_by(User.id)))
        db.expunge_all()
    yield users


def _write(services: Services, work: Callable[[Connection], Any]) -> Any:
    with services.write_conn() as conn:
        return work(conn)


def _state(services: Services) -> tuple[list[int], int]:
    with services.read_conn() as conn:
        rows = conn.execute(
            select(POSITIONS.c.user_pk, POSITIONS.c.position)
            .where(POSITIONS.c.kind == KIND)
            .order_by(POSITIONS.c.position)
        ).all()
        last = conn.execute(select(MOVES.c.id).order_by(MOVES.c.id.desc()).limit(1)).scalar()
    assert [r.position for r in rows] == list(range(1, len(rows) + 1)), rows
    return [int(r.user_pk) for r in rows], int(last or 0)


def _moves_since(services: Services, last: int) -> list[Moved]:
    with services.read_conn() as conn:
        rows = conn.execute(
            select(MOVES.c.user_pk, MOVES.c.old_position, MOVES.c.new_position).where(
                MOVES.c.kind == KIND, MOVES.c.id > last
            )
        ).all()
    return sorted((int(r.user_pk), r.old_position, r.new_position) for r in rows)


def _played(services: Services, winner: User, loser: User, winner_challenges: bool) -> None:
    """A real ladder game between the two, which the loser resigns (so the winner wins)."""
    pool = services.pool
    by, to = (winner, loser) if winner_challenges else (loser, winner)
    # Through the site's write, which tops the dice pool up when it runs dry.
    made = write(
        services,
        lambda c: ladder_challenges.challenge(c, pool, by, KIND, to.user_id, now()),
    )

    def resign(conn: Connection) -> None:
        record = fetch_game(conn, made.record.id, lock=True)
        ending.resign(conn, pool, loser, record, record.version)

    _write(services, resign)


def _idle_drop(services: Services, user: User) -> int:
    """Make ``user`` idle 14 days, run the inactivity job, and make them active again."""
    at = now()
    mine = (POSITIONS.c.kind == KIND) & (POSITIONS.c.user_pk == user.id)

    def run(conn: Connection) -> int:
        conn.execute(
            update(POSITIONS)
            .where(mine)
            .values(active_at=at - timedelta(days=ladder_inactivity.IDLE_DAYS), dropped_at=None)
        )
        dropped = ladder_inactivity.apply_inactivity(conn, at)
        conn.execute(update(POSITIONS).where(mine).values(active_at=at + FOREVER))
        return dropped

    return int(_write(services, run))


def _join(services: Services, user: int) -> bool:
    """Join (active for ever after, so only a drop step makes anyone idle); False when
    refused as already on the ladder."""

    def work(conn: Connection) -> None:
        ladders.join(conn, KIND, user, now())
        conn.execute(
            update(POSITIONS)
            .where(POSITIONS.c.kind == KIND, POSITIONS.c.user_pk == user)
            .values(active_at=now() + FOREVER)
        )

    try:
        _write(services, work)
    except Refused as exc:
        assert exc.code == "already_on_ladder"
        return False
    return True


def _leave(services: Services, user: int) -> bool:
    """Leave; False when refused as not on the ladder."""
    try:
        _write(services, lambda c: ladders.leave(c, KIND, user, now()))
    except Refused as exc:
        assert exc.code == "not_on_ladder"
        return False
    return True


def _clean(conn: Connection) -> None:
    conn.execute(delete(CHALLENGES).where(CHALLENGES.c.kind == KIND))
    conn.execute(delete(MOVES).where(MOVES.c.kind == KIND))
    conn.execute(delete(POSITIONS).where(POSITIONS.c.kind == KIND))


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(start=starts, sequence=steps)
def test_a_ladder_stays_a_permutation_and_moves_exactly_as_modelled(
    services: Services, players: list[User], start: list[int], sequence: list[Step]
) -> None:
    _write(services, _clean)
    model = Model()
    by_pk = {p.id: p for p in players}
    for index in start:
        assert _join(services, players[index].id)
        model.join(players[index].id)
    for op, a, b in sequence:
        _, last = _state(services)
        size = len(model.order)
        expected: list[Moved] | None
        if op == "join":
            user = players[a % PEOPLE].id
            expected = model.join(user)
            assert _join(services, user) == (expected is not None)
        elif op == "leave":
            user = players[a % PEOPLE].id
            expected = model.leave(user)
            assert _leave(services, user) == (expected is not None)
        elif op == "win":
            if size < 2 or a % size == b % size:
                continue
            winner, loser = model.order[a % size], model.order[b % size]
            expected = model.win(winner, loser)
            _played(services, by_pk[winner], by_pk[loser], winner_challenges=(a + b) % 2 == 0)
        else:
            if not size:
                continue
            user = model.order[a % size]
            expected = model.drop(user)
            assert _idle_drop(services, by_pk[user]) == 1
        event(op)
        order, _ = _state(services)
        assert order == model.order, (op, a, b)
        # Exactly the modelled moves were recorded (a move to the same place is none).
        wanted = sorted(m for m in (expected or []) if m[1] != m[2])
        assert _moves_since(services, last) == wanted, (op, a, b)
