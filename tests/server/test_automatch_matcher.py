"""The matcher: open waiting-room seats are filled first; two-seat
tables pair the closest ratings; tables of 3+ take the largest size everyone accepts (after
waiting a little for more players when someone would take more); the rating gap widens
with waiting; the same pair is not matched again within a day when another table is
possible (and is when none is); bots take the missing seats after ``bots_after`` (the game
then unrated); matched players are told; two passes at once never seat a ticket twice."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import Connection, insert, select
from sqlalchemy.orm import Session

from dicehall.server.core.models import Notification, User
from dicehall.server.domain.automatch import matcher, tickets
from dicehall.server.domain.automatch.records import TICKETS
from dicehall.server.domain.games import seating
from dicehall.server.domain.games.records import GAMES, SEATS, fetch_game, seats_of
from dicehall.server.domain.people import relations
from dicehall.server.domain.ratings.store import RATINGS
from dicehall.server.domain.services import Services
from dicehall.server.domain.work import write
from dicehall.server.workers.jobs import default_jobs
from tests.live import add_user

T0 = datetime(2031, 5, 4, 12, tzinfo=UTC)
MINUTE = timedelta(minutes=1)
HOUR = timedelta(hours=1)


# -- helpers ---------------------------------------------------------------------------------


def users(services: Services, *names: str) -> list[User]:
    for name in names:
        add_user(services, name)
    with Session(services.engine) as db:
        found = [db.scalars(select(User).where(User.key == n)).one() for n in names]
        db.expunge_all()
    return found


def rate(services: Services, kind: str, ratings: dict[User, int]) -> None:
    """Give each user a shown rating of ``kind`` (1500 + 40 per unit of mu over 25)."""

    def work(conn: Connection) -> None:
        for user, shown in ratings.items():
            conn.execute(
                insert(RATINGS).values(
                    user_pk=user.id,
                    kind=kind,
                    mu=25 + (shown - 1500) / 40,
                    sigma=3.0,
                    games=20,
                    last_game_at=T0 - timedelta(days=1),
                )
            )

    write(services, work)


def file(
    services: Services,
    user: User,
    game: str = "boss",
    seats: tuple[int, int] = (2, 2),
    at: datetime = T0,
    **more: Any,
) -> dict[str, Any]:
    wish = tickets.check(
        game,
        more.pop("options", {}),
        list(seats),
        more.pop("pace", "daily"),
        more.pop("rated", True),
        more.pop("bots_after", None),
    )
    filed = write(services, lambda conn: tickets.file(conn, services.pool, user, wish, at))
    ticket: dict[str, Any] = filed.ticket
    return ticket


def run(services: Services, at: datetime) -> list[Any]:
    changed: list[Any] = write(services, lambda conn: matcher.match(conn, services.pool, at))
    return changed


def tables(services: Services) -> dict[int, set[str]]:
    """Every game that holds a matched ticket: its players' user ids."""
    with services.read_conn() as conn:
        rows = conn.execute(
            select(TICKETS.c.game_id, User.__table__.c.user_id)
            .join(User.__table__, User.__table__.c.id == TICKETS.c.user_pk)
            .where(TICKETS.c.status == "matched")
        ).all()
    found: dict[int, set[str]] = {}
    for game_id, user_id in rows:
        found.setdefault(int(game_id), set()).add(user_id)
    return found


def status_of(services: Services, ticket_id: int) -> str:
    with services.read_conn() as conn:
        return str(
            conn.execute(select(TICKETS.c.status).where(TICKETS.c.id == ticket_id)).scalar_one()
        )


# -- open seats first --------------------------------------------------------------------------


def test_open_waiting_room_seats_are_filled_first(services: Services) -> None:
    host, early, late, other = users(services, "host", "early", "late", "other")
    waiting = file(services, early, "boatzee", (2, 3))
    assert waiting["status"] == "waiting"
    pool = services.pool
    record, _ = write(
        services,
        lambda conn: seating.create_game(conn, pool, host, "boatzee", {}, ["me", "open", "open"]),
    )
    # A ticket filed now takes a seat at once; the matcher seats the one that waited.
    now_ticket = file(services, late, "boatzee", (3, 3))
    assert now_ticket["status"] == "matched" and now_ticket["game_id"] == record.id
    assert file(services, other, "boatzee", (2, 2))["status"] == "waiting"  # 3 seats: no
    changed = run(services, T0 + MINUTE)
    assert [r.id for r, _ in changed] == [record.id]
    assert status_of(services, waiting["id"]) == "matched"
    with services.read_conn() as conn:
        game = fetch_game(conn, record.id)
        seated = {s.user_id for s in seats_of(conn, record.id)}
    assert game.status == "active" and seated == {"host", "early", "late"}
    assert status_of(services, int(now_ticket["id"])) == "matched"


