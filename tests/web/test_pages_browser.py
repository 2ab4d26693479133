"""The site's pages and forms in Chromium: sign up, log in and out, new games, the waiting
room, profile, password, rules and fairness; a screenshot of every page."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.live import LiveServer
from tests.web.conftest import create_game_api, shoot, signup_api
from tests.web.test_status_live import _play_out

PASSWORD = "correct horse 42"
#: The elements that stick out past the window's right edge (outside a scrolling region).
_WIDER_THAN_THE_PAGE = """[...document.querySelectorAll("main *")]
  .filter((e) => e.getBoundingClientRect().right > innerWidth && !e.closest(".scroll"))
  .map((e) => `${e.tagName}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`)"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One site for this module's tests (each uses its own users): a server start is the
    slowest step of a browser test."""
    folder = tmp_path_factory.mktemp("pages")
    server = LiveServer(f"sqlite:///{folder}/web.sqlite3")
    server.start()
    try:
        yield server
    finally:
        server.stop()


def _error(page: Page, field: str) -> str:
    """The message next to a field, checked to be tied to it by aria-describedby."""
    box = page.locator(f"#f-{field}")
    described = box.get_attribute("aria-describedby") or ""
    assert f"f-{field}-error" in described.split()
    assert box.get_attribute("aria-invalid") == "true"
    return page.locator(f"#f-{field}-error").inner_text()


def _signup_form(page: Page, user_id: str, password: str, display: str = "") -> None:
    page.get_by_label("User id").fill(user_id)
    page.get_by_label("Display name").fill(display)
    page.get_by_label("Password", exact=True).fill(password)
    page.get_by_label("Repeat the password").fill(password)
    page.get_by_role("button", name="Create my account").click()


def test_sign_up_log_out_and_in(page: Page) -> None:
    page.goto("/")
    shoot(page, "page-home")
    page.get_by_role("link", name="Sign up").first.click()
    expect(page).to_have_title(re.compile("Sign up"))
    shoot(page, "page-signup")

    _signup_form(page, "7up", "short", "Seven")
    assert "start with a letter" in _error(page, "user_id")
    expect(page.get_by_label("User id")).to_have_value("7up")
    expect(page.get_by_label("Display name")).to_have_value("Seven")
    expect(page.get_by_label("Password", exact=True)).to_have_value("")
    expect(page.get_by_role("alert")).to_contain_text("There is a problem")
    _signup_form(page, "Hazel", "short", "Hazel H.")
    assert "at least 8 characters" in _error(page, "password")
    shoot(page, "page-signup-errors")
    # What was typed is still there; the form works from the keyboard: Tab, type, Enter.
    page.get_by_label("User id").focus()
    page.keyboard.press("Tab")
    expect(page.get_by_label("Display name")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.get_by_label("Password", exact=True)).to_be_focused()
    page.keyboard.type(PASSWORD)
    page.keyboard.press("Tab")
    expect(page.get_by_label("Repeat the password")).to_be_focused()
    page.keyboard.type(PASSWORD)
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile("/status$"))
    expect(page.get_by_role("heading", name="Game status")).to_be_visible()
    shoot(page, "page-status-empty")

    page.locator("details.menu > summary", has_text="Account").click()
    page.get_by_role("button", name="Logout").click()
    expect(page.get_by_role("status")).to_contain_text("signed out")
    page.goto("/signup")
    _signup_form(page, "hazel", "another secret 1")
    assert "taken" in _error(page, "user_id")

    page.goto("/status")  # needs a session: goes to the log-in form and back
    expect(page).to_have_url(re.compile(r"/login\?next=/status"))
    page.get_by_label("User id").fill("hazel")
    page.get_by_label("Password").fill("wrong password")
    page.get_by_role("button", name="Log in").click()
    assert "Wrong user id or password" in _error(page, "password")
    expect(page.get_by_label("User id")).to_have_value("hazel")
    shoot(page, "page-login-errors")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page).to_have_url(re.compile("/status$"))
    expect(page.get_by_role("link", name=re.compile("Hazel"))).to_be_visible()


def test_new_game_form_for_each_game_lands_on_its_board(page: Page) -> None:
    signup_api(page.context, "ivy")
    page.goto("/new")
    shoot(page, "page-new-pick")
    for name in ("tenthousand", "boatzee", "boss", "holdem", "bullseye"):
        page.goto(f"/new/{name}")
        expect(page.get_by_role("heading", level=1)).to_contain_text("New")
        if name == "boatzee":
            shoot(page, "page-new-game")
            # Vacation never saves a live game: its box is off while that pace is chosen.
            vacation = page.get_by_label("Vacation may save a player from a timeout")
            expect(vacation).to_be_checked()
            page.get_by_label("Time per move").select_option("live")
            expect(vacation).to_be_disabled()
            expect(vacation).not_to_be_checked()
            page.get_by_label("Time per move").select_option("")
            expect(vacation).to_be_enabled()
            expect(vacation).to_be_checked()
            page.get_by_label("Variant").select_option("3")
            page.get_by_label("Opponent 1", exact=True).select_option("bot:greedy")
        if name == "tenthousand":
            page.get_by_label("Target score").fill("500")
            page.get_by_label("Entry threshold").fill("a lot")
            page.get_by_label("Opponent 1", exact=True).select_option("bot:random")
            page.get_by_label("Opponent 2", exact=True).select_option("user")
            page.get_by_role("button", name="Start the game").click()
            assert "whole number" in _error(page, "opt_entry_threshold")
            assert "Type the user id" in _error(page, "user2")
            expect(page.get_by_label("Target score")).to_have_value("500")
            expect(page.get_by_label("Opponent 1", exact=True)).to_have_value("bot:random")
            shoot(page, "page-new-game-errors")
            page.get_by_label("Entry threshold").fill("300")
            page.get_by_label("Opponent 2", exact=True).select_option("none")
        page.get_by_role("button", name="Start the game").click()
        expect(page).to_have_url(re.compile(r"/games/\d+$"))
        board = page.locator("#board")
        expect(board).to_have_attribute("data-kind", name)
        expect(board).to_have_attribute("data-version", re.compile(r"\d+"))
    page.goto("/status")
    expect(page.locator("table.games tbody tr")).to_have_count(5)
    shoot(page, "page-status")


def test_waiting_room_join_from_a_second_browser(
    page: Page, browser: Browser, site: LiveServer
) -> None:
    signup_api(page.context, "jade")
    page.goto("/new/boss")
    page.get_by_label("Opponent 1", exact=True).select_option("open")
    page.get_by_role("button", name="Start the game").click()
    expect(page).to_have_url(re.compile(r"/games/\d+$"))
    game_id = page.url.rsplit("/", 1)[1]

    other: BrowserContext = browser.new_context(base_url=site.base, bypass_csp=True)
    try:
        other.set_default_timeout(15_000)
        signup_api(other, "kite")
        guest = other.new_page()
        guest.goto("/waiting")
        expect(guest.get_by_role("heading", name="Waiting room")).to_be_visible()
        shoot(guest, "page-waiting-room")
        guest.get_by_role("button", name=f"Join Boss Dice game {game_id}").click()
        expect(guest).to_have_url(re.compile(f"/games/{game_id}$"))
        expect(guest.locator("#board")).to_have_attribute("data-status", "active")
        guest.goto("/waiting")
        expect(guest.get_by_text("No game is waiting for players")).to_be_visible()
    finally:
        other.close()
    page.goto("/status")
    expect(page.get_by_role("link", name=f"Boss Dice #{game_id}")).to_be_visible()


def test_profile_and_password(page: Page) -> None:
    signup_api(page.context, "lark")
    page.goto("/profile")
    page.get_by_label("Display name").fill("   ")
    page.get_by_label("About you").fill("Boatzee every evening.\nTen Thousand at weekends.")
    page.get_by_role("button", name="Save my profile").click()
    assert "must not be empty" in _error(page, "display_name")
    expect(page.get_by_label("About you")).to_have_value(
        "Boatzee every evening.\nTen Thousand at weekends."
    )
    shoot(page, "page-profile-errors")
    page.get_by_label("Display name").fill("Lark L.")
    page.get_by_role("button", name="Save my profile").click()
    expect(page.get_by_role("status")).to_contain_text("saved")
    shoot(page, "page-profile")
    page.get_by_role("link", name="see your public profile").click()
    expect(page.get_by_role("heading", name="Lark L.")).to_be_visible()
    expect(page.get_by_text("Ten Thousand at weekends.")).to_be_visible()
    shoot(page, "page-user")

    page.goto("/password")
    page.get_by_label("Current password").fill("not my password")
    page.get_by_label("New password", exact=True).fill("brand new secret")
    page.get_by_label("New password again").fill("brand new secret")
    page.get_by_role("button", name="Change my password").click()
    assert "not your current password" in _error(page, "old_password")
    page.get_by_label("Current password").fill(PASSWORD)
    page.get_by_label("New password", exact=True).fill("brand new secret")
    page.get_by_label("New password again").fill("brand new secrex")
    page.get_by_role("button", name="Change my password").click()
    assert "differ" in _error(page, "confirm_password")
    expect(page.get_by_label("Current password")).to_have_value("")
    shoot(page, "page-password-errors")
    page.get_by_label("Current password").fill(PASSWORD)
    page.get_by_label("New password", exact=True).fill("brand new secret")
    page.get_by_label("New password again").fill("brand new secret")
    page.get_by_role("button", name="Change my password").click()
    expect(page.get_by_role("status")).to_contain_text("Your password is changed")


def test_rules_fairness_and_phone_width(page: Page, site: LiveServer) -> None:
    page.goto("/fairness")
    expect(page.get_by_role("heading", name="Fair dice", level=1)).to_be_visible()
    head = page.context.request.get("/api/v1/fairness/log").json()["head"]
    expect(page.get_by_test_id("log-head")).to_have_text(head["hash"])
    expect(page.get_by_text("dicehall verify-game proof.json")).to_be_visible()
    expect(page.locator("table.batches tbody tr").first).to_be_visible()
    shoot(page, "page-fairness")
    csrf = signup_api(page.context, "counter")
    game_id = create_game_api(page.context, csrf, "boss", ["me", "bot:random"], {"horses": 1})
    _play_out(page, csrf, game_id)
    page.reload()
    expect(page.get_by_text("Pearson's chi-square test")).to_be_visible()
    expect(page.get_by_text(re.compile(r"dice from 1 finished game\."))).to_be_visible()
    shoot(page, "page-fairness-counts")
    # How to get the command, and at phone width nothing scrolls sideways (the long address
    # wraps; wide tables scroll in their own region).
    expect(page.get_by_test_id("install-command")).to_have_text("pip install dicehall")
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), (
        page.evaluate(_WIDER_THAN_THE_PAGE)
    )
    shoot(page, "page-fairness-phone")
    page.set_viewport_size({"width": 1100, "height": 900})
    page.get_by_role("navigation", name="Rules").get_by_role("link", name="Boss Dice").click()
    expect(page.get_by_role("heading", name="Boss Dice", level=1)).to_be_visible()
    expect(page.locator(".rules table").first).to_be_visible()
    shoot(page, "page-rules-boss")
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto("/")
    shoot(page, "page-home-phone")
    signup_api(page.context, "moss")
    page.goto("/new/holdem")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the new-game form is {width}px wide at phone width"
    shoot(page, "page-new-game-phone")
