"""Inactivity on a ladder: a drop of 5 places after 14 days and
every week after, none while a ladder game is in progress; ladder vacation pauses it; the
job is idempotent, safe to run twice at once, and run by the bot driver."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update

from dicehall.server.app import create_app
from dicehall.server.core.clock import now
from dicehall.server.domain.errors import Refused
from dicehall.server.domain.ratings import ladder_inactivity, ladders
from dicehall.server.domain.ratings.ladder_moves import POSITIONS
from dicehall.server.domain.services import Services
from tests.server.conftest import Headers, MakeUser
from tests.server.resigning import resign
from tests.server.test_ladders import (
    API,
    KIND,
    T0,
    challenge,
    join_all,
    moves_of,
    order,
    people,
    pk_of,
    write,
)
from tests.waiting import wait_until


def _idle_ladder(services: Services, count: int, subject: int) -> dict[str, Headers]:
    """``count`` players joined at T0 (their bearer headers, top first); all but
    ``subject`` (an index) count as active for years."""
    cast = dict(people(services, count, "i"))
    names = list(cast)
    join_all(services, names, T0)
    others = [pk_of(services, n) for i, n in enumerate(names) if i != subject]
    write(
        services,
        lambda c: c.execute(
            update(POSITIONS)
            .where(POSITIONS.c.user_pk.in_(others))
            .values(active_at=T0 + timedelta(days=3650))
        ),
    )
    return cast


def drops(services: Services, at: datetime) -> int:
    return int(write(services, lambda c: ladder_inactivity.apply_inactivity(c, at)))


def test_inactivity_drops_five_places_after_14_days_and_every_week(services: Services) -> None:
    names = list(_idle_ladder(services, 15, subject=2))
    assert drops(services, T0 + timedelta(days=13, hours=23)) == 0
    with services.read_conn() as conn:
        assert not ladder_inactivity.work_due(conn, T0 + timedelta(days=13, hours=23))
        assert ladder_inactivity.work_due(conn, T0 + timedelta(days=14))
    assert drops(services, T0 + timedelta(days=14)) == 1
    expected = names[:2] + names[3:8] + [names[2]] + names[8:]
    assert order(services) == expected  # 3rd -> 8th, 4th..8th up one
    assert moves_of(services)[15:] == [
        *[(names[i], i + 1, i, "moved_up", None) for i in reversed(range(3, 8))],
        ("i2", 3, 8, "inactive", None),
    ]
    assert drops(services, T0 + timedelta(days=14)) == 0  # idempotent
    assert drops(services, T0 + timedelta(days=20, hours=23)) == 0
    assert drops(services, T0 + timedelta(days=21)) == 1
    assert order(services).index("i2") == 12
    # Near the bottom a drop stops there; at the bottom it moves nothing.
    assert drops(services, T0 + timedelta(days=28)) == 1
    assert order(services)[-1] == "i2"
    recorded = len(moves_of(services))
    assert drops(services, T0 + timedelta(days=35)) == 1
    assert len(moves_of(services)) == recorded


def test_a_missed_run_catches_up_every_drop_due(services: Services) -> None:
    _idle_ladder(services, 30, subject=0)
    assert drops(services, T0 + timedelta(days=35)) == 4  # due at 14, 21, 28 and 35 days
    assert order(services).index("i0") == 20
    assert drops(services, T0 + timedelta(days=35)) == 0


def test_playing_resets_the_clock_and_a_game_in_progress_holds_it(
    client: TestClient, services: Services
) -> None:
    cast = _idle_ladder(services, 8, subject=1)
    opponent = "i0"
    later = T0 + timedelta(days=30)
    write(
        services,
        lambda c: c.execute(
            update(POSITIONS).where(POSITIONS.c.user_pk == pk_of(services, opponent))
            .values(active_at=T0)
        ),
    )  # fmt: skip
    made = challenge(client, cast["i1"], opponent)
    assert drops(services, later) == 0  # both are in a ladder game
    resign(client, cast[opponent], made["game_id"])
    assert order(services)[:2] == ["i1", "i0"]
    # The game ended now: neither is idle for 14 days from now.
    assert drops(services, now() + timedelta(days=13)) == 0
    assert drops(services, now() + timedelta(days=14, minutes=1)) == 2


def test_ladder_vacation_pauses_the_clock(services: Services) -> None:
    _idle_ladder(services, 12, subject=0)
    subject = pk_of(services, "i0")
    taken = write(
        services, lambda c: ladders.take_vacation(c, KIND, subject, 10, T0 + timedelta(days=5))
    )
    assert taken["vacation_days_left"] == 20
    assert taken["vacation_until"] == (T0 + timedelta(days=15)).isoformat()
    assert taken["drop_due_at"] == (T0 + timedelta(days=24)).isoformat()
    assert drops(services, T0 + timedelta(days=23, hours=23)) == 0
    assert drops(services, T0 + timedelta(days=24)) == 1
    assert order(services).index("i0") == 5
    # The next drop a week later, unless more vacation pauses it (added to none running).
    more = write(
        services, lambda c: ladders.take_vacation(c, KIND, subject, 20, T0 + timedelta(days=25))
    )
    assert more["vacation_days_left"] == 0
    assert more["drop_due_at"] == (T0 + timedelta(days=51)).isoformat()
    assert drops(services, T0 + timedelta(days=50)) == 0
    with pytest.raises(Refused) as refused:
        write(
            services, lambda c: ladders.take_vacation(c, KIND, subject, 1, T0 + timedelta(days=26))
        )
    assert refused.value.code == "not_enough_ladder_vacation"
    # A new year brings 30 days again.
    next_year = datetime(2032, 1, 2, tzinfo=UTC)
    again = write(services, lambda c: ladders.take_vacation(c, KIND, subject, 3, next_year))
    assert again["vacation_days_left"] == 27


def test_vacation_first_applies_a_drop_already_due(services: Services) -> None:
    _idle_ladder(services, 10, subject=0)
    subject = pk_of(services, "i0")
    write(services, lambda c: ladders.take_vacation(c, KIND, subject, 5, T0 + timedelta(days=15)))
    assert order(services).index("i0") == 5  # the drop due at 14 days happened first


def test_the_vacation_api(client: TestClient, make_user: MakeUser) -> None:
    ann = make_user("ann")
    off = client.post(f"{API}/ladders/{KIND}/vacation", json={"days": 3}, headers=ann)
    assert off.status_code == 409 and off.json()["code"] == "not_on_ladder"
    client.post(f"{API}/ladders/{KIND}/join", headers=ann)
    taken = client.post(f"{API}/ladders/{KIND}/vacation", json={"days": 7}, headers=ann)
    assert taken.status_code == 200, taken.text
    assert taken.json()["vacation_days_left"] == 23 and taken.json()["vacation_until"]
    too_long = client.post(f"{API}/ladders/{KIND}/vacation", json={"days": 24}, headers=ann)
    assert too_long.status_code == 422
    assert too_long.json()["code"] == "not_enough_ladder_vacation"
    assert "23 days" in too_long.json()["error"]
    assert (
        client.post(f"{API}/ladders/{KIND}/vacation", json={"days": 0}, headers=ann).status_code
        == 422
    )
    board = client.get(f"{API}/ladders/{KIND}", headers=ann).json()
    assert board["positions"][0]["vacation_until"] == taken.json()["vacation_until"]


@pytest.mark.both_databases
def test_the_job_run_twice_at_once_drops_each_player_once(services: Services) -> None:
    _idle_ladder(services, 20, subject=1)
    idle = pk_of(services, "i6")
    write(
        services,
        lambda c: c.execute(
            update(POSITIONS).where(POSITIONS.c.user_pk == idle).values(active_at=T0)
        ),
    )
    at = T0 + timedelta(days=14)
    counts: list[int] = []
    errors: list[BaseException] = []
    gate = threading.Barrier(2)

    def run() -> None:
        try:
            gate.wait()
            counts.append(drops(services, at))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    assert sorted(counts) == [0, 2]
    ranked = order(services)
    assert ranked.index("i1") == 5 and ranked.index("i6") == 10
    assert sum(1 for m in moves_of(services) if m[3] == "inactive") == 2


def test_the_bot_driver_applies_the_drops(services: Services) -> None:
    names = [name for name, _ in people(services, 8, "d")]
    long_ago = now() - timedelta(days=15)
    join_all(services, names, long_ago)
    write(
        services,
        lambda c: c.execute(
            update(POSITIONS)
            .where(POSITIONS.c.user_pk != pk_of(services, "d0"))
            .values(active_at=now())
        ),
    )
    with TestClient(create_app(services=services)):
        wait_until(lambda: order(services)[0] != "d0", timeout=15, what="the bot driver's drops")
    assert order(services).index("d0") == 5
