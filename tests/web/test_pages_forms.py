"""The HTML forms without a browser: validation, CSRF, and what is kept when a form fails."""

from __future__ import annotations

import html as html_lib
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from dicehall import games
from dicehall.server.app import create_app
from dicehall.server.models import DiceBatch
from dicehall.server.services import Services, build_services
from dicehall.server.web.markdown import to_html
from tests.server.conftest import site_settings


@pytest.fixture
def services(tmp_path: Path) -> Iterator[Services]:
    built = build_services(site_settings(f"sqlite:///{tmp_path}/pages.sqlite3"))
    try:
        yield built
    finally:
        built.engine.dispose()


@pytest.fixture
def web(services: Services) -> Iterator[TestClient]:
    """A test client of the site on SQLite (no redirects followed, so they can be checked)."""
    with TestClient(create_app(services=services), follow_redirects=False) as client:
        yield client


def _token(html: str) -> str:
    found = re.search(r'name="csrf_token" value="([^"]*)"', html)
    assert found, "the form has no CSRF field"
    return found.group(1)


def _signup(web: TestClient, user_id: str, password: str = "correct horse 42") -> str:
    token = _token(web.get("/signup").text)
    answer = web.post(
        "/signup", data={"csrf_token": token, "user_id": user_id, "password": password}
    )
    assert answer.status_code == 303, answer.text
    return _token(web.get("/profile").text)


def _error_of(html: str, field: str) -> str:
    found = re.search(rf'<p class="field-error" id="f-{field}-error">(.*?)</p>', html, re.S)
    assert found, f"no error next to {field}"
    return html_lib.unescape(re.sub(r"<[^>]+>", "", found.group(1)))


def test_signup_errors_sit_next_to_their_fields_and_keep_the_input(web: TestClient) -> None:
    token = _token(web.get("/signup").text)
    answer = web.post(
        "/signup",
        data={"csrf_token": token, "user_id": "9lives", "display_name": "Nine", "password": "x"},
    )
    assert answer.status_code == 422
    assert "start with a letter" in _error_of(answer.text, "user_id")
    assert 'value="9lives"' in answer.text and 'value="Nine"' in answer.text
    assert 'aria-describedby="f-user_id-hint f-user_id-error"' in answer.text
    assert "at least 8 characters" in _error_of(answer.text, "password")  # all rules at once
    assert 'value="x"' not in answer.text  # the password is never sent back
    answer = web.post("/signup", data={"csrf_token": token, "user_id": "nina", "password": "short"})
    assert "at least 8 characters" in _error_of(answer.text, "password")


def test_signup_without_the_form_token_changes_nothing(web: TestClient) -> None:
    web.get("/signup")
    answer = web.post(
        "/signup", data={"csrf_token": "forged", "user_id": "mallory", "password": "long enough 1"}
    )
    assert answer.status_code == 422
    assert "expired" in answer.text
    assert web.get("/api/v1/users/mallory").status_code == 404


def test_taken_user_id_and_wrong_login(web: TestClient) -> None:
    _signup(web, "Alice")
    web.cookies.clear()
    token = _token(web.get("/signup").text)
    answer = web.post(
        "/signup", data={"csrf_token": token, "user_id": "alice", "password": "another one 9"}
    )
    assert "taken" in _error_of(answer.text, "user_id")
    token = _token(web.get("/login").text)
    answer = web.post(
        "/login", data={"csrf_token": token, "user_id": "alice", "password": "wrong password"}
    )
    assert answer.status_code == 422
    assert "Wrong user id or password" in _error_of(answer.text, "password")
    assert 'value="alice"' in answer.text
    answer = web.post(
        "/login",
        data={"csrf_token": token, "user_id": "alice", "password": "correct horse 42",
              "next": "//evil.example/"},
    )  # fmt: skip
    assert answer.status_code == 303 and answer.headers["location"] == "/status"


def test_pages_need_a_session_and_member_forms_need_its_token(web: TestClient) -> None:
    for path in ("/status", "/new", "/new/boss", "/profile", "/password"):
        answer = web.get(path)
        assert answer.status_code == 303 and answer.headers["location"].startswith("/login?next=")
    _signup(web, "bob")
    answer = web.post("/profile", data={"csrf_token": "nope", "display_name": "Hacked"})
    assert answer.status_code == 422 and "expired" in answer.text
    assert web.get("/api/v1/users/bob").json()["display_name"] == "bob"
    answer = web.post("/logout", data={"csrf_token": "nope"})
    assert answer.status_code == 403
    assert web.get("/status").status_code == 200


