"""The header's menu in Chromium: the seed's groups (Play, Talk, Spy, Account) open from the
keyboard, one at a time, close on Escape with focus back on their name, and fit a phone;
visitors see their own short menu."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.web.conftest import shoot, signup_api
from tests.web.test_notifications_bell import no_sideways_scroll

GROUPS = {
    "Play": ["Game status", "New game", "Auto-match", "Waiting room"],
    "Talk": ["My messages", "Send message", "Tell a friend"],
    "Spy": [
        "Who is here?",
        "Search user profiles",
        "Ladders",
        "Tournaments",
        "Ratings",
        "Watch games",
        "Fair dice",
    ],
    "Account": [
        "My public profile",
        "Edit profile",
        "Board and graphics settings",
        "Buddy list",
        "Ignore list",
        "Change password",
    ],
}


def test_the_menu_groups_open_from_the_keyboard_one_at_a_time(page: Page) -> None:
    signup_api(page.context, "menuet")
    page.goto("/status")
    menus = page.locator("details.menu")
    expect(menus).to_have_count(4)
    for name, links in GROUPS.items():
        summary = page.locator("details.menu > summary", has_text=name)
        summary.focus()
        page.keyboard.press("Enter")
        group = page.locator("details.menu[open]")
        expect(group).to_have_count(1)  # opening one closes the others
        for link in links:
            expect(group.get_by_role("link", name=link, exact=True)).to_be_visible()
        page.keyboard.press("Tab")  # into the open menu
        expect(group.get_by_role("link", name=links[0], exact=True)).to_be_focused()
        page.keyboard.press("Escape")
        expect(page.locator("details.menu[open]")).to_have_count(0)
        expect(summary).to_be_focused()
    page.locator("details.menu > summary", has_text="Account").click()
    expect(page.get_by_role("button", name="Log out")).to_be_visible()
    shoot(page, "menu-account-desktop")
    page.locator("main").click()  # a click outside closes it
    expect(page.locator("details.menu[open]")).to_have_count(0)
    page.locator("details.menu > summary", has_text="Spy").click()
    expect(page.get_by_role("link", name="Buddy list")).to_be_hidden()
    page.get_by_role("link", name="Who is here?").click()
    expect(page).to_have_url(re.compile(r"/here$"))


def test_the_menu_fits_a_phone(page: Page) -> None:
    signup_api(page.context, "phoney")
    page.set_viewport_size({"width": 390, "height": 800})
    page.goto("/status")
    assert no_sideways_scroll(page)
    page.locator("details.menu > summary", has_text="Talk").click()
    expect(page.get_by_role("link", name="Send message")).to_be_visible()
    assert no_sideways_scroll(page)
    shoot(page, "menu-talk-phone")


def test_visitors_see_their_own_menu(page: Page) -> None:
    page.goto("/")
    expect(page.locator("details.menu")).to_have_count(0)
    nav = page.get_by_role("navigation", name="Main")
    for link in ("Waiting room", "Watch", "Fair dice", "Log in", "Sign up"):
        expect(nav.get_by_role("link", name=link, exact=True)).to_be_visible()
