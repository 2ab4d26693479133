"""The tournament pages in Chromium: a player creates a cup through the form (from the
keyboard, a mistake first), joins it from its page; a second player joins through the API
and the page, left open, shows them at once, the cup starting and its first round's game;
a visitor's open page (under the site's Content-Security-Policy) follows along; when the
game ends the standings update without a reload. Screenshots at desktop width and at
360 px, where nothing scrolls sideways but the tables' own boxes."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, Page, expect

from tests.live import LiveServer
from tests.web.conftest import shoot, signup_api
from tests.web.test_notifications_bell import no_sideways_scroll


def test_a_cup_made_through_the_form_updates_live(
    page: Page, browser: Browser, site: LiveServer
) -> None:
    signup_api(page.context, "ann")
    page.goto("/tournaments")
    page.get_by_role("link", name="Create a tournament").click()
    expect(page).to_have_url(re.compile(r"/tournaments/new$"))

    # The game first: its options come with it.
    page.get_by_label("Game", exact=True).select_option(label="Boss Dice")
    page.get_by_role("button", name="Choose this game").click()
    expect(page.get_by_role("group", name="A Boss Dice tournament")).to_be_visible()
    page.get_by_label("Name").fill("Lunch cup")
    page.get_by_label("Cup", exact=True).check()
    page.locator("#f-size").fill("two")
    page.get_by_label("Pace").select_option("live")
    page.get_by_role("button", name="Create the tournament").click()
    expect(page.locator("#f-size-error")).to_contain_text("whole number")
    expect(page.get_by_label("Name")).to_have_value("Lunch cup")
    shoot(page, "page-tournament-new-error")
    size = page.locator("#f-size")
    size.fill("2")
    size.press("Enter")  # submits from the keyboard
    expect(page).to_have_url(re.compile(r"/tournaments/\d+\?created=1$"))
    path = re.sub(r"\?.*$", "", page.url.split(site.base, 1)[1])
    expect(page.get_by_role("heading", name="Lunch cup")).to_be_visible()

    join = page.get_by_role("button", name="Join the tournament")
    join.focus()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"\?joined=1$"))
    expect(page.get_by_test_id("standing-ann")).to_be_visible()
    expect(page.get_by_test_id("t-players")).to_have_text("1 of 2")
    expect(page.locator("#t-notice")).to_have_text("You joined the tournament.")
    page.wait_for_function("document.body.dataset.live === 'on'")

    # The visitor's browser keeps the site's Content-Security-Policy: tournament.js runs
    # under it.
    visitor_context = browser.new_context(base_url=site.base)
    refused: list[str] = []
    other = browser.new_context(base_url=site.base, bypass_csp=True)
    try:
        watcher = visitor_context.new_page()
        watcher.on(
            "console",
            lambda m: refused.append(m.text) if "Content Security Policy" in m.text else None,
        )
        watcher.goto(path)
        expect(watcher.locator("#t-actions").get_by_role("link", name="Log in")).to_be_visible()
        expect(watcher.locator("body")).to_have_attribute("data-live", "on")

        bob = signup_api(other, "bob")
        tournament_id = int(path.rsplit("/", 1)[1])
        joined = other.request.post(
            f"/api/v1/tournaments/{tournament_id}/join", headers={"X-CSRF-Token": bob}
        )
        assert joined.ok, joined.text()
        # Full: the site's job starts it; both open pages show bob and the first round.
        for seen in (page, watcher):
            expect(seen.get_by_test_id("standing-bob")).to_be_visible()
            expect(seen.get_by_test_id("t-state")).to_have_text(re.compile("^round 1"))
            expect(seen.get_by_test_id("table-1-1")).to_contain_text("playing")
        expect(page.locator("#tournament-live")).to_contain_text("The standings were updated")
        expect(page.locator("#t-notice")).to_have_count(0)  # old news once round 1 runs
        link = page.get_by_test_id("table-1-1").get_by_role("link", name=re.compile(r"^Game "))
        game_id = int(link.inner_text().split()[-1])
        expect(page.get_by_role("button", name="Withdraw")).to_be_visible()
        shoot(page, "page-tournament-running")
        status = page.context.new_page()
        status.goto("/status")
        mark = status.get_by_test_id(f"tournament-mark-{game_id}")
        expect(mark).to_contain_text("Tournament Lunch cup, round 1, deadline")
        shoot(status, "page-status-tournament")
        status.close()

        # Bob resigns: the cup is over, with no reload.
        version = other.request.get(f"/api/v1/games/{game_id}").json()["version"]
        resigned = other.request.post(
            f"/api/v1/games/{game_id}/resign",
            data={"expected_version": version},
            headers={"X-CSRF-Token": bob},
        )
        assert resigned.ok, resigned.text()
        for seen in (page, watcher):
            expect(seen.get_by_test_id("t-state")).to_have_text("finished")
            expect(seen.get_by_test_id("points-ann")).to_have_text("2")
            expect(seen.get_by_test_id("points-bob")).to_have_text("0")
            expect(seen.get_by_test_id("table-1-1")).to_contain_text("finished")
        expect(page.get_by_test_id("standing-ann").locator("td.place")).to_have_text("1")
        assert refused == []
        expect(page.get_by_role("button", name="Withdraw")).to_have_count(0)
        shoot(page, "page-tournament")

        page.set_viewport_size({"width": 360, "height": 800})
        page.reload()
        assert no_sideways_scroll(page)
        standings = page.get_by_role("region", name="Standings table")
        standings.focus()  # a wide table's box scrolls from the keyboard
        expect(standings).to_be_focused()
        shoot(page, "page-tournament-phone")
        page.goto("/tournaments")
        expect(page.get_by_test_id(f"tournament-{tournament_id}")).to_be_visible()
        assert no_sideways_scroll(page)
        shoot(page, "page-tournaments-phone")
        page.goto("/tournaments/new")
        assert no_sideways_scroll(page)
        shoot(page, "page-tournament-new-phone")
        page.goto("/users/ann")
        expect(page.get_by_test_id(f"result-{tournament_id}")).to_contain_text("1 of 2")
        assert no_sideways_scroll(page)
        page.set_viewport_size({"width": 1100, "height": 900})
        page.goto("/tournaments")
        shoot(page, "page-tournaments")
    finally:
        visitor_context.close()
        other.close()