def test_new_game_form_errors(web: TestClient) -> None:
    csrf = _signup(web, "carol")
    answer = web.post(
        "/new/boatzee",
        data={"csrf_token": csrf, "opp1": "user", "user1": "nobody-here", "opt_columns": "4",
              "opt_ruleset": "boatzee"},
    )  # fmt: skip
    assert answer.status_code == 422
    assert "must be 1, 2 or 3" in _error_of(answer.text, "opt_columns")
    assert 'value="nobody-here"' in answer.text
    answer = web.post(
        "/new/boatzee",
        data={"csrf_token": csrf, "opp1": "user", "user1": "nobody-here", "opt_columns": "2",
              "opt_ruleset": "boatzee"},
    )  # fmt: skip
    assert "no user 'nobody-here'" in _error_of(answer.text, "user1")
    answer = web.post("/new/boss", data={"csrf_token": csrf, "opp1": "none", "opt_horses": "2"})
    assert "needs 1 opponent, not 0" in _error_of(answer.text, "opp1")
    answer = web.post(
        "/new/boss", data={"csrf_token": csrf, "opp1": "bot:random", "opt_horses": "two"}
    )
    assert "whole number" in _error_of(answer.text, "opt_horses")
    answer = web.post(
        "/new/boss", data={"csrf_token": csrf, "opp1": "bot:random", "opt_horses": "1"}
    )
    assert answer.status_code == 303 and answer.headers["location"].startswith("/games/")
    assert web.get(answer.headers["location"]).status_code == 200


def test_every_game_has_a_new_game_form_and_a_rules_page(web: TestClient) -> None:
    _signup(web, "dave")
    for name in games.available():
        form = web.get(f"/new/{name}")
        assert form.status_code == 200
        assert 'name="opp1"' in form.text
        rules = web.get(f"/rules/{name}")
        assert rules.status_code == 200 and "<h1>" in rules.text
    assert web.get("/rules/chess").status_code == 404
    assert web.get("/games/999").status_code == 404


def test_markdown_escapes_raw_html() -> None:
    html = to_html("# Hi\n\n<script>alert(1)</script> [x](javascript:alert(1)) **b**")
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert 'href="javascript' not in html
    assert "<strong>b</strong>" in html


def test_password_change_errors(web: TestClient) -> None:
    csrf = _signup(web, "erin")
    answer = web.post(
        "/password",
        data={"csrf_token": csrf, "old_password": "not it at all", "new_password": "fresh pass 77",
              "confirm_password": "fresh pass 77"},
    )  # fmt: skip
    assert "not your current password" in _error_of(answer.text, "old_password")
    answer = web.post(
        "/password",
        data={"csrf_token": csrf, "old_password": "correct horse 42",
              "new_password": "fresh pass 77", "confirm_password": "fresh pass 78"},
    )  # fmt: skip
    assert "differ" in _error_of(answer.text, "confirm_password")
    answer = web.post(
        "/password",
        data={"csrf_token": csrf, "old_password": "correct horse 42", "new_password": "erin",
              "confirm_password": "erin"},
    )  # fmt: skip
    assert "at least 8" in _error_of(answer.text, "new_password")
    answer = web.post(
        "/password",
        data={"csrf_token": csrf, "old_password": "correct horse 42",
              "new_password": "fresh pass 77", "confirm_password": "fresh pass 77"},
    )  # fmt: skip
    assert answer.status_code == 200 and "Your password is changed" in answer.text


def test_fairness_page_counts_revealed_dice_only(web: TestClient, services: Services) -> None:
    page = web.get("/fairness")
    assert page.status_code == 200 and "No batch is revealed yet" in page.text
    assert "dicehall verify-dice batch.json" in page.text
    with services.write() as db:
        batch = db.get(DiceBatch, 1)
        assert batch is not None
        batch.revealed, batch.revealed_at = True, batch.created_at
    page = web.get("/fairness")
    assert "p-value" in page.text and "χ² =" in page.text
    assert 'href="/api/v1/fairness/batches/1"' in page.text
    assert f"{40 * 6} dice from 1 revealed batch." in page.text


def test_profile_reports_both_fields_and_waiting_room_join_errors(web: TestClient) -> None:
    csrf = _signup(web, "fern")
    answer = web.post(
        "/profile", data={"csrf_token": csrf, "display_name": "x" * 41, "about": "bell\x07"}
    )
    assert "at most 40" in _error_of(answer.text, "display_name")
    assert "control characters" in _error_of(answer.text, "about")
    answer = web.post("/new/boss", data={"csrf_token": csrf, "opp1": "open", "opt_horses": "2"})
    game = answer.headers["location"].rsplit("/", 1)[1]
    room = web.get("/waiting").text
    assert f"Boss Dice #{game}" in room and "You are seated" in room
    answer = web.post(f"/waiting/{game}/join", data={"csrf_token": csrf})
    assert answer.status_code == 409
    assert f'id="join-{game}-error"' in answer.text and "already have a seat" in answer.text


def test_waiting_room_names_the_house_rules(web: TestClient) -> None:
    from dicehall.server.web.pages import house_rules

    csrf = _signup(web, "gwen")
    answer = web.post("/new/boss", data={"csrf_token": csrf, "opp1": "open", "opt_horses": "3"})
    game = answer.headers["location"].rsplit("/", 1)[1]
    room = web.get("/waiting").text
    assert f"Boss Dice #{game}" in room and "horses 3" in room
    assert house_rules("boss", {"type": "boss_options", "horses": 2, "max_pickups": None}) == (
        "standard rules"
    )
    assert house_rules("boatzee", {"columns": 3, "ruleset": "yahtzee"}) == (
        "columns 3, ruleset yahtzee"
    )
