"""Two browsers, two users, one game: each sees the other's move without reloading."""

from __future__ import annotations

from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.live import LiveServer
from tests.web.conftest import accept_game_api, create_game_api, shoot, signup_api


def open_board(page: Page, game_id: int) -> None:
    page.goto(f"/games/{game_id}")
    page.wait_for_function("document.getElementById('board').dataset.version !== undefined")
    page.wait_for_function("document.body.dataset.live === 'on'")


def version(page: Page) -> int:
    return int(page.locator("#board").get_attribute("data-version") or "0")


def test_two_players_see_each_others_moves_live(
    browser: Browser, site: LiveServer, context: BrowserContext
) -> None:
    other = browser.new_context(
        base_url=site.base, viewport={"width": 900, "height": 900}, bypass_csp=True
    )
    other.set_default_timeout(15_000)
    try:
        bella_csrf = signup_api(other, "bella")
        csrf = signup_api(context, "alma")
        game_id = create_game_api(context, csrf, "boatzee", ["me", "user:bella"])
        accept_game_api(other, bella_csrf, game_id)
        alma, bella = context.new_page(), other.new_page()
        open_board(alma, game_id)
        open_board(bella, game_id)
        expect(alma.locator("#board")).to_have_attribute("data-your-turn", "true")
        expect(bella.locator("#board")).to_have_attribute("data-your-turn", "false")
        expect(bella.get_by_test_id("turn")).to_contain_text("Waiting for alma")
        start = version(bella)

        # Alma re-rolls one die: Bella's board follows without a reload.
        alma.locator(".bz-dice .die").nth(4).click()
        alma.get_by_role("button", name="Re-roll selected dice").click()
        bella.wait_for_function(
            f"Number(document.getElementById('board').dataset.version) > {start}"
        )
        alma_dice = alma.locator(".bz-dice .die").evaluate_all(
            "els => els.map(e => e.dataset.face)"
        )
        expect(bella.locator(".bz-dice .die")).to_have_count(5)
        assert (
            bella.locator(".bz-dice .die").evaluate_all("els => els.map(e => e.dataset.face)")
            == alma_dice
        )
        # Alma scores Chance: Bella sees the score on Alma's card and that it is her turn.
        chance = sum(int(f) for f in alma_dice)
        alma.locator('.bz-box[data-box="chance"]').click()
        alma.get_by_role("button", name="Confirm Chance").click()
        expect(bella.locator("#board")).to_have_attribute("data-your-turn", "true")
        expect(bella.get_by_test_id("total-0")).to_have_text(str(chance))
        expect(bella.get_by_test_id("turn")).to_have_text("Your turn.")
        shoot(bella, "board-live-second-player")

        # And back: Bella scores, Alma's page follows.
        bella.locator('.bz-box[data-box="chance"]').click()
        bella.get_by_role("button", name="Confirm Chance").click()
        expect(alma.locator("#board")).to_have_attribute("data-your-turn", "true")
        expect(alma.get_by_test_id("total-1")).not_to_have_text("0")
        shoot(alma, "board-live-first-player")
    finally:
        other.close()
