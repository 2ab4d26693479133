"""Who is here? in Chromium: a member who signs in shows on another member's page within
seconds, with what they do (looking for a game, playing one, linked), and drops to
"recently here" and then off the page once they leave (the site's windows are shortened to
seconds for the test); without a browser: the page and the home page's counts for everyone
(visitors: tests/web/test_info_pages.py), and names shown as text."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from playwright.sync_api import Browser, Page, expect

from dicehall.server.domain.services import Services
from tests.live import LiveServer
from tests.sqlite_template import migrated_sqlite
from tests.web.conftest import create_game_api, shoot, signup_api
from tests.web.test_pages_forms import _signup

#: Online: seen in the last 4 s (a socket touches every 1.3 s, the page asks every 2 s);
#: recently here: the last 10 s.
ONLINE, RECENT = "4", "10"


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[LiveServer]:
    """A fresh site on SQLite whose presence windows are seconds long."""
    monkeypatch.setenv("DICEHALL_PRESENCE_ONLINE_SECONDS", ONLINE)
    monkeypatch.setenv("DICEHALL_PRESENCE_RECENT_SECONDS", RECENT)
    server = LiveServer(migrated_sqlite(tmp_path / "here.sqlite3"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


def no_sideways_scroll(page: Page) -> bool:
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"))


def test_who_is_here_shows_a_member_soon_after_sign_in_and_drops_them_after(
    page: Page, browser: Browser, site: LiveServer
) -> None:
    csrf = signup_api(page.context, "watcher")
    page.goto("/here")
    expect(page.get_by_role("heading", name="Who is here?")).to_be_visible()
    online = page.locator("#here-online-list")
    recent = page.locator("#here-recent-list")
    expect(online.locator("li[data-user='watcher']")).to_be_visible()

    other = browser.new_context(base_url=site.base, bypass_csp=True)
    try:
        guest = other.new_page()
        rover = signup_api(other, "rover")
        assert page.context.request.put(
            "/api/v1/relations/rover", data={"kind": "buddy"}, headers={"X-CSRF-Token": csrf}
        ).ok
        guest.goto("/waiting")
        rover_here = online.locator("li[data-user='rover']")
        expect(rover_here).to_be_visible(timeout=8_000)
        expect(rover_here).to_contain_text("looking for a game")
        # A buddy comes first.
        expect(online.locator("li").first).to_have_attribute("data-user", "rover")
        expect(rover_here.locator(".tag.buddy")).to_be_visible()
        expect(page.locator("#here-counts")).to_contain_text("2 players here now")

        game_id = create_game_api(other, rover, "boatzee", ["me", "bot:greedy"])
        guest.goto(f"/games/{game_id}")
        playing = rover_here.get_by_role("link", name=re.compile(rf"Boatzee, game {game_id}"))
        expect(playing).to_be_visible(timeout=8_000)
        expect(playing).to_have_attribute("href", f"/games/{game_id}")
        expect(rover_here.get_by_role("link", name="rover")).to_have_attribute(
            "href", "/users/rover"
        )
        shoot(page, "page-here")
        page.set_viewport_size({"width": 390, "height": 800})
        assert no_sideways_scroll(page)
        shoot(page, "page-here-phone")
        page.set_viewport_size({"width": 1100, "height": 900})
    finally:
        other.close()

    # Gone: online until the window passes (no flicker on a reload), then recently here,
    # then off the page.
    expect(recent.locator("li[data-user='rover']")).to_be_visible(timeout=12_000)
    expect(online.locator("li[data-user='rover']")).to_have_count(0)
    expect(recent.locator("li[data-user='rover']")).to_contain_text("last seen")
    shoot(page, "page-here-recent")
    expect(page.locator("li[data-user='rover']")).to_have_count(0, timeout=15_000)
    expect(online.locator("li[data-user='watcher']")).to_be_visible()


def test_the_page_and_the_home_page_counts_are_for_everyone(
    web: TestClient, services: Services
) -> None:
    answer = web.get("/here")
    assert answer.status_code == 200 and "Nobody right now." in answer.text
    assert "0 players here now, 0 in the last 15 minutes." in web.get("/").text
    _signup(web, "sly")
    home = web.get("/").text
    assert "1 player here now, 1 in the last 15 minutes." in home
    here = web.get("/here").text
    assert 'data-user="sly"' in here and "on the site" in here


def test_names_are_shown_as_text(web: TestClient, services: Services) -> None:
    csrf = _signup(web, "mallory")
    changed = web.patch(
        "/api/v1/users/me",
        json={"display_name": "<img src=x onerror=alert(1)>"},
        headers={"X-CSRF-Token": csrf},
    )
    assert changed.status_code == 200, changed.text
    here = web.get("/here").text
    assert "&lt;img src=x onerror=alert(1)&gt;" in here
    assert "<img src=x" not in here
