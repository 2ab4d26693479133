"""The browser can reach the site and the board frame loads."""

from __future__ import annotations

from playwright.sync_api import Page

from tests.web.conftest import shoot


def test_home_page_renders(page: Page) -> None:
    page.goto("/")
    assert page.get_by_role("heading", name="dicehall").is_visible()
    assert page.get_by_role("link", name="Sign up").first.is_visible()
    shoot(page, "home")
