"""The game status page follows pushes: a new game waiting on me appears without a reload."""

from __future__ import annotations

from playwright.sync_api import Browser, Page, expect

from dicehall.server.live import LiveServer
from tests.web.conftest import create_game_api, shoot, signup_api


def test_status_page_shows_a_new_challenge_without_reloading(
    page: Page, browser: Browser, site: LiveServer
) -> None:
    signup_api(page.context, "statia")
    page.goto("/status")
    expect(page.get_by_role("heading", name="Game status")).to_be_visible()
    page.wait_for_function("document.body.dataset.live === 'on'")
    other = browser.new_context(base_url=site.base)
    try:
        csrf = signup_api(other, "rivalo")
        game_id = create_game_api(other, csrf, "boatzee", ["me", "statia"])
        link = page.get_by_role("link", name=f"Boatzee #{game_id}")
        expect(link).to_be_visible()
        expect(page.locator("#status-live")).to_contain_text("updated")
        shoot(page, "page-status-live")
    finally:
        other.close()
