"""Singularity in a browser, on a phone: a visitor's page follows the site, and a game
that ends while it is open shows up, read out politely, without a reload."""

from __future__ import annotations

from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.live import LiveServer
from tests.web.conftest import accept_game_api, create_game_api, shoot, signup_api


def all_in_until_over(players: dict[int, tuple[BrowserContext, str]], game_id: int) -> None:
    """Both players put everything in every hand until one has nothing left: the game's
    biggest pot holds both stacks."""
    for _ in range(100):
        context, csrf = players[0]
        game = context.request.get(f"/api/v1/games/{game_id}").json()
        if game["status"] == "finished":
            return
        context, csrf = players[game["to_act"]]
        mine = context.request.get(f"/api/v1/games/{game_id}").json()
        kinds = [a["type"] for a in mine["legal"]]
        chosen = next(k for k in ("all_in", "call", "raise", "bet", "check") if k in kinds)
        moved = context.request.post(
            f"/api/v1/games/{game_id}/actions",
            data={
                "action": mine["legal"][kinds.index(chosen)],
                "expected_version": mine["version"],
            },
            headers={"X-CSRF-Token": csrf},
        )
        assert moved.ok, moved.text()
    raise AssertionError("the game did not end")


def test_a_game_ending_appears_on_the_open_page(
    browser: Browser, site: LiveServer, page: Page
) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto("/singularity")
    expect(page.get_by_role("heading", name="Singularity", level=1)).to_be_visible()
    expect(page.get_by_text("Nothing yet")).to_be_visible()
    page.wait_for_function("document.body.dataset.live === 'on'")
    page.evaluate("window.stayed = true")
    makers = [browser.new_context(base_url=site.base, bypass_csp=True) for _ in range(2)]
    try:
        alma, bea = makers
        alma_csrf, bea_csrf = signup_api(alma, "alma"), signup_api(bea, "bea")
        game_id = create_game_api(alma, alma_csrf, "holdem", ["me", "user:bea"], {"stack": 30})
        accept_game_api(bea, bea_csrf, game_id)
        all_in_until_over({0: (alma, alma_csrf), 1: (bea, bea_csrf)}, game_id)
        moment = page.locator(".pulse-moments li", has_text="a pot of 60 chips")
        expect(moment).to_be_visible()
        expect(moment.get_by_role("link", name=f"Hold'em Dice #{game_id}")).to_be_visible()
        expect(page.locator("#pulse-live")).to_contain_text("a pot of 60 chips")
        expect(page.get_by_test_id("pulse-finished")).to_have_text("1")
        assert page.evaluate("window.stayed") is True, "the page was reloaded"
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        shoot(page, "page-singularity-phone")
    finally:
        for made in makers:
            made.close()
