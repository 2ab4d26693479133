"""The bell in Chromium: one line per game (a second notice about a game replaces its
unread line, and the count does not grow for it), each line naming the game and the
opponents and saying how many updates it gathers; an invitation answered in place; times in
the user's zone; and on a board, "Next game (N waiting)" and the n key open the next game
waiting on me."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, Page, expect

from tests.live import LiveServer
from tests.web.conftest import accept_game_api, create_game_api, shoot, signup_api
from tests.web.test_notifications_bell import no_sideways_scroll, play_until, read_all

#: Collects the notifications pushed to the page, for the test to wait on.
COLLECT = """
window.__notes = [];
document.addEventListener("dicehall:push", (event) => {
  if (event.detail && event.detail.type === "notification") window.__notes.push(event.detail);
});
"""


def test_one_line_per_game_in_my_zone_and_n_opens_the_next_game(
    page: Page, browser: Browser, site: LiveServer
) -> None:
    csrf = signup_api(page.context, "belle")
    zone = page.context.request.patch(
        "/api/v1/users/me/settings",
        data={"time_zone": "Europe/Paris"},
        headers={"X-CSRF-Token": csrf},
    )
    assert zone.ok, zone.text()
    other = browser.new_context(base_url=site.base, bypass_csp=True)
    try:
        ringo = signup_api(other, "ringo")
        # Boatzee's first seat (ringo's) always acts first.
        first = create_game_api(other, ringo, "boatzee", ["me", "belle"])
        second = create_game_api(other, ringo, "boatzee", ["me", "belle"])
        for game_id in (first, second):
            accept_game_api(page.context, csrf, game_id)
        read_all(page.context, csrf)
        page.add_init_script(COLLECT)
        page.goto("/status")
        page.wait_for_function("document.body.dataset.live === 'on'")
        bell = page.locator("#bell-count")
        expect(bell).to_be_hidden()

        play_until(other, ringo, first, 1)
        page.wait_for_function("window.__notes.length === 1")
        expect(bell).to_contain_text("1")
        play_until(other, ringo, second, 1)
        page.wait_for_function("window.__notes.length === 2")
        expect(bell).to_contain_text("2")
        # Another notice about the first game replaces its unread line: still 2.
        play_until(page.context, csrf, first, 0)
        play_until(other, ringo, first, 1)
        page.wait_for_function("window.__notes.length === 3")
        notes = page.evaluate("window.__notes")
        assert notes[2]["replaces"] == notes[0]["id"] and notes[2]["events"] == 2
        assert notes[1]["replaces"] is None
        page.wait_for_function("document.body.dataset.unread === '2'")
        expect(bell).to_contain_text("2")

        page.goto("/notifications")
        lines = page.locator(".notification.new")
        expect(lines).to_have_count(2)
        mine = page.locator(f'.notification.new[data-game="{first}"]')
        expect(mine).to_have_count(1)
        expect(mine.get_by_role("link", name=f"Boatzee #{first}")).to_have_attribute(
            "href", f"/games/{first}"
        )
        expect(mine).to_contain_text("with ringo")
        expect(mine).to_contain_text(re.compile(r"ringo moved in Boatzee: your turn, \d+ d"))
        expect(mine.get_by_test_id("events")).to_have_text("2 updates")
        other_line = page.locator(f'.notification.new[data-game="{second}"]')
        expect(other_line.get_by_test_id("events")).to_have_count(0)
        # Every time on the page is in belle's zone (Paris: CET in winter, CEST in summer).
        title = mine.locator("time").get_attribute("title") or ""
        assert re.fullmatch(r"\w{3} \d{1,2} \w{3} \d{4}, \d{2}:\d{2} CES?T", title), title
        page.set_viewport_size({"width": 375, "height": 800})
        assert no_sideways_scroll(page)
        shoot(page, "page-notifications-lines-phone")
        page.set_viewport_size({"width": 1100, "height": 900})

        # On the first game's board, once it is not my turn, the next game is offered.
        page.goto(f"/games/{first}")
        page.wait_for_function("document.body.dataset.live === 'on'")
        next_link = page.locator("#next-game")
        expect(next_link).to_be_hidden()  # my turn here
        play_until(page.context, csrf, first, 0)
        expect(next_link).to_be_visible()
        expect(next_link).to_have_text("Next game (1 waiting)")
        expect(next_link).to_have_attribute("href", f"/games/{second}")
        page.keyboard.press("?")
        expect(page.locator("#keys-list")).to_contain_text("open the next game waiting on you")
        page.locator("#board-title").click()  # the keyboard back on the page, off the help
        page.keyboard.press("n")
        expect(page).to_have_url(re.compile(rf"/games/{second}$"))
        # Here it is my turn and nothing else waits: no button, and n goes to the game list.
        page.wait_for_function("document.getElementById('board').dataset.version !== undefined")
        expect(page.locator("#next-game")).to_be_hidden()
        page.keyboard.press("n")
        expect(page).to_have_url(re.compile(r"/status$"))
    finally:
        other.close()


def test_an_invitation_is_answered_from_its_line(
    page: Page, browser: Browser, site: LiveServer
) -> None:
    signup_api(page.context, "ivy")
    other = browser.new_context(base_url=site.base, bypass_csp=True)
    try:
        oscar = signup_api(other, "oscar")
        declined = create_game_api(other, oscar, "tenthousand", ["me", "ivy"], {"target": 5000})
        accepted = create_game_api(other, oscar, "boatzee", ["me", "ivy"])
        page.goto("/notifications")
        line = page.locator(f'.notification[data-game="{declined}"]')
        expect(line).to_contain_text("oscar invites you to Ten Thousand: Target score 5000; 3 days")
        decline = line.get_by_role(
            "button", name=f"Decline the invitation to Ten Thousand game {declined}"
        )
        decline.focus()
        page.keyboard.press("Enter")
        expect(line).to_contain_text("You declined: the game is called off.")
        expect(page.locator("#notification-news")).to_have_text(
            "You declined: the game is called off."
        )
        answered = page.locator(f'.notification[data-game="{accepted}"]')
        accept = f"Accept the invitation to Boatzee game {accepted}"
        answered.get_by_role("button", name=accept).click()
        expect(answered.get_by_role("link", name=f"open game {accepted}")).to_be_focused()
        # The creator is told who declined.
        told = other.request.get("/api/v1/notifications").json()["notifications"]
        mine = [n for n in told if n["game"] == declined]
        assert [n["kind"] for n in mine] == ["invite_declined"]
        assert mine[0]["text"].startswith("ivy declined your invitation to Ten Thousand")
        status = page.context.request.get(f"/api/v1/games/{accepted}").json()["status"]
        assert status == "active"
    finally:
        other.close()
