"""Vacation and notifications pages without a browser: the profile's absence form (announce,
a clear error for too long an absence, come back), the public profile showing the absence,
and the notifications page marking what it shows read."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from dicehall.server.core.models import User
from dicehall.server.domain import notifications
from dicehall.server.domain.services import Services
from tests.web.test_pages_forms import _error_of, _signup

API = "/api/v1"


def _allowance(web: TestClient) -> float:
    seconds: float = web.get(f"{API}/users/me/vacation").json()["allowance_seconds"]
    return seconds


def test_the_profile_announces_and_ends_an_absence(web: TestClient) -> None:
    csrf = _signup(web, "rover")
    profile = web.get("/profile").text
    assert 'id="vacation"' in profile and "7 d 0 h" in profile
    assert "Announce my absence" in profile and "I am back" not in profile
    answer = web.post(
        "/profile/away", data={"csrf_token": csrf, "away_days": "2", "away_hours": "3"}
    )
    assert answer.status_code == 303 and answer.headers["location"] == "/profile?away=1#vacation"
    assert _allowance(web) == pytest.approx(7 * 86400 - (2 * 86400 + 3 * 3600), abs=30)
    profile = web.get("/profile?away=1").text
    assert "Your absence is announced" in profile
    assert 'id="away-now"' in profile and "4 d 21 h" in profile
    public = web.get("/users/rover").text
    assert 'id="away-until"' in public
    assert web.get(f"{API}/users/me/vacation").json()["away_until"][:16] in public
    answer = web.post("/profile/back", data={"csrf_token": csrf})
    assert answer.status_code == 303 and answer.headers["location"] == "/profile?back=1#vacation"
    assert _allowance(web) == pytest.approx(7 * 86400, abs=30)
    profile = web.get("/profile?back=1").text
    assert "Welcome back" in profile and 'id="away-now"' not in profile
    assert 'id="away-until"' not in web.get("/users/rover").text


def test_too_long_an_absence_is_refused_clearly(web: TestClient) -> None:
    csrf = _signup(web, "dreamer")
    answer = web.post(
        "/profile/away", data={"csrf_token": csrf, "away_days": "10", "away_hours": "0"}
    )
    assert answer.status_code == 422
    error = _error_of(answer.text, "away_days")
    assert "7.0 days of vacation left" in error and "needs 10.0" in error
    assert 'value="10"' in answer.text  # what was typed is kept
    assert 'id="form-problems"' in answer.text
    assert _allowance(web) == pytest.approx(7 * 86400, abs=1)
    for days, hours, message in (
        ("0", "0", "at least one hour"),
        ("31", "0", "from 0 to 30"),
        ("two", "0", "whole number of days"),
        ("1", "24", "from 0 to 23"),
    ):
        answer = web.post(
            "/profile/away", data={"csrf_token": csrf, "away_days": days, "away_hours": hours}
        )
        assert answer.status_code == 422
        field = "away_hours" if hours == "24" else "away_days"
        assert message in _error_of(answer.text, field)
    answer = web.post("/profile/away", data={"csrf_token": "forged", "away_days": "1"})
    assert answer.status_code == 422 and "expired" in answer.text
    answer = web.post("/profile/back", data={"csrf_token": "forged"})
    assert answer.status_code == 422 and "expired" in answer.text
    assert web.get(f"{API}/users/me/vacation").json()["away_until"] is None


def test_the_notifications_page_lists_newest_first_and_marks_them_read(
    web: TestClient, services: Services
) -> None:
    _signup(web, "reader")
    with services.sessions() as db:
        user_pk = db.scalar(select(User.id).where(User.user_id == "reader"))
    assert user_pk is not None
    assert "Nothing yet" in web.get("/notifications").text
    with services.write_conn() as conn:
        for n in range(35):
            notifications.add(conn, user_pk, "your_turn", None, f"Note number {n}.")
    assert web.get(f"{API}/notifications").json()["unread"] == 35
    first = web.get("/notifications").text
    assert first.index("Note number 34.") < first.index("Note number 5.")
    assert "Note number 4." not in first  # on the next page
    assert first.count('class="tag">New') == 30
    # Opening the page marked everything it showed (and older) read.
    assert web.get(f"{API}/notifications").json()["unread"] == 0
    assert 'class="tag">New' not in web.get("/notifications").text
    older = web.get(f"{API}/notifications?limit=30").json()["next"]
    second = web.get(f"/notifications?before={older}").text
    assert "Note number 4." in second and "Note number 5." not in second
    assert "Newest notifications" in second
    assert web.get("/notifications?before=nonsense").status_code == 200
    web.cookies.clear()
    answer = web.get("/notifications")
    assert answer.status_code == 303 and answer.headers["location"].startswith("/login?next=")
