"""Vacation: the allowance grows 2 days a month up to 30; an announced absence is paid up
front, moves a deadline that runs out inside it to its end, is ended early with a refund (less
the floating hour a game still waiting on it gets) or by any move, and is shown to opponents.

Vacation saves seats only at paces of a day or more: these games run at a day per move and
the site's clock is moved on past it (see ``test_vacation_paces.py`` for shorter paces)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, update
from time_machine import TimeMachineFixture

from dicehall.server.core.clock import aware
from dicehall.server.core.models import GameRow, User
from dicehall.server.domain.games.records import fetch_game
from dicehall.server.domain.services import Services
from dicehall.server.domain.vacation import (
    DAY,
    FLOATING_HOUR,
    MONTH,
    MONTHLY_ALLOWANCE,
    MOST_ALLOWANCE,
    SIGN_UP_ALLOWANCE,
    Allowance,
    accrued,
)
from tests.server.conftest import Headers, MakeUser
from tests.server.test_clocks import (
    ONE_DAY,
    PAST_ONE_DAY,
    both_move,
    fetch,
    site_clock,
    timeouts,
    two_people,
)
from tests.waiting import wait_until

__all__ = ["site_clock"]  # a fixture

API = "/api/v1"
T0 = datetime(2030, 1, 1, tzinfo=UTC)

# -- accrual (pure) ------------------------------------------------------------------------------


def test_an_allowance_gains_two_days_a_month() -> None:
    week = float(SIGN_UP_ALLOWANCE)
    assert MONTHLY_ALLOWANCE == 2 * DAY and MONTH == 30 * DAY
    assert accrued(week, T0, T0 + timedelta(seconds=MONTH)) == pytest.approx(9 * DAY)
    assert accrued(week, T0, T0 + timedelta(days=15)) == pytest.approx(8 * DAY)
    assert accrued(week, T0, T0 + timedelta(days=3 * 30)) == pytest.approx(13 * DAY)


def test_an_allowance_holds_at_most_thirty_days() -> None:
    assert MOST_ALLOWANCE == 30 * DAY
    assert accrued(29.5 * DAY, T0, T0 + timedelta(days=30)) == MOST_ALLOWANCE
    assert accrued(0.0, T0, T0 + timedelta(days=10 * 365)) == MOST_ALLOWANCE
    assert accrued(40.0 * DAY, None, T0) == MOST_ALLOWANCE


def test_no_time_passed_gains_nothing() -> None:
    assert accrued(5.0 * DAY, T0, T0) == 5 * DAY
    assert accrued(5.0 * DAY, T0, T0 - timedelta(days=40)) == 5 * DAY
    assert accrued(5.0 * DAY, None, T0) == 5 * DAY


def test_an_allowance_shows_only_windows_still_ahead() -> None:
    later = T0 + timedelta(hours=2)
    held = Allowance(3.0 * DAY, T0, T0 - timedelta(minutes=1), later)
    assert held.as_json() == {
        "allowance_seconds": 3.0 * DAY,
        "away_until": later.isoformat(),
        "vacation_until": None,
    }
    assert held.covering(T0 + timedelta(hours=1)) == later
    assert held.covering(later) is None


# -- the API ---------------------------------------------------------------------------------------


def vacation_of(client: TestClient, headers: Headers) -> Any:
    answer = client.get(f"{API}/users/me/vacation", headers=headers)
    assert answer.status_code == 200, answer.text
    return answer.json()


def go_away(client: TestClient, headers: Headers, until: datetime | str) -> Any:
    sent = until if isinstance(until, str) else until.isoformat()
    return client.post(f"{API}/users/me/away", json={"until": sent}, headers=headers)


def stored(services: Services, user_id: str) -> User:
    with services.sessions() as db:
        user = db.scalar(select(User).where(User.user_id == user_id))
        assert user is not None
        return user


def moment(text: str) -> datetime:
    return datetime.fromisoformat(text)


def test_a_new_account_has_a_week_and_no_absence(client: TestClient, make_user: MakeUser) -> None:
    me = make_user("fresh")
    assert vacation_of(client, me) == {
        "allowance_seconds": float(SIGN_UP_ALLOWANCE),
        "away_until": None,
        "vacation_until": None,
    }
    assert client.get(f"{API}/users/me/vacation").status_code == 401


def test_an_absence_is_paid_up_front_and_ended_early_with_a_refund(
    client: TestClient, make_user: MakeUser
) -> None:
    me = make_user("traveller")
    until = datetime.now(UTC) + timedelta(days=2)
    # Any UTC offset is accepted; the answer says it in UTC.
    answer = go_away(client, me, until.astimezone(UTC).replace(tzinfo=None).isoformat() + "-00:00")
    assert answer.status_code == 200, answer.text
    away = answer.json()
    assert moment(away["away_until"]) == until
    assert moment(away["away_until"]).utcoffset() == timedelta(0)
    assert away["allowance_seconds"] == pytest.approx(SIGN_UP_ALLOWANCE - 2 * DAY, abs=30)
    assert vacation_of(client, me)["away_until"] == away["away_until"]
    # Announcing again replaces the absence (the first is refunded, the second paid).
    shorter = go_away(client, me, until - timedelta(days=1)).json()
    assert shorter["allowance_seconds"] == pytest.approx(SIGN_UP_ALLOWANCE - DAY, abs=30)
    back = client.delete(f"{API}/users/me/away", headers=me)
    assert back.status_code == 200, back.text
    assert back.json()["away_until"] is None
    assert back.json()["allowance_seconds"] == pytest.approx(SIGN_UP_ALLOWANCE, abs=30)
    # Coming back twice changes nothing.
    again = client.delete(f"{API}/users/me/away", headers=me).json()
    assert again["allowance_seconds"] == pytest.approx(back.json()["allowance_seconds"], abs=1)


@pytest.mark.parametrize(
    ("until", "code"),
    [
        (timedelta(days=8), "not_enough_vacation"),
        (timedelta(days=400), "not_enough_vacation"),
        (-timedelta(minutes=1), "invalid_away"),
        ("naive", "invalid_away"),
    ],
)
def test_an_impossible_absence_is_refused_and_changes_nothing(
    client: TestClient, make_user: MakeUser, until: timedelta | str, code: str
) -> None:
    me = make_user("dreamer")
    if isinstance(until, str):
        sent: datetime | str = (datetime.now(UTC) + timedelta(hours=1)).replace(tzinfo=None)
    else:
        sent = datetime.now(UTC) + until
    answer = go_away(client, me, sent)
    assert answer.status_code == 422, answer.text
    assert answer.json()["code"] == code
    if code == "not_enough_vacation":
        assert "7.0 days of vacation left" in answer.json()["error"]
    assert vacation_of(client, me)["away_until"] is None
    assert vacation_of(client, me)["allowance_seconds"] == SIGN_UP_ALLOWANCE


@pytest.mark.parametrize(
    "body", [{}, {"until": "next week"}, {"until": "2030-01-01T00:00:00Z", "why": "beach"}]
)
def test_a_malformed_absence_is_refused(
    client: TestClient, make_user: MakeUser, body: dict[str, Any]
) -> None:
    me = make_user("sloppy")
    answer = client.post(f"{API}/users/me/away", json=body, headers=me)
    assert answer.status_code == 422 and answer.json()["code"] == "invalid_request"
    anonymous = client.post(f"{API}/users/me/away", json={"until": "2030-01-01T00:00:00Z"})
    assert anonymous.status_code == 401


def saved_by_absence(
    client: TestClient, make_user: MakeUser, services: Services, site_clock: TimeMachineFixture
) -> tuple[Any, dict[int, Headers], int, datetime]:
    """A day-per-move game whose seat to act announced a 2-day absence and then ran out of
    time a day later: the sweeper (nobody reads the game) moved its deadline to the
    absence's end. The game, the players, that seat and the absence's end."""
    game, players = two_people(client, make_user, vacation=True, pace=ONE_DAY)
    game = both_move(client, game, players)
    late = game["to_act"]
    away = go_away(client, players[late], datetime.now(UTC) + timedelta(days=2))
    assert away.status_code == 200, away.text
    away_until = moment(away.json()["away_until"])

    def moved() -> Any:
        with services.read_conn() as conn:
            found = fetch_game(conn, game["id"])
        later = found.deadline is not None and found.deadline > away_until - timedelta(minutes=1)
        return found if later else None

    assert moved() is None
    site_clock.shift(PAST_ONE_DAY)
    wait_until(moved, timeout=6, what="the sweeper to move the deadline")
    return game, players, late, away_until


def test_a_deadline_during_an_absence_moves_to_its_end(
    client: TestClient, make_user: MakeUser, services: Services, site_clock: TimeMachineFixture
) -> None:
    game, players, late, away_until = saved_by_absence(client, make_user, services, site_clock)
    name = game["seats"][late]["user"]
    user = stored(services, name)
    assert user.vacation_seconds == SIGN_UP_ALLOWANCE - 2 * DAY  # paid up front
    # Opponents see the absence on the seat.
    saved = fetch(client, game["id"], players[1 - late])
    assert saved["seats"][late]["away_until"] == away_until.isoformat()
    assert saved["seats"][1 - late]["away_until"] is None
    assert saved["status"] == "active" and saved["to_act"] == late
    assert fetch_game_now(services, game["id"]).deadline == away_until
    clock = saved["clock"]["seats"][late]
    assert clock["running"] and moment(clock["deadline"]) == away_until
    # The opponent's board reads why the seat still plays.
    assert clock["saved_by"] == "away"
    assert timeouts(services, game["id"]) == 0
    # The absence paid for it: no floating hour was spent on top, and none is marked.
    after = stored(services, name)
    assert after.vacation_seconds == user.vacation_seconds and after.vacation_until is None
    shown = vacation_of(client, players[late])
    assert shown["vacation_until"] is None and shown["away_until"] == away_until.isoformat()


def fetch_game_now(services: Services, game_id: int) -> Any:
    with services.read_conn() as conn:
        return fetch_game(conn, game_id)


def test_coming_back_early_gives_back_all_but_the_hour_a_waiting_game_gets(
    client: TestClient, make_user: MakeUser, services: Services, site_clock: TimeMachineFixture
) -> None:
    game, players, late, away_until = saved_by_absence(client, make_user, services, site_clock)
    name = game["seats"][late]["user"]
    user = stored(services, name)
    assert user.vacation_accrued_at is not None
    back_at = datetime.now(UTC)
    back = client.delete(f"{API}/users/me/away", headers=players[late])
    assert back.status_code == 200, back.text
    # Given back: from an hour from now to the absence's end (a day less an hour), on top
    # of what the allowance held and gained meanwhile.
    hour_on = back_at + timedelta(seconds=FLOATING_HOUR)
    held = accrued(user.vacation_seconds, aware(user.vacation_accrued_at), back_at)
    refund = (away_until - hour_on).total_seconds()
    assert refund == pytest.approx(DAY - FLOATING_HOUR, abs=1)
    assert back.json()["allowance_seconds"] == pytest.approx(held + refund, abs=1e-3)
    assert back.json()["away_until"] is None
    assert moment(back.json()["vacation_until"]) == hour_on
    # The game waits an hour from now, no longer to the absence's end, and says why.
    record = fetch_game_now(services, game["id"])
    assert record.deadline == hour_on
    clock = fetch(client, game["id"], players[1 - late])["clock"]["seats"][late]
    assert moment(clock["deadline"]) == hour_on and clock["saved_by"] == "vacation"
    notices = client.get(f"{API}/notifications", headers=players[late]).json()["notifications"]
    assert notices[0]["kind"] == "vacation" and notices[0]["text"].startswith("You are back")
    # Coming back again changes nothing.
    again = client.delete(f"{API}/users/me/away", headers=players[late]).json()
    assert again["allowance_seconds"] == pytest.approx(back.json()["allowance_seconds"], abs=1e-3)
    assert fetch_game_now(services, game["id"]).deadline == hour_on


def test_a_move_that_ends_the_turn_ends_the_absence_with_a_whole_refund(
    client: TestClient, make_user: MakeUser, services: Services, site_clock: TimeMachineFixture
) -> None:
    game, players, late, away_until = saved_by_absence(client, make_user, services, site_clock)
    user = stored(services, game["seats"][late]["user"])
    assert user.vacation_accrued_at is not None
    game = fetch(client, game["id"], players[late])
    score = next(a for a in game["legal"] if a["type"] == "score")
    played = client.post(
        f"{API}/games/{game['id']}/actions",
        json={"action": score, "expected_version": game["version"]},
        headers=players[late],
    )
    assert played.status_code == 200, played.text
    assert played.json()["to_act"] != late
    now_ = datetime.now(UTC)
    held = accrued(user.vacation_seconds, aware(user.vacation_accrued_at), now_)
    back = vacation_of(client, players[late])
    assert back["away_until"] is None and back["vacation_until"] is None
    # No game waits on the absence any more: all of it from now is given back.
    whole = (away_until - now_).total_seconds()
    assert back["allowance_seconds"] == pytest.approx(held + whole, abs=1e-3)


def test_a_shorter_absence_announced_again_pulls_a_held_deadline_in(
    client: TestClient, make_user: MakeUser, services: Services, site_clock: TimeMachineFixture
) -> None:
    game, players, late, away_until = saved_by_absence(client, make_user, services, site_clock)
    sooner = datetime.now(UTC) + timedelta(hours=3)
    answer = go_away(client, players[late], sooner)
    assert answer.status_code == 200, answer.text
    assert fetch_game_now(services, game["id"]).deadline == sooner < away_until
    clock = fetch(client, game["id"], players[1 - late])["clock"]["seats"][late]
    assert clock["saved_by"] == "away"
    # A longer one leaves it be: the new absence covers it when it runs out.
    assert go_away(client, players[late], sooner + timedelta(days=1)).status_code == 200
    assert fetch_game_now(services, game["id"]).deadline == sooner


def test_an_absence_stored_by_the_last_release_is_ended_with_the_same_rule(
    client: TestClient, make_user: MakeUser, services: Services, site_clock: TimeMachineFixture
) -> None:
    """Before this rule, a saving absence marked its whole time used (the floating hour's
    end set to its end) and the clock kept no ``saved``: coming back works the same."""
    game, players, late, away_until = saved_by_absence(client, make_user, services, site_clock)
    with services.engine.begin() as conn:
        conn.execute(
            update(User)
            .where(User.user_id == game["seats"][late]["user"])
            .values(vacation_until=away_until)
        )
        clock = json.loads(fetch_game(conn, game["id"]).clock or "")
        del clock["saved"]
        conn.execute(
            update(GameRow).where(GameRow.id == game["id"]).values(clock=json.dumps(clock))
        )
    back_at = datetime.now(UTC)
    back = client.delete(f"{API}/users/me/away", headers=players[late]).json()
    hour_on = back_at + timedelta(seconds=FLOATING_HOUR)
    assert moment(back["vacation_until"]) == hour_on
    assert fetch_game_now(services, game["id"]).deadline == hour_on


def test_any_move_ends_an_absence_and_refunds_it(client: TestClient, make_user: MakeUser) -> None:
    game, players = two_people(client, make_user, vacation=True, pace="daily")
    mover = game["to_act"]
    away = go_away(client, players[mover], datetime.now(UTC) + timedelta(days=3)).json()
    assert away["allowance_seconds"] == pytest.approx(SIGN_UP_ALLOWANCE - 3 * DAY, abs=30)
    seen = fetch(client, game["id"], players[1 - mover])
    assert seen["seats"][mover]["away_until"] == away["away_until"]
    game = fetch(client, game["id"], players[mover])
    played = client.post(
        f"{API}/games/{game['id']}/actions",
        json={"action": game["legal"][0], "expected_version": game["version"]},
        headers=players[mover],
    )
    assert played.status_code == 200, played.text
    assert played.json()["seats"][mover]["away_until"] is None
    back = vacation_of(client, players[mover])
    assert back["away_until"] is None
    assert back["allowance_seconds"] == pytest.approx(SIGN_UP_ALLOWANCE, abs=30)
