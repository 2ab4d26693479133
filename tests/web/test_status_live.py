"""The game status page follows pushes: a new game waiting on me appears without a reload."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, Page, expect

from tests.live import LiveServer
from tests.web.conftest import create_game_api, shoot, signup_api


def test_status_page_shows_a_new_challenge_without_reloading(
    page: Page, browser: Browser, site: LiveServer
) -> None:
    signup_api(page.context, "statia")
    page.goto("/status")
    expect(page.get_by_role("heading", name="Game status")).to_be_visible()
    page.wait_for_function("document.body.dataset.live === 'on'")
    other = browser.new_context(base_url=site.base, bypass_csp=True)
    try:
        csrf = signup_api(other, "rivalo")
        game_id = create_game_api(other, csrf, "boatzee", ["me", "statia"])
        link = page.get_by_role("link", name=f"Boatzee #{game_id}")
        expect(link).to_be_visible()
        expect(page.locator("#status-live")).to_contain_text("updated")
        # The invitation waits on me: the header's badge and the title say so.
        expect(page.locator("#waiting-on-me")).to_contain_text("1")
        expect(page).to_have_title(re.compile(r"^\(1\) Game status"))
        shoot(page, "page-status-live")
    finally:
        other.close()


def _play_out(page: Page, csrf: str, game_id: int) -> None:
    """Play my seat of ``game_id`` to the end with the first legal move each time."""
    for _ in range(300):
        game = page.context.request.get(f"/api/v1/games/{game_id}").json()
        if game["status"] == "finished":
            return
        moved = page.context.request.post(
            f"/api/v1/games/{game_id}/actions",
            data={"action": game["legal"][0], "expected_version": game["version"]},
            headers={"X-CSRF-Token": csrf},
        )
        assert moved.ok, moved.text()
    raise AssertionError("the game did not end")


def test_status_page_lists_scores_turns_and_results(page: Page) -> None:
    csrf = signup_api(page.context, "tallis")
    finished = create_game_api(page.context, csrf, "boss", ["me", "bot:random"], {"horses": 1})
    _play_out(page, csrf, finished)
    playing = create_game_api(
        page.context, csrf, "tenthousand", ["me", "bot:heuristic", "bot:heuristic"]
    )
    # A first roll that scores nothing passes the turn by itself, so the bots may have
    # played a round already: the row must say what the API says.
    mine = page.context.request.get("/api/v1/games").json()
    standing = next(game["standing"] for game in mine if game["id"] == playing)
    you, bot1, bot2 = (f"{score:,}" for score in standing["scores"])
    page.goto("/status")
    row = page.locator("tr", has=page.get_by_role("link", name=f"Ten Thousand #{playing}"))
    expect(row).to_contain_text("your turn")
    expect(row).to_contain_text(f"turn {standing['number']}")
    expect(row).to_contain_text(f"you: {you} · heuristic bot 1: {bot1} · heuristic bot 2: {bot2}")
    expect(row).to_contain_text("just now")
    done = page.locator("tr", has=page.get_by_role("link", name=f"Boss Dice #{finished}"))
    expect(done).to_contain_text(re.compile(r"you won|you lost \(random bot won\)"))
    expect(page.locator("#waiting-on-me")).to_contain_text("1")
    shoot(page, "page-status")
    _play_out(page, csrf, playing)
    page.goto("/status")
    # Nothing waits on me now: the badge takes no room and the title has no count.
    expect(page.locator("#waiting-on-me")).to_be_hidden()
    expect(page).to_have_title(re.compile(r"^Game status"))
    page.set_viewport_size({"width": 375, "height": 800})
    shoot(page, "page-status-phone")
