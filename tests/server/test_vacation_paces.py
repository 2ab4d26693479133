"""Vacation and the pace (issue 36): vacation never saves a seat at a pace under a day. A
live game runs out like a game without vacation (no hour added, again and again), even one
stored with vacation on by an older release; asking for vacation at such a pace is refused
by the API and left off by the form; a rematch keeps the rule."""

from __future__ import annotations

import re
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select, update
from time_machine import TimeMachineFixture

from dicehall.server.core.models import GameRow, Notification
from dicehall.server.domain.games.pace import DAY, PRESETS, Pace, parse_pace, vacation_saves
from dicehall.server.domain.services import Services
from dicehall.server.domain.vacation import SIGN_UP_ALLOWANCE
from tests.server.conftest import MakeUser
from tests.server.test_clocks import allowance, both_move, create, fetch, site_clock, timeouts
from tests.waiting import wait_until

__all__ = ["site_clock"]  # a fixture

API = "/api/v1"
#: Past any bank a live seat can hold (the cap: 3 minutes).
PAST_LIVE = 181


def live_game(client: TestClient, make_user: MakeUser, **extra: Any) -> tuple[Any, dict[int, Any]]:
    alice, bob = make_user("alice"), make_user("bob")
    body = {"game": "boatzee", "seats": ["me", "bob"], "pace": "live", **extra}
    game = create(client, alice, body)
    accepted = client.post(f"{API}/games/{game['id']}/accept", headers=bob)
    assert accepted.status_code == 200, accepted.text
    return accepted.json(), {0: alice, 1: bob}


def vacation_notices(services: Services) -> int:
    with services.sessions() as db:
        count = db.scalar(
            select(func.count()).select_from(Notification).where(Notification.kind == "vacation")
        )
        return int(count or 0)


def test_only_paces_of_a_day_or_more_take_vacation() -> None:
    assert [name for name, pace in PRESETS.items() if not pace.takes_vacation] == ["live"]
    assert (
        parse_pace("days-1") == Pace(DAY, DAY, DAY, "days-1") and Pace(DAY, 0, DAY).takes_vacation
    )
    assert Pace(DAY, DAY, DAY).takes_vacation and not Pace(DAY - 1, 60, DAY).takes_vacation
    # Whatever a game stored, the pace decides; no clock at all needs no saving anyway.
    assert not vacation_saves(True, PRESETS["live"])
    assert vacation_saves(True, PRESETS["brisk"]) and not vacation_saves(False, PRESETS["brisk"])
    assert vacation_saves(True, None)


def test_a_live_game_runs_out_with_no_hour_added(
    client: TestClient, make_user: MakeUser, services: Services, site_clock: TimeMachineFixture
) -> None:
    """The issue's "Live: 3 minutes" game, created as the form and the API make it by
    default: the clock runs out, the late seat loses, and no vacation is spent."""
    game, players = live_game(client, make_user)
    assert game["vacation"] is False
    game = both_move(client, game, players)
    late = game["to_act"]
    site_clock.shift(PAST_LIVE)
    ended = fetch(client, game["id"], players[1 - late])
    assert ended["status"] == "finished"
    assert ended["result"]["forfeit"] == {"seat": late, "reason": "timed_out"}
    assert timeouts(services, game["id"]) == 1
    assert allowance(services, game["seats"][late]["user"]) == SIGN_UP_ALLOWANCE
    assert vacation_notices(services) == 0


