"""The header's bell in Chromium: its count of unread notifications follows pushes on any
page (a board's own socket included), opening the notifications page from the keyboard
clears it on every page, and the page and the profile's vacation form fit a phone."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.live import LiveServer
from tests.web.conftest import accept_game_api, create_game_api, shoot, signup_api


def play_until(context: BrowserContext, csrf: str, game_id: int, seat: int) -> None:
    """Play with the first legal move each time until seat ``seat`` is to act."""
    for _ in range(300):
        game = context.request.get(f"/api/v1/games/{game_id}").json()
        if game["to_act"] == seat:
            return
        moved = context.request.post(
            f"/api/v1/games/{game_id}/actions",
            data={"action": game["legal"][0], "expected_version": game["version"]},
            headers={"X-CSRF-Token": csrf},
        )
        assert moved.ok, moved.text()
    raise AssertionError(f"the turn never came to seat {seat}")


def read_all(context: BrowserContext, csrf: str) -> None:
    """Mark every notification of the context's user read."""
    marked = context.request.post(
        "/api/v1/notifications/read", data={}, headers={"X-CSRF-Token": csrf}
    )
    assert marked.ok, marked.text()


def no_sideways_scroll(page: Page) -> bool:
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"))


def test_the_bell_counts_unread_notifications_live(
    page: Page, browser: Browser, site: LiveServer
) -> None:
    csrf = signup_api(page.context, "belle")
    other = browser.new_context(base_url=site.base, bypass_csp=True)
    try:
        ringo = signup_api(other, "ringo")
        # Boatzee's first seat always acts first (a Ten Thousand bust would pass the turn).
        game_id = create_game_api(other, ringo, "boatzee", ["me", "belle"])
        accept_game_api(page.context, csrf, game_id)
        read_all(page.context, csrf)  # the invitation's notice: the count starts at none
        page.goto("/")
        page.wait_for_function("document.body.dataset.live === 'on'")
        bell = page.locator("#bell-count")
        expect(bell).to_be_hidden()
        # A second page of mine, to see it follow what the first one does.
        second = page.context.new_page()
        second.goto("/status")
        second.wait_for_function("document.body.dataset.live === 'on'")

        play_until(other, ringo, game_id, 1)  # the game becomes my turn
        expect(bell).to_contain_text("1")
        expect(bell).to_be_visible()
        expect(second.locator("#bell-count")).to_contain_text("1")
        said = rf"ringo moved in Boatzee: your turn, \d+ d \d+ h left \(game {game_id} with "
        said += r"ringo\)"
        expect(page.locator("#bell-live")).to_contain_text(re.compile(said))
        expect(
            page.get_by_role("link", name=re.compile(r"^Notifications, unread: 1"))
        ).to_be_visible()

        # From the keyboard: the bell is a link like the others.
        page.locator("#bell").focus()
        page.keyboard.press("Enter")
        expect(page).to_have_url(re.compile(r"/notifications$"))
        expect(page.get_by_role("heading", name="Notifications")).to_be_visible()
        mine = page.locator(".notification.new")
        expect(mine).to_have_count(1)
        expect(mine).to_contain_text(
            re.compile(r"ringo moved in Boatzee: your turn, \d+ d \d+ h left")
        )
        expect(mine).to_contain_text(f"Boatzee #{game_id} with ringo")
        expect(mine.get_by_role("link")).to_have_attribute("href", f"/games/{game_id}")
        # Opening the page read them: the bell clears here and on my other page.
        expect(bell).to_be_hidden()
        expect(second.locator("#bell-count")).to_be_hidden()
        shoot(page, "page-notifications")
        page.set_viewport_size({"width": 375, "height": 800})
        expect(page.locator("#bell")).to_be_visible()
        assert no_sideways_scroll(page)
        shoot(page, "page-notifications-phone")
        page.set_viewport_size({"width": 1100, "height": 900})

        # On a board (which has its own socket) the bell follows too.
        page.goto(f"/games/{game_id}")
        page.wait_for_function("document.body.dataset.live === 'on'")
        expect(page.locator("#bell-count")).to_be_hidden()
        play_until(page.context, csrf, game_id, 0)
        play_until(other, ringo, game_id, 1)
        expect(page.locator("#bell-count")).to_contain_text("1")
        second.close()
    finally:
        other.close()


def test_the_profile_vacation_form_works_from_the_keyboard_at_phone_width(page: Page) -> None:
    signup_api(page.context, "nomad")
    page.set_viewport_size({"width": 375, "height": 800})
    page.goto("/profile")
    expect(page.get_by_role("heading", name="Vacation")).to_be_visible()
    expect(page.locator("#vacation-left")).to_have_text("7 d 0 h")
    days = page.get_by_label("Days", exact=True)
    days.fill("12")
    days.press("Enter")  # submits the form
    problem = page.locator("#f-away_days-error")
    expect(problem).to_contain_text("7.0 days of vacation left")
    expect(days).to_have_attribute("aria-invalid", "true")
    assert no_sideways_scroll(page)
    shoot(page, "page-profile-vacation-error-phone")
    page.get_by_label("Days", exact=True).fill("1")
    page.get_by_label("Hours", exact=True).fill("6")
    page.get_by_role("button", name="Announce my absence").click()
    expect(page.locator("#away-now")).to_contain_text("You are away until")
    expect(page.locator("#vacation-left")).to_have_text("5 d 18 h")
    assert no_sideways_scroll(page)
    shoot(page, "page-profile-vacation-phone")
    page.get_by_role("button", name="I am back: end my absence").click()
    expect(page.locator("#away-now")).to_have_count(0)
    expect(page.locator("#vacation-left")).to_have_text("7 d 0 h")
