"""The "Bots" page: every game's bots with the ladder's figures, in the menu, at phone width."""

from __future__ import annotations

import html as html_lib
import re

from fastapi.testclient import TestClient
from playwright.sync_api import Page, expect

from dicehall import games
from dicehall.games import strengths
from tests.web.conftest import shoot, signup_api


def test_every_bot_of_every_game_is_listed_with_its_figures(web: TestClient) -> None:
    response = web.get("/bots")
    assert response.status_code == 200
    text = html_lib.unescape(response.text)
    for name in games.available():
        entry = games.get(name)
        assert f'id="bots-{name}"' in text
        for bot, note in entry.ranked_bots():
            assert f"<code>{bot}</code>" in text and note in text, (name, bot)
    for ladder in strengths.ladders().values():
        table = text.split(f'data-kind="{ladder.kind}"', 1)[1].split("</table>", 1)[0]
        rows = re.findall(r'<tr data-bot="([^"]+)">', table)
        assert rows == [s.bot for s in ladder.bots], "strongest first"
        assert "strongest first, by share of the wins" in table
        first = ladder.bots[0]
        assert f'{first.rating} <span class="muted">({first.rating_low}–{first.rating_high})' in (
            table
        )
        # Each row: the share of the wins (the ranking's figure), then the rating beside it.
        for found in ladder.bots:
            row = table.split(f'<tr data-bot="{found.bot}">', 1)[1].split("</tr>", 1)[0]
            share = f"{100 * found.win_share:.1f}%"
            assert share in row and f"{found.games} games" in row, (ladder.kind, found.bot)
            assert row.index(share) < row.index(f"{found.rating} <span"), "share, then rating"
    bullseye = text.split('data-kind="bullseye"', 1)[1].split("</table>", 1)[0]
    assert bullseye.index('data-bot="optimal"') < bullseye.index('data-bot="potmax"')


def test_the_bots_page_is_in_the_menu_and_fits_a_phone(page: Page) -> None:
    page.goto("/")
    page.locator("details.menu > summary", has_text="Visitors").click()
    page.get_by_role("link", name="Bots").first.click()
    expect(page.get_by_role("heading", name="Bots", level=1)).to_be_visible()
    expect(page.locator("table.bot-ladder").first).to_be_visible()
    shoot(page, "page-bots")
    signup_api(page.context, "picker")
    page.goto("/status")
    page.get_by_text("Play", exact=True).click()
    page.get_by_role("link", name="Bots").click()
    expect(page).to_have_url(re.compile(r"/bots$"))
    page.get_by_role("link", name="Boss Dice", exact=True).first.focus()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/bots#bots-boss$"))
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto("/bots")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the Bots page is {width}px wide at phone width"
    shoot(page, "page-bots-phone")