def test_an_open_seat_that_does_not_fit_is_left_alone(services: Services) -> None:
    host, joiner = users(services, "hostess", "joiner")
    pool = services.pool
    record, _ = write(
        services,
        lambda conn: seating.create_game(
            conn, pool, host, "boatzee", {"columns": 2}, ["me", "open"], pace="brisk"
        ),
    )
    assert file(services, joiner, "boatzee", (2, 2), options={"columns": 2})["status"] == (
        "waiting"  # daily, not brisk
    )
    assert file(services, joiner, "boss")["status"] == "waiting"
    with services.read_conn() as conn:
        assert fetch_game(conn, record.id).status == "waiting"


# -- two seats ---------------------------------------------------------------------------------


def test_two_seat_tables_pair_the_closest_ratings(services: Services) -> None:
    ann, bob, cid, dee = users(services, "ann", "bob", "cid", "dee")
    rate(services, "boss", {ann: 1500, bob: 1900, cid: 1510, dee: 1890})
    for user in (ann, bob, cid, dee):
        file(services, user)
    run(services, T0 + 10 * MINUTE)
    assert sorted(map(sorted, tables(services).values())) == [["ann", "cid"], ["bob", "dee"]]


def test_the_rating_gap_widens_with_waiting(services: Services) -> None:
    low, high = users(services, "low", "high")
    rate(services, "boss", {low: 1500, high: 1800})
    file(services, low)
    file(services, high, at=T0 + MINUTE)
    assert run(services, T0 + MINUTE) == []  # gaps of 200 and 100 points: too far
    assert run(services, T0 + 2 * MINUTE - timedelta(seconds=1)) == []  # not quite 300
    assert len(run(services, T0 + 2 * MINUTE)) == 1  # low has waited two minutes: 300
    assert list(tables(services).values()) == [{"low", "high"}]


def test_nobody_is_matched_across_an_ignore(services: Services) -> None:
    ann, bob = users(services, "ann", "bob")
    write(services, lambda conn: relations.put(conn, bob.id, ann.id, "ignore", None))
    file(services, ann)
    file(services, bob)
    assert run(services, T0 + 60 * MINUTE) == []


# -- bigger tables -----------------------------------------------------------------------------


def test_the_largest_table_everyone_accepts(services: Services) -> None:
    people = users(services, *(f"p{i}" for i in range(6)))
    for user in people[:5]:
        file(services, user, "bullseye", (3, 5))
    file(services, people[5], "bullseye", (3, 4))
    run(services, T0)
    assert [len(t) for t in tables(services).values()] == [5]  # full: nobody takes 6


def test_a_table_below_what_all_accept_waits_a_minute_for_more(services: Services) -> None:
    people = users(services, "a1", "a2", "a3", "a4")
    for user in people[:3]:
        file(services, user, "tenthousand", (2, 4))
    assert run(services, T0 + timedelta(seconds=30)) == []
    file(services, people[3], "tenthousand", (2, 4), at=T0 + timedelta(seconds=40))
    assert len(run(services, T0 + timedelta(seconds=45))) == 1  # four: as big as all take
    assert [len(t) for t in tables(services).values()] == [4]
    more = users(services, "b1", "b2", "b3")
    for user in more:
        file(services, user, "tenthousand", (2, 4), at=T0 + MINUTE)
    assert run(services, T0 + MINUTE + timedelta(seconds=59)) == []
    run(services, T0 + 2 * MINUTE + timedelta(seconds=1))
    assert sorted(len(t) for t in tables(services).values()) == [3, 4]


# -- no repeat within a day ---------------------------------------------------------------------


def test_the_same_pair_is_not_matched_twice_in_a_row_when_another_table_is_possible(
    services: Services,
) -> None:
    ann, bob, cid, dee = users(services, "ann", "bob", "cid", "dee")
    rate(services, "boss", {ann: 1500, bob: 1505, cid: 1600, dee: 1605})
    for hour in (0, 1):  # alone in the queue, the two meet again
        for user in (ann, bob):
            file(services, user, at=T0 + hour * HOUR)
        run(services, T0 + hour * HOUR)
    assert sorted(map(sorted, tables(services).values())) == [["ann", "bob"]] * 2
    before = set(tables(services))
    for user in (ann, bob, cid, dee):
        file(services, user, at=T0 + 2 * HOUR)
    run(services, T0 + 2 * HOUR + 5 * MINUTE)
    new = sorted(sorted(t) for g, t in tables(services).items() if g not in before)
    assert len(new) == 2 and ["ann", "bob"] not in new, new


