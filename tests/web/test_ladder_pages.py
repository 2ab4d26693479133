"""The ladder pages: in Chromium, two players join a ladder, the lower one challenges from
the ladder page (the game starts at once), the higher one resigns, and the open ladder page
shows the swap live; without a browser, every form of the pages (join, leave, challenge,
vacation) with its notices and refusals, the record of moves, and the history filter."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient
from playwright.sync_api import Browser, Page, expect

from tests.live import LiveServer
from tests.web.conftest import shoot, signup_api
from tests.web.test_notifications_bell import no_sideways_scroll
from tests.web.test_pages_forms import _error_of, _signup

KIND = "boss"


def test_a_win_from_below_shows_as_a_swap_on_the_ladder_page(
    page: Page, browser: Browser, site: LiveServer
) -> None:
    csrf = signup_api(page.context, "climber")
    other = browser.new_context(base_url=site.base, bypass_csp=True)
    try:
        champ = signup_api(other, "champ")
        joined = other.request.post(f"/api/v1/ladders/{KIND}/join", headers={"X-CSRF-Token": champ})
        assert joined.ok and joined.json()["position"] == 1, joined.text()

        # The lower player joins from the list of ladders, from the keyboard.
        page.goto("/ladders")
        join = page.get_by_role("button", name="Join the Boss Dice ladder")
        join.focus()
        page.keyboard.press("Enter")
        expect(page).to_have_url(re.compile(rf"/ladders/{KIND}\?joined=1$"))
        expect(page.get_by_test_id("my-position")).to_contain_text("You are number 2")
        top = page.get_by_test_id("place-1")
        expect(top).to_have_attribute("data-user", "champ")

        # Challenge the player above: the game starts at once.
        top.get_by_role("button", name=re.compile("^Challenge champ")).click()
        notice = page.get_by_role("status").filter(has_text="Challenge made")
        expect(notice).to_be_visible()
        game_id = int(notice.get_by_role("link").inner_text().split()[-1])
        game = page.context.request.get(f"/api/v1/games/{game_id}").json()
        assert game["status"] == "active" and game["ladder"] and game["rating_kind"] == KIND
        mine = page.locator("ul.ladder-games")
        expect(mine.get_by_role("link", name=f"Game {game_id}")).to_be_visible()
        expect(mine).to_contain_text("you challenged champ")
        expect(top).to_contain_text("in a ladder game")
        shoot(page, "page-ladder-challenged")

        # The status page marks it as a ladder game.
        status = page.context.new_page()
        status.goto("/status")
        expect(status.get_by_test_id(f"ladder-mark-{game_id}")).to_have_text("ladder")
        status.close()

        # The higher player resigns; the ladder page, left open, shows the swap.
        page.wait_for_function("document.body.dataset.live === 'on'")
        version = other.request.get(f"/api/v1/games/{game_id}").json()["version"]
        resigned = other.request.post(
            f"/api/v1/games/{game_id}/resign",
            data={"expected_version": version},
            headers={"X-CSRF-Token": champ},
        )
        assert resigned.ok, resigned.text()
        expect(page.get_by_test_id("place-1")).to_have_attribute("data-user", "climber")
        expect(page.get_by_test_id("place-2")).to_have_attribute("data-user", "champ")
        expect(page.locator("#ladder-live")).to_contain_text("The ladder was updated")
        expect(page.get_by_test_id("my-position")).to_contain_text("You are number 1")
        moves = page.locator("ol.ladder-moves li")
        climbed = moves.filter(has_text="climber 2 → 1: climbed by a win")
        expect(climbed.get_by_role("link", name=f"game {game_id}")).to_be_visible()
        expect(moves.filter(has_text="champ 1 → 2: moved down by a win from below")).to_be_visible()
        assert csrf
        shoot(page, "page-ladder")
        page.set_viewport_size({"width": 390, "height": 844})
        expect(page.get_by_test_id("place-1")).to_be_visible()
        assert no_sideways_scroll(page)
        shoot(page, "page-ladder-phone")
        page.goto("/ladders")
        assert no_sideways_scroll(page)
        shoot(page, "page-ladders-phone")
        page.set_viewport_size({"width": 1100, "height": 900})
        shoot(page, "page-ladders")
    finally:
        other.close()


def test_the_ladder_forms_without_a_browser(web: TestClient) -> None:
    assert "Log in to join" in web.get("/ladders").text
    assert web.get("/ladders/chess").status_code == 404
    assert "Log in</a> to join this ladder" in web.get(f"/ladders/{KIND}").text
    csrf = _signup(web, "ann")
    listed = web.get("/ladders").text
    assert 'Join<span class="visually-hidden"> the Boss Dice ladder' in listed

    answer = web.post(f"/ladders/{KIND}/join", data={"csrf_token": csrf})
    assert answer.status_code == 303 and answer.headers["location"] == f"/ladders/{KIND}?joined=1"
    shown = web.get(answer.headers["location"]).text
    assert "You joined the ladder at the bottom." in shown and "You are number 1" in shown
    assert "You are number 1." in web.get("/ladders").text

    again = web.post(f"/ladders/{KIND}/join", data={"csrf_token": csrf})
    assert again.status_code == 409 and "You are on the Boss Dice ladder already." in again.text
    mine = web.post(f"/ladders/{KIND}/challenge", data={"csrf_token": csrf, "opponent": "ann"})
    assert mine.status_code == 422 and "You cannot challenge yourself." in mine.text
    nobody = web.post(f"/ladders/{KIND}/challenge", data={"csrf_token": csrf, "opponent": "zed"})
    assert nobody.status_code == 422 and "There is no user" in nobody.text
    forged = web.post(f"/ladders/{KIND}/join", data={"csrf_token": "forged"})
    assert forged.status_code == 422 and "expired" in forged.text

    too_long = web.post(f"/ladders/{KIND}/vacation", data={"csrf_token": csrf, "days": "40"})
    assert too_long.status_code == 422
    assert "from 1 to 30" in _error_of(too_long.text, "days")
    assert 'value="40"' in too_long.text
    taken = web.post(f"/ladders/{KIND}/vacation", data={"csrf_token": csrf, "days": "5"})
    assert taken.status_code == 303
    shown = web.get(taken.headers["location"]).text
    assert "Ladder vacation taken" in shown and "On ladder vacation until" in shown
    assert "25 of 30 days left this year" in shown
    no_more = web.post(f"/ladders/{KIND}/vacation", data={"csrf_token": csrf, "days": "26"})
    assert "25 days of ladder vacation left" in _error_of(no_more.text, "days")

    left = web.post(f"/ladders/{KIND}/leave", data={"csrf_token": csrf})
    assert left.status_code == 303 and left.headers["location"] == f"/ladders/{KIND}?left=1"
    shown = web.get(left.headers["location"]).text
    assert "You left the ladder" in shown and "You are not on this ladder." in shown
    stale = web.post(f"/ladders/{KIND}/vacation", data={"csrf_token": csrf, "days": "2"})
    assert stale.status_code == 409 and "You are not on the Boss Dice ladder." in stale.text
    moves = web.get(f"/ladders/{KIND}/history").text
    assert "left the ladder from 1" in moves and "joined at 1" in moves
    assert web.get("/ladders/chess/history").status_code == 404

    # The history page filters ladder games.
    assert web.get("/users/ann/games?kind=ladder").status_code == 200
    wrong = web.get("/users/ann/games?kind=friendly")
    assert wrong.status_code == 422 and "ladder games only" in _error_of(wrong.text, "kind")
    web.cookies.clear()
    gone = web.post(f"/ladders/{KIND}/join", data={"csrf_token": csrf})
    assert gone.status_code == 303 and gone.headers["location"].startswith("/login?next=")
