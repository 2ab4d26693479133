"""The buddy and ignore lists without a browser: adding with a private note, "mutual", a
clear error next to its field (unknown user, myself, note too long) with the input kept,
removing, an expired form, and notes rendered as text."""

from __future__ import annotations

import httpx2
from fastapi.testclient import TestClient

from dicehall.server.domain.services import Services
from tests.live import add_user
from tests.web.test_pages_forms import _error_of, _signup


def _add(web: TestClient, csrf: str, kind: str, user_id: str, note: str = "") -> httpx2.Response:
    return web.post(
        "/relations", data={"csrf_token": csrf, "kind": kind, "user_id": user_id, "note": note}
    )


def test_a_buddy_is_added_with_a_note_and_shown_mutual_later(
    web: TestClient, services: Services
) -> None:
    add_user(services, "bea", services.hasher.hash("correct horse battery"))
    csrf = _signup(web, "ada")
    answer = _add(web, csrf, "buddy", "BEA", "plays <b>fast</b>")
    assert answer.status_code == 303 and answer.headers["location"] == "/buddies?saved=bea"
    listed = web.get("/buddies?saved=bea").text
    assert 'href="/users/bea"' in listed and "Saved: bea is on your buddy list" in listed
    assert "plays &lt;b&gt;fast&lt;/b&gt;" in listed and "<b>fast</b>" not in listed
    assert "mutual" not in listed.split('<ul class="relations">')[1].split("</ul>")[0]
    assert "Nobody yet" in web.get("/ignored").text


def test_mistakes_are_shown_next_to_their_field_and_keep_the_input(web: TestClient) -> None:
    csrf = _signup(web, "ada")
    unknown = _add(web, csrf, "ignore", "ghost", "keep me")
    assert unknown.status_code == 422
    assert "no user" in _error_of(unknown.text, "user_id")
    assert 'value="keep me"' in unknown.text
    myself = _add(web, csrf, "ignore", "ada")
    assert "yourself" in _error_of(myself.text, "user_id")
    empty = _add(web, csrf, "buddy", "  ")
    assert "user id" in _error_of(empty.text, "user_id")
    expired = _add(web, "wrong token", "buddy", "ada")
    assert expired.status_code == 422 and "expired" in expired.text
    assert "Nobody yet" in web.get("/buddies").text


def test_a_note_too_long_is_refused_next_to_the_note(web: TestClient, services: Services) -> None:
    add_user(services, "bea", services.hasher.hash("correct horse battery"))
    csrf = _signup(web, "ada")
    answer = _add(web, csrf, "buddy", "bea", "n" * 201)
    assert answer.status_code == 422
    assert "200 characters" in _error_of(answer.text, "note")


def test_removing_from_the_ignore_list(web: TestClient, services: Services) -> None:
    add_user(services, "bea", services.hasher.hash("correct horse battery"))
    csrf = _signup(web, "ada")
    assert _add(web, csrf, "ignore", "bea").status_code == 303
    assert 'href="/users/bea"' in web.get("/ignored").text
    removed = web.post(
        "/relations/remove", data={"csrf_token": csrf, "kind": "ignore", "user_id": "bea"}
    )
    assert removed.status_code == 303 and removed.headers["location"] == "/ignored?removed=1"
    assert 'href="/users/bea"' not in web.get("/ignored").text


def test_visitors_are_sent_to_log_in(web: TestClient) -> None:
    answer = web.get("/buddies")
    assert answer.status_code == 303 and answer.headers["location"].startswith("/login")


def test_a_profiles_new_game_button_invites_its_owner(web: TestClient, services: Services) -> None:
    add_user(services, "bea", services.hasher.hash("correct horse battery"))
    _signup(web, "ada")
    profile = web.get("/users/bea").text
    assert 'href="/new?opponent=bea"' in profile
    pick = web.get("/new?opponent=bea").text
    assert "play with bea?" in pick and 'href="/new/boss?opponent=bea"' in pick
    form = web.get("/new/boss?opponent=bea").text
    assert 'id="f-user1"' in form and 'value="bea"' in form
    chosen = form.split('id="f-opp1"')[1].split("</select>")[0]
    assert '<option value="user" selected' in chosen
    odd = web.get("/new/boss?opponent=%3Cb%3E").text
    assert "<b>" not in odd and 'value="&lt;b&gt;"' in odd
