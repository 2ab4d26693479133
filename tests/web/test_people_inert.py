"""Markup typed into every text field of the people's pages stays text in Chromium: a
display name, an about text, a private note, a message, a chat line and a search, each
`<img src=x onerror=...>`, shown on every page that shows them, runs nothing (the test
browser ignores the Content-Security-Policy, so only escaping keeps it inert)."""

from __future__ import annotations

from urllib.parse import urlsplit

from playwright.sync_api import Browser, Page, expect

from tests.live import LiveServer
from tests.web.conftest import create_game_api, signup_api

PAYLOAD = "<img src=x onerror=__pwned=1>"


def _quiet(page: Page, path: str) -> None:
    page.goto(path)
    page.wait_for_load_state("networkidle")
    assert page.evaluate("typeof window.__pwned") == "undefined", path


def test_markup_in_every_people_field_is_shown_as_text(
    page: Page, browser: Browser, site: LiveServer
) -> None:
    csrf = signup_api(page.context, "mallory")
    me = {"X-CSRF-Token": csrf}
    changed = page.context.request.patch(
        "/api/v1/users/me", data={"display_name": PAYLOAD, "about": PAYLOAD}, headers=me
    )
    assert changed.ok, changed.text()
    other = browser.new_context(base_url=site.base, bypass_csp=True)
    try:
        trent = signup_api(other, "trent")
        them = {"X-CSRF-Token": trent}
        put = page.context.request.put(
            "/api/v1/relations/trent", data={"kind": "buddy", "note": PAYLOAD}, headers=me
        )
        assert put.ok, put.text()
        assert other.request.put(
            "/api/v1/relations/mallory", data={"kind": "buddy"}, headers=them
        ).ok
        sent = page.context.request.post(
            "/api/v1/messages/trent", data={"body": PAYLOAD}, headers=me
        )
        assert sent.ok, sent.text()
        game_id = create_game_api(page.context, csrf, "boatzee", ["me", "bot:random"])
        said = page.context.request.post(
            f"/api/v1/games/{game_id}/chat", data={"body": PAYLOAD}, headers=me
        )
        assert said.ok, said.text()
        link = page.context.request.post("/api/v1/invites", data={}, headers=me).json()["url"]

        for path in ("/users/mallory", "/buddies", "/messages", "/messages/trent", "/here",
                     f"/games/{game_id}", "/users?q=%3Cimg", "/status"):  # fmt: skip
            _quiet(page, path)
        expect(page.locator("header")).to_contain_text(PAYLOAD)  # my name, as text

        watcher = other.new_page()
        for path in ("/users/mallory", "/messages", "/messages/mallory", "/here",
                     f"/games/{game_id}", "/users?q=%3Cimg", "/notifications",
                     urlsplit(link).path):  # fmt: skip
            _quiet(watcher, path)
        watcher.goto("/messages/mallory")
        expect(watcher.locator("main")).to_contain_text(PAYLOAD)
        watcher.goto(f"/games/{game_id}")
        expect(watcher.locator("main")).to_contain_text(PAYLOAD)
        watcher.goto("/users/mallory")
        expect(watcher.locator("main")).to_contain_text(PAYLOAD)
        assert watcher.evaluate("typeof window.__pwned") == "undefined"
    finally:
        other.close()