def test_an_old_live_game_stored_with_vacation_on_is_not_saved(
    client: TestClient, make_user: MakeUser, services: Services, site_clock: TimeMachineFixture
) -> None:
    """A database from before the rule holds live games with vacation on: the sweeper
    applies the timeout to them as the pace says, and their JSON says vacation is off."""
    game, players = live_game(client, make_user)
    with services.engine.begin() as conn:
        conn.execute(update(GameRow).where(GameRow.id == game["id"]).values(vacation=True))
    game = both_move(client, game, players)
    assert game["vacation"] is False
    late = game["to_act"]
    site_clock.shift(PAST_LIVE)

    def ended() -> Any:
        with services.sessions() as db:
            row = db.get(GameRow, game["id"])
            assert row is not None
            return row if row.status != "active" or row.deadline is None else None

    # Nobody reads the game: the sweeper's timeout, not a read's.
    row = wait_until(ended, timeout=6, what="the sweeper to apply the timeout")
    assert row.status == "finished" and row.vacation is True
    assert timeouts(services, game["id"]) == 1
    assert allowance(services, game["seats"][late]["user"]) == SIGN_UP_ALLOWANCE
    # Its rematch is made under the rule: vacation off.
    again = client.post(f"{API}/games/{game['id']}/rematch", headers=players[0])
    assert again.status_code == 201, again.text
    assert again.json()["vacation"] is False and again.json()["pace"]["name"] == "live"


@pytest.mark.parametrize(
    ("pace", "vacation", "expected"),
    [
        ("live", None, False),
        ("live", False, False),
        ("brisk", None, True),
        ("days-1", True, True),
        ("daily", False, False),
        ({"initial": DAY, "increment": 0, "cap": DAY}, True, True),
        ("none", True, True),
    ],
)
def test_vacation_by_default_wherever_the_pace_allows(
    client: TestClient, make_user: MakeUser, pace: object, vacation: bool | None, expected: bool
) -> None:
    me = make_user("maker")
    body: dict[str, Any] = {"game": "boatzee", "seats": ["me", "open"], "pace": pace}
    if vacation is not None:
        body["vacation"] = vacation
    assert create(client, me, body)["vacation"] is expected


@pytest.mark.parametrize(
    ("pace", "says"),
    [
        ("live", "(live: 3 min 0 s)"),
        ({"initial": DAY - 1, "increment": 60, "cap": DAY}, "(custom: 23 h 59 min)"),
    ],
)
def test_vacation_asked_for_under_a_day_is_refused_and_creates_nothing(
    client: TestClient, make_user: MakeUser, pace: object, says: str
) -> None:
    me = make_user("hasty")
    answer = client.post(
        f"{API}/games",
        json={"game": "boatzee", "seats": ["me", "open"], "pace": pace, "vacation": True},
        headers=me,
    )
    assert answer.status_code == 422, answer.text
    assert answer.json()["code"] == "invalid_vacation"
    assert says in answer.json()["error"] and "pace under a day" in answer.json()["error"]
    assert client.get(f"{API}/games", headers=me).json() == []


def _token(html: str) -> str:
    found = re.search(r'name="csrf_token" value="([^"]*)"', html)
    assert found, "the page has no CSRF field"
    return found.group(1)


def test_the_form_leaves_vacation_off_at_the_live_pace(client: TestClient) -> None:
    signed = client.post(
        "/signup",
        data={
            "csrf_token": _token(client.get("/signup").text),
            "user_id": "fern",
            "password": "correct horse 42",
        },
        follow_redirects=False,
    )
    assert signed.status_code == 303, signed.text
    form = client.get("/new/boatzee").text
    assert re.search(r'<option value="live"[^>]* data-no-vacation>', form)
    assert not re.search(r'<option value="daily"[^>]* data-no-vacation', form)
    assert re.search(r'id="f-vacation"[^>]* checked', form)  # ticked by default
    csrf = _token(form)
    made = {}
    for pace in ("live", "daily"):
        # The box ticked as it comes (a browser without scripts sends it at any pace).
        sent = {"csrf_token": csrf, "opp1": "open", "pace": pace, "vacation": "on"}
        answer = client.post("/new/boatzee", data=sent, follow_redirects=False)
        assert answer.status_code == 303, answer.text
        made[pace] = client.get(f"{API}{answer.headers['location']}").json()["vacation"]
    assert made == {"live": False, "daily": True}
    # A form shown again at the live pace has the box off and disabled.
    again = client.post("/new/boatzee", data={"csrf_token": csrf, "opp1": "x", "pace": "live"})
    assert again.status_code == 422
    box = re.search(r'<input id="f-vacation"[^>]*>', again.text)
    assert box and "disabled" in box.group(0) and "checked" not in box.group(0)
