"""The history page in Chromium at phone width: reached from the profile, filtered from the
keyboard, paged with "More", never wider than the screen."""

from __future__ import annotations

import re

from playwright.sync_api import BrowserContext, Page, expect

from tests.web.conftest import create_game_api, shoot, signup_api


def _lose(context: BrowserContext, csrf: str, game: str) -> None:
    game_id = create_game_api(context, csrf, game, ["me", "bot:random"])
    version = context.request.get(f"/api/v1/games/{game_id}").json()["version"]
    answer = context.request.post(
        f"/api/v1/games/{game_id}/resign",
        data={"expected_version": version},
        headers={"X-CSRF-Token": csrf},
    )
    assert answer.ok, answer.text()


def _fits(page: Page, width: int) -> None:
    wide = page.evaluate("document.documentElement.scrollWidth")
    assert wide <= width, f"the page is {wide}px wide at {width}px"


def test_history_at_phone_width_from_the_keyboard(page: Page) -> None:
    csrf = signup_api(page.context, "moss")
    for _ in range(21):
        _lose(page.context, csrf, "boss")
    _lose(page.context, csrf, "tenthousand")
    page.set_viewport_size({"width": 360, "height": 740})
    page.goto("/users/moss")
    expect(page.get_by_text("Games finished")).to_be_visible()
    page.get_by_role("link", name="Games and record of moss").click()
    expect(page.get_by_role("heading", name="Games of moss", level=1)).to_be_visible()
    record = page.locator("table.record")
    expect(record.get_by_role("row", name=re.compile("Boss Dice"))).to_contain_text("21")
    expect(page.locator("table.history tbody tr")).to_have_count(20)
    _fits(page, 360)
    shoot(page, "page-history-phone")

    # Filter with the keyboard only: the form is plain controls, submitted with Enter.
    page.get_by_label("Game", exact=True).select_option("tenthousand")
    page.get_by_label("Result").select_option("loss")
    page.get_by_role("button", name="Show").focus()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"game=tenthousand.*result=loss"))
    expect(page.locator("table.history tbody tr")).to_have_count(1)
    expect(page.get_by_role("link", name="More games")).to_have_count(0)

    page.goto("/users/moss/games?game=boss")
    more = page.get_by_role("link", name="More games")
    more.focus()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"cursor="))
    expect(page.locator("table.history tbody tr")).to_have_count(1)
    expect(page.get_by_role("link", name=re.compile("Replay"))).to_have_count(1)
    _fits(page, 360)
