"""The browser can reach the site and the board frame loads."""

from __future__ import annotations

from playwright.sync_api import Page

from tests.web.conftest import shoot


def test_home_page_renders(page: Page) -> None:
    page.goto("/")
    assert page.get_by_role("heading", name="dicehall").is_visible()
    assert page.get_by_role("link", name="Sign up").first.is_visible()
    shoot(page, "home")


def test_board_frame_loads_a_game(page: Page) -> None:
    from tests.web.conftest import create_game_api, signup_api

    csrf = signup_api(page.context, "smoky")
    game_id = create_game_api(page.context, csrf, "tenthousand", ["me", "bot:heuristic"])
    page.goto(f"/games/{game_id}")
    board = page.locator("#board")
    board.wait_for()
    page.wait_for_function("document.getElementById('board').dataset.version !== undefined")
    assert board.get_attribute("data-kind") == "tenthousand"
