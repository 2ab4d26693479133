"""The site's own scripts run under its Content-Security-Policy (no test bypass here)."""

from __future__ import annotations

from playwright.sync_api import Browser, expect

from tests.live import LiveServer
from tests.web.conftest import create_game_api, signup_api


def test_csp_allows_the_site_scripts(browser: Browser, site: LiveServer) -> None:
    context = browser.new_context(base_url=site.base)
    try:
        refused: list[str] = []
        page = context.new_page()
        page.on(
            "console",
            lambda m: refused.append(m.text) if "Content Security Policy" in m.text else None,
        )
        csrf = signup_api(context, "strict")
        game_id = create_game_api(context, csrf, "boatzee", ["me", "bot:greedy"], {})
        response = page.goto(f"/games/{game_id}")
        assert response is not None
        assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
        board = page.locator("#board")
        expect(board).to_have_attribute("data-version", str(1), timeout=15_000)
        expect(board.get_by_role("button").first).to_be_visible()
        page.goto("/status")
        page.goto("/new")
        assert refused == []
    finally:
        context.close()