# -- bots -----------------------------------------------------------------------------------------


def test_bots_take_the_missing_seats_after_bots_after(services: Services) -> None:
    (solo,) = users(services, "solo")
    ticket = file(services, solo, "bullseye", (4, 6), bots_after=5)
    assert ticket["estimated_wait_s"] is not None  # bots will come
    assert run(services, T0 + 4 * MINUTE) == []
    (changed,) = run(services, T0 + 5 * MINUTE)
    record, seats = changed
    assert record.seats == 4 and record.rating_kind is None and record.status == "active"
    assert [s.bot for s in seats if s.bot] == [matcher.match_bot("bullseye")] * 3
    assert status_of(services, ticket["id"]) == "matched"


# -- told, and never twice -----------------------------------------------------------------------


def test_matched_players_get_a_notification_and_a_push(services: Services) -> None:
    ann, bob = users(services, "ann", "bob")
    pushed: list[tuple[int, dict[str, Any]]] = []
    original = services.broker.publish

    def capture(user_pk: int, message: dict[str, Any]) -> None:
        pushed.append((user_pk, message))
        original(user_pk, message)

    services.broker.publish = capture  # type: ignore[method-assign]
    first = file(services, ann)
    second = file(services, bob)
    assert "automatch" in [job.name for job in default_jobs(services.settings)]
    assert matcher.run(services, T0) == 1  # the job: a pass, the games pushed
    (game_id,) = tables(services)
    with services.read_conn() as conn:
        record = fetch_game(conn, game_id)
    assert record.rating_kind == "boss" and record.status == "active"
    told = {(pk, m["ticket"], m["game"]) for pk, m in pushed if m["type"] == "automatch"}
    assert told == {(ann.id, first["id"], record.id), (bob.id, second["id"], record.id)}
    with services.read_conn() as conn:
        kinds = conn.execute(
            select(Notification.__table__.c.user_pk).where(
                Notification.__table__.c.kind == "automatch",
                Notification.__table__.c.game_id == record.id,
            )
        ).scalars()
        assert sorted(kinds) == sorted([ann.id, bob.id])


@pytest.mark.both_databases
def test_two_passes_at_once_never_seat_a_ticket_twice(services: Services) -> None:
    people = users(services, *(f"q{i}" for i in range(16)))
    for index, user in enumerate(people):
        file(services, user, "holdem" if index % 2 else "boss")
    errors: list[BaseException] = []
    start = threading.Barrier(3)

    def pass_(offset: int) -> Callable[[], None]:
        def go() -> None:
            try:
                start.wait()
                run(services, T0 + offset * MINUTE)
            except BaseException as exc:  # pragma: no cover - reported below
                errors.append(exc)

        return go

    threads = [threading.Thread(target=pass_(i)) for i in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    found = tables(services)
    seated = [name for table in found.values() for name in table]
    assert len(seated) == len(set(seated)) == 16 and len(found) == 8
    with services.read_conn() as conn:
        per_game = conn.execute(
            select(SEATS.c.game_id).join(GAMES, GAMES.c.id == SEATS.c.game_id)
        ).scalars()
        assert sorted(set(per_game)) == sorted(found)


@pytest.mark.both_databases
def test_a_round_with_nothing_to_do_takes_no_lock(services: Services) -> None:
    ann, bob, cid, dee = users(services, "ann", "bob", "cid", "dee")
    pool = services.pool

    def due(at: datetime = T0) -> bool:
        with services.read_conn() as conn:
            return matcher.work_due(conn, at)

    assert not due()
    write(services, lambda conn: seating.create_game(conn, pool, ann, "boss", {}, ["me", "open"]))
    assert file(services, ann)["status"] == "waiting"  # her own open game is not for her
    write(services, lambda conn: relations.put(conn, bob.id, ann.id, "ignore", None))
    assert file(services, bob)["status"] == "waiting"  # nor for him, across the ignore
    assert not due(T0 + HOUR)
    assert matcher.run(services, T0 + HOUR) == 0
    assert file(services, cid)["status"] == "matched"  # cid takes ann's open seat at once
    assert not due(T0 + HOUR)
    file(services, dee)
    assert due(T0 + HOUR)
    assert matcher.run(services, T0 + HOUR) == 1
