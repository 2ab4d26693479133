"""Tell a friend in the browser: a member makes a link for an open seat and copies it; a
visitor opens it in a fresh browser, signs up on the page it opens and lands in the seat of
the started game; the maker's list follows live, and the two are buddies. Without a browser:
the forms' errors, the links that no longer work saying why, accepting as a member, and the
inviter's name rendered inert."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from playwright.sync_api import Browser, Page, expect
from sqlalchemy import select, update

from dicehall.server.core.clock import now
from dicehall.server.core.models import User
from dicehall.server.domain.people import invites, relations
from dicehall.server.domain.services import Services
from tests.live import LiveServer, add_user
from tests.web.conftest import create_game_api, shoot, signup_api
from tests.web.test_notifications_bell import no_sideways_scroll
from tests.web.test_pages_forms import _error_of, _signup, _token

API = "/api/v1"
PASSWORD = "correct horse 42"


def test_an_invite_link_brings_a_new_player_into_the_seat(
    page: Page, browser: Browser, site: LiveServer
) -> None:
    csrf = signup_api(page.context, "ann")
    game_id = create_game_api(page.context, csrf, "boatzee", ["me", "open"])
    page.goto("/invites")
    page.wait_for_function("document.body.dataset.live === 'on'")
    page.get_by_label("Invite to").select_option(label=f"Game {game_id}, Boatzee: seat 2 of 2")
    page.get_by_role("button", name="Make a link").click()
    link_field = page.locator("#invite-link")
    expect(page.locator("#new-link")).to_be_focused()  # ready to copy, from the keyboard too
    link = link_field.input_value()
    assert re.fullmatch(rf"{re.escape(site.base)}/i/[\w.-]+", link), link
    page.get_by_role("button", name="Copy link").click()
    expect(page.locator("#copy-status")).to_contain_text(re.compile(r"copied|selected"))
    shoot(page, "invites-desktop")
    page.wait_for_function("document.body.dataset.live === 'on'")

    friend = browser.new_context(
        base_url=site.base, viewport={"width": 1100, "height": 900}, bypass_csp=True
    )
    try:
        visitor = friend.new_page()
        visitor.goto(link)
        expect(visitor.get_by_role("heading", level=1)).to_have_text("ann invites you")
        expect(visitor.locator("main")).to_contain_text(f"seat 2 of game {game_id}")
        shoot(visitor, "invite-landing-desktop")
        visitor.set_viewport_size({"width": 390, "height": 844})
        assert no_sideways_scroll(visitor)
        shoot(visitor, "invite-landing-phone")
        visitor.get_by_label("User id").fill("bob")
        visitor.get_by_label("Password", exact=True).fill(PASSWORD)
        visitor.get_by_label("Repeat the password").fill(PASSWORD)
        expect(visitor.get_by_label("Make ann my buddy")).to_be_checked()
        visitor.get_by_role("button", name="Create my account and take the seat").click()
        visitor.wait_for_url(f"**/games/{game_id}")
        seen = friend.request.get(f"{API}/games/{game_id}").json()
        assert (seen["status"], seen["my_seat"]) == ("active", 1)
        assert [s["user"] for s in seen["seats"]] == ["ann", "bob"]

        # The maker's open page hears of it and shows who accepted.
        expect(page.locator("#invites-live")).to_contain_text("bob accepted your invite")
        expect(page.locator("td.invite-state")).to_contain_text("Accepted by bob")
        for context, other in ((page.context, "bob"), (friend, "ann")):
            found = context.request.get(f"{API}/relations?kind=buddy").json()["relations"]
            assert [(r["user_id"], r["mutual"]) for r in found] == [(other, True)]
    finally:
        friend.close()
    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    assert no_sideways_scroll(page)
    shoot(page, "invites-phone")


def test_the_copy_button_works_under_the_sites_own_policy(
    browser: Browser, site: LiveServer
) -> None:
    strict = browser.new_context(base_url=site.base)  # no CSP bypass here
    try:
        refused: list[str] = []
        page = strict.new_page()
        page.on(
            "console",
            lambda m: refused.append(m.text) if "Content Security Policy" in m.text else None,
        )
        signup_api(strict, "strict")
        page.goto("/invites")
        page.get_by_role("button", name="Make a link").click()
        page.get_by_role("button", name="Copy link").press("Enter")
        expect(page.locator("#copy-status")).to_contain_text(re.compile(r"copied|selected"))
        assert refused == []
    finally:
        strict.close()


# -- without a browser ---------------------------------------------------------------------------


def _made(web: TestClient, headers: dict[str, str], **body: Any) -> tuple[dict[str, Any], str]:
    answer = web.post(f"{API}/invites", json=body, headers=headers)
    assert answer.status_code == 201, answer.text
    made: dict[str, Any] = answer.json()
    return made, "/i/" + made["url"].rsplit("/i/", 1)[1]


def test_a_visitor_signs_up_on_the_landing_page_into_the_seat(
    web: TestClient, services: Services
) -> None:
    ann = add_user(services, "ann")
    created = web.post(
        f"{API}/games", json={"game": "boatzee", "seats": ["me", "open"]}, headers=ann
    )
    game_id = created.json()["id"]
    _, path = _made(web, ann, game_id=game_id)
    landing = web.get(path)
    assert landing.status_code == 200
    assert f'action="{path}/signup"' in landing.text and "Make ann my buddy" in landing.text
    form = {"csrf_token": _token(landing.text), "user_id": "bob", "make_buddies": "on"}
    # A mistake keeps what was typed and spends nothing.
    wrong = web.post(f"{path}/signup", data={**form, "password": "short"})
    assert wrong.status_code == 422
    assert "8" in _error_of(wrong.text, "password") and 'value="bob"' in wrong.text
    with services.read_conn() as conn:
        assert conn.execute(select(User.id).where(User.key == "bob")).first() is None
    answer = web.post(f"{path}/signup", data={**form, "password": PASSWORD})
    assert answer.status_code == 303 and answer.headers["location"] == f"/games/{game_id}"
    seen = web.get(f"{API}/games/{game_id}").json()  # as bob, by the new session's cookie
    assert (seen["status"], seen["my_seat"]) == ("active", 1)
    with services.read_conn() as conn:
        bob = conn.execute(select(User.id).where(User.key == "bob")).scalar_one()
        assert [r.user_id for r in relations.listing(conn, bob, "buddy")] == ["ann"]


def test_links_that_no_longer_work_say_why(
    web: TestClient, services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    ann, bob = add_user(services, "ann"), add_user(services, "bob")
    answer = web.get("/i/nothing.we.made")
    assert answer.status_code == 404 and "This invite link does not work" in answer.text
    assert web.get("/i/" + "x" * 300).status_code == 404
    withdrawn, path = _made(web, ann)
    assert web.delete(f"{API}/invites/{withdrawn['id']}", headers=ann).status_code == 200
    answer = web.get(path)
    assert answer.status_code == 410 and "This invite was withdrawn" in answer.text
    _, path = _made(web, ann)
    token = path.rsplit("/", 1)[1]
    accepted = web.post(f"{API}/invites/accept", json={"token": token}, headers=bob)
    assert accepted.status_code == 200
    answer = web.get(path)
    assert answer.status_code == 410 and "This invite has been used" in answer.text
    _, path = _made(web, ann)
    later = now() + timedelta(days=15)
    monkeypatch.setattr(invites, "now", lambda: later)
    answer = web.get(path)
    assert answer.status_code == 410 and "This invite has expired" in answer.text
    assert 'href="/signup"' in answer.text


def test_the_invites_page_makes_shows_and_withdraws_links(web: TestClient) -> None:
    csrf = _signup(web, "ann")
    assert "The site: no game" in web.get("/invites").text
    created = web.post(
        f"{API}/games",
        json={"game": "boatzee", "seats": ["me", "open"]},
        headers={"X-CSRF-Token": csrf},
    )
    game_id = created.json()["id"]
    page = web.get("/invites").text
    assert f'value="{game_id}:1"' in page and "seat 2 of 2" in page
    for target, message in (("999:1", "You have no seat in game 999"), ("1;x", "Choose the site")):
        answer = web.post("/invites", data={"csrf_token": csrf, "target": target})
        assert answer.status_code == 422 and message in _error_of(answer.text, "target")
    answer = web.post("/invites", data={"csrf_token": "forged", "target": "site"})
    assert answer.status_code == 422 and "expired" in answer.text
    answer = web.post("/invites", data={"csrf_token": csrf, "target": f"{game_id}:1"})
    assert answer.status_code == 303
    made = int(re.search(r"made=(\d+)", answer.headers["location"]).group(1))  # type: ignore[union-attr]
    page = web.get(f"/invites?made={made}").text
    link = re.search(r'id="invite-link"[^>]*value="([^"]+)"', page)
    assert link is not None and "(not as buddies)" in page  # the box was left unticked
    own = web.get(link.group(1).replace("http://testserver", ""))
    assert 'id="own-invite"' in own.text and "/accept" not in own.text
    answer = web.post(f"/invites/{made}/withdraw", data={"csrf_token": csrf})
    assert answer.status_code == 303
    assert "You have not invited anyone yet" in web.get("/invites").text
    assert web.get(link.group(1).replace("http://testserver", "")).status_code == 410


def test_a_member_accepts_with_the_button_and_names_are_inert(
    web: TestClient, services: Services
) -> None:
    ann = add_user(services, "ann")
    with services.write_conn() as conn:
        conn.execute(
            update(User).where(User.key == "ann").values(display_name="<img src=x onerror=boom()>")
        )
    _, path = _made(web, ann, make_buddies=False)
    csrf = _signup(web, "cyd")
    landing = web.get(path).text
    assert "<img src=x" not in landing and "&lt;img src=x onerror=boom()&gt;" in landing
    assert "my buddy" not in landing  # the inviter said no: nothing to ask
    answer = web.post(f"{path}/accept", data={"csrf_token": "forged"})
    assert answer.status_code == 422 and "expired" in answer.text
    answer = web.post(f"{path}/accept", data={"csrf_token": csrf})
    assert answer.status_code == 303 and answer.headers["location"] == "/status?invited=1"
    with services.read_conn() as conn:
        cyd = conn.execute(select(User.id).where(User.key == "cyd")).scalar_one()
        assert relations.listing(conn, cyd) == []
