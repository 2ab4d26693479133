"""The header's menu in Chromium: the seed's groups and names (Play, Talk, Spy, Account and
Info for members; Visitors and Info for visitors) open from the keyboard, one at a time,
close on Escape with focus back on their name; and every item of them, followed from the
keyboard at phone width, answers a page that works: a heading, no sideways scroll, and its
content reachable by the keyboard."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.web.conftest import shoot, signup_api
from tests.web.test_notifications_bell import no_sideways_scroll

#: The members' groups, the seed's names first, then what the site adds to each.
GROUPS = {
    "Play": ["Game status", "New game", "Waiting Room", "Auto-Match", "Bots"],
    "Talk": ["My messages", "Send message", "Tell a friend!"],
    "Spy": [
        "Ladder area",
        "Tournament area",
        "Who is here?",
        "Search user profiles",
        "Singularity",
        "New Releases",
        "Ratings",
        "Watch games",
        "Fair dice",
    ],
    "Account": [
        "Edit user profile",
        "Edit game boards",
        "Edit game graphics",
        "Buddy List",
        "Edit ignore list",
        "Change password",
        "Edit ratings",
        "Become a member!",
        "News",
        "My public profile",
    ],
    "Info": ["Game Rules", "Features and tips", "User testimonials", "Help"],
}
#: The visitors' groups.
VISITOR_GROUPS = {
    "Visitors": [
        "Create new userid",
        "Main screen",
        "Tournament area",
        "Waiting Room",
        "Who is here?",
        "Log in",
        "Watch games",
        "Fair dice",
        "Bots",
    ],
    "Info": GROUPS["Info"],
}
#: The most key presses a link or a page's content may take to reach.
MOST_PRESSES = 40


def _summary(page: Page, group: str) -> Locator:
    return page.locator("details.menu > summary").filter(has_text=re.compile(rf"^{group}$"))


def _focused(locator: Locator) -> bool:
    return bool(locator.evaluate("element => element === document.activeElement"))


def _content_focused(page: Page) -> bool:
    return bool(page.evaluate("document.activeElement?.closest('main') != null"))


def test_the_menu_groups_open_from_the_keyboard_one_at_a_time(page: Page) -> None:
    signup_api(page.context, "menuet")
    page.goto("/status")
    expect(page.locator("details.menu")).to_have_count(len(GROUPS))
    expect(
        page.get_by_role("navigation", name="Main").get_by_role("link", name="Help!")
    ).to_be_visible()
    for name, links in GROUPS.items():
        summary = _summary(page, name)
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
    _summary(page, "Account").click()
    expect(page.get_by_role("button", name="Logout")).to_be_visible()
    shoot(page, "menu-account-desktop")
    page.locator("main").click()  # a click outside closes it
    expect(page.locator("details.menu[open]")).to_have_count(0)
    _summary(page, "Spy").click()
    expect(page.get_by_role("link", name="Buddy List")).to_be_hidden()
    page.get_by_role("link", name="Who is here?").click()
    expect(page).to_have_url(re.compile(r"/here$"))


def _follow(page: Page, group: str, name: str) -> int:
    """Open ``group`` and follow its link ``name`` with the keyboard alone, from the page
    open now (the home page when the link leads to this page's own address: a link to
    another part of it would load nothing); the status of the page it opened."""
    # A closed menu's links are hidden: read the address from the markup.
    named = re.compile(rf"^{re.escape(name)}$")
    href = page.locator("details.menu li > a").filter(has_text=named).get_attribute("href")
    if urlsplit(href or "").path == urlsplit(page.url).path:
        page.goto("/")
    _summary(page, group).focus()
    page.keyboard.press("Enter")
    link = page.locator("details.menu[open]").get_by_role("link", name=name, exact=True)
    for _ in range(MOST_PRESSES):
        page.keyboard.press("Tab")
        if _focused(link):
            break
    else:
        raise AssertionError(f"{group} › {name}: the keyboard never reached the link")
    assert no_sideways_scroll(page), f"the open {group} menu is wider than a phone"
    with page.expect_navigation() as opened:
        page.keyboard.press("Enter")
    answer = opened.value
    assert answer is not None
    return answer.status


def _content_reachable(page: Page) -> bool:
    """Whether Tab (and Enter on the skip link) brings the focus into the page's content."""
    for _ in range(MOST_PRESSES):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement?.classList.contains('skip')"):
            page.keyboard.press("Enter")
        if _content_focused(page):
            return True
    return False


@pytest.mark.parametrize("member", [True, False], ids=["member", "visitor"])
def test_every_menu_item_opens_a_working_page_from_the_keyboard_on_a_phone(
    page: Page, member: bool
) -> None:
    page.set_viewport_size({"width": 390, "height": 800})
    if member:
        signup_api(page.context, "phoney")
    groups = GROUPS if member else VISITOR_GROUPS
    page.goto("/")
    expect(page.locator("details.menu")).to_have_count(len(groups))
    assert no_sideways_scroll(page)
    failed: list[str] = []
    for group, links in groups.items():
        for name in links:
            status = _follow(page, group, name)
            where = f"{group} › {name} ({page.url})"
            if status != 200:
                failed.append(f"{where}: status {status}")
                continue
            if not page.locator("main h1").first.is_visible():
                failed.append(f"{where}: no heading")
            if not no_sideways_scroll(page):
                failed.append(f"{where}: scrolls sideways at 390 px")
            if not _content_reachable(page):
                failed.append(f"{where}: the keyboard never reaches the content")
    assert not failed, "\n".join(failed)
    shoot(page, f"menu-last-item-phone-{'member' if member else 'visitor'}")
