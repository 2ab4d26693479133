"""The settings page and boards that honour the settings.

Without a browser: the form saves every setting with the session's CSRF token and shows the
saved state, every page's ``<html>`` carries the choices, and a forged token or a value not
offered stores nothing. In Chromium: a change saved on /settings reaches another open page
of mine without a reload; a Boatzee board follows a change pushed while it is open (dice
drawn as numerals, one-click scoring, the hints panel, the your-turn sound), and scores a
box in two clicks with confirmation on, in one with it off.
"""

from __future__ import annotations

import re
from typing import Any

from fastapi.testclient import TestClient
from playwright.sync_api import Browser, BrowserContext, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from dicehall.server.domain.notices.kinds import KINDS
from tests.live import LiveServer
from tests.web.boards import COUNT_FETCHES, settle
from tests.web.conftest import accept_game_api, create_game_api, shoot, signup_api
from tests.web.test_notifications_bell import play_until
from tests.web.test_pages_forms import _error_of, _signup

API = "/api/v1/users/me/settings"

#: Every setting as the form sends it: dark, numerals, large boards, hints open, sounds,
#: one-click moves, buddies only, hidden from Who is here, a profile showing two ratings, my
#: rating hidden while I play (an unticked box is not sent).
CHANGED = {
    "theme": "dark",
    "dice_style": "numerals",
    "board_size": "large",
    "hints_open": "on",
    "sounds": "on",
    "messages_from": "buddies",
    "challenges_from": "nobody",
    "rating_boss": "on",
    "rating_boatzee-double": "on",
    "hide_rating_while_playing": "on",
}


def html_tag(text: str) -> str:
    found = re.search(r"<html[^>]*>", text)
    assert found, "no <html> tag"
    return found.group(0)


def test_the_form_saves_every_setting_without_scripts(web: TestClient) -> None:
    csrf = _signup(web, "setter")
    shown = web.get("/settings")
    assert shown.status_code == 200
    for checked in (
        "theme-light",
        "dice_style-pips",
        "board_size-medium",
        "messages_from-everyone",
    ):
        assert re.search(rf'id="f-{checked}"[^>]* checked', shown.text), checked
    assert re.search(r'id="f-confirm_moves"[^>]* checked', shown.text)
    assert not re.search(r'id="f-sounds"[^>]* checked', shown.text)
    assert 'data-theme="light"' in html_tag(shown.text)

    answer = web.post("/settings", data={"csrf_token": csrf, **CHANGED})
    assert answer.status_code == 303 and answer.headers["location"] == "/settings?saved=1"
    assert web.get(API).json() == {
        "theme": "dark",
        "dice_style": "numerals",
        "board_size": "large",
        "hints_open": True,
        "sounds": True,
        "messages_from": "buddies",
        "challenges_from": "nobody",
        "show_presence": False,
        "confirm_moves": False,
        "ratings_shown": ["boatzee-double", "boss"],
        "hide_rating_while_playing": True,
        # The notification settings have a form of their own: this one leaves them be.
        "time_zone": "UTC",
        "email_mode": "digest",
        "digest_hour": 8,
        "email_kinds": list(KINDS),
        "push_kinds": list(KINDS),
        "webhook_kinds": list(KINDS),
        "reminders": ["80%", "1h"],
    }
    saved = web.get("/settings?saved=1").text
    assert 'id="settings-saved"' in saved
    assert re.search(r'id="f-theme-dark"[^>]* checked', saved)
    assert not re.search(r'id="f-confirm_moves"[^>]* checked', saved)
    # Every page carries them for the site's styles and boards.
    for path in ("/settings", "/status", "/"):
        tag = html_tag(web.get(path).text)
        for attribute in (
            'data-theme="dark"',
            'data-dice="numerals"',
            'data-board-size="large"',
            'data-hints-open="true"',
            'data-sounds="true"',
            'data-confirm="false"',
        ):
            assert attribute in tag, (path, attribute)


def test_a_forged_or_tampered_form_stores_nothing(web: TestClient) -> None:
    csrf = _signup(web, "tamper")
    before = web.get(API).json()
    answer = web.post("/settings", data={"csrf_token": "forged", **CHANGED})
    assert answer.status_code == 422 and "expired" in answer.text
    assert web.get(API).json() == before
    answer = web.post("/settings", data={"csrf_token": csrf, **CHANGED, "theme": "sepia"})
    assert answer.status_code == 422
    assert "Choose one of the options" in _error_of(answer.text, "theme")
    assert 'id="form-problems"' in answer.text and 'href="#f-theme"' in answer.text
    assert web.get(API).json() == before
    # Visitors are sent to log in first.
    web.cookies.clear()
    answer = web.get("/settings")
    assert answer.status_code == 303 and answer.headers["location"] == "/login?next=/settings"


def dataset(page: Page) -> dict[str, str]:
    found: dict[str, str] = page.evaluate("({...document.documentElement.dataset})")
    return found


def test_a_saved_change_reaches_my_other_open_page_at_once(page: Page) -> None:
    signup_api(page.context, "twotabs")
    other = page.context.new_page()
    other.goto("/status")
    other.wait_for_function("document.body.dataset.live === 'on'")
    other.evaluate("window.__notReloaded = true")
    light = other.evaluate("getComputedStyle(document.documentElement).backgroundColor")

    page.goto("/settings")
    expect(page.get_by_role("heading", name="Edit game boards")).to_be_visible()
    # Choosing previews on this page at once, before saving; the other page waits.
    page.get_by_role("radio", name="Dark").check()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    page.get_by_role("radio", name="Numerals").check()
    expect(page.locator("#preview-note")).to_contain_text("save the settings to keep it")
    assert dataset(other)["theme"] == "light"
    # From the keyboard: arrow keys move within a radio group.
    page.get_by_role("radio", name="Medium").focus()
    page.keyboard.press("ArrowDown")
    expect(page.get_by_role("radio", name="Large", exact=True)).to_be_checked()
    page.get_by_role("button", name="Save my settings").click()
    expect(page.locator("#settings-saved")).to_be_visible()

    other.wait_for_function("document.documentElement.dataset.theme === 'dark'")
    assert dataset(other)["dice"] == "numerals" and dataset(other)["boardSize"] == "large"
    assert other.evaluate("window.__notReloaded") is True
    assert other.evaluate("getComputedStyle(document.documentElement).backgroundColor") != light
    shoot(page, "page-settings-dark")
    page.set_viewport_size({"width": 390, "height": 800})
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    shoot(page, "page-settings-dark-phone")
    # High contrast and large pips, previewed (not saved).
    page.set_viewport_size({"width": 1100, "height": 900})
    page.get_by_role("radio", name="High contrast").check()
    page.get_by_role("radio", name="Large pips").check()
    expect(page.locator("html")).to_have_attribute("data-dice", "large")
    shoot(page, "page-settings-high-contrast-preview")
    assert dataset(other)["theme"] == "dark"
    other.close()


def still(page: Page) -> None:
    """Wait for the dice's roll to end (for a screenshot)."""
    page.wait_for_function(
        "[...document.querySelectorAll('.die')]"
        ".every(d => d.getAnimations().every(a => a.playState !== 'running'))"
    )


def patch(context: BrowserContext, csrf: str, changes: dict[str, Any]) -> None:
    answer = context.request.patch(API, data=changes, headers={"X-CSRF-Token": csrf})
    assert answer.ok, answer.text()


def version(page: Page) -> int:
    return int(page.locator("#board").get_attribute("data-version") or "0")


def score_and_wait_for_my_turn(page: Page, rival: BrowserContext, csrf: str, game_id: int) -> None:
    """After my box is scored, the rival plays their turn; the board shows my turn again."""
    expect(page.locator("#board")).to_have_attribute("data-your-turn", "false")
    play_until(rival, csrf, game_id, 0)
    expect(page.locator("#board")).to_have_attribute("data-your-turn", "true")
    settle(page)


def test_a_boatzee_board_follows_the_settings_while_open(
    page: Page, browser: Browser, site: LiveServer
) -> None:
    csrf = signup_api(page.context, "boardfan")
    rival = browser.new_context(base_url=site.base, bypass_csp=True)
    try:
        rival_csrf = signup_api(rival, "rival")
        # Boatzee's first seat (mine) acts first.
        game_id = create_game_api(page.context, csrf, "boatzee", ["me", "user:rival"])
        accept_game_api(rival, rival_csrf, game_id)
        page.add_init_script(COUNT_FETCHES)
        page.goto(f"/games/{game_id}")
        page.wait_for_function("document.body.dataset.live === 'on'")
        expect(page.locator("#board")).to_have_attribute("data-your-turn", "true")
        settle(page)
        boards_follow(page, rival, rival_csrf, csrf, game_id)
    finally:
        rival.close()


def boards_follow(
    page: Page, rival: BrowserContext, rival_csrf: str, csrf: str, game_id: int
) -> None:
    expect(page.locator("#hint-panel")).not_to_have_attribute("open", "")
    # Confirmation on (the default): a click on a box only shows what it would score.
    seen = version(page)
    page.locator(".bz-box").first.click()
    expect(page.get_by_test_id("choice")).to_contain_text("would score")
    assert version(page) == seen
    page.get_by_role("button", name=re.compile(r"^Confirm ")).click()
    score_and_wait_for_my_turn(page, rival, rival_csrf, game_id)
    # Sounds are off: my turn came back in silence.
    assert page.evaluate("document.body.dataset.beeps") is None

    # Changed elsewhere (the API here): the open board follows at once, without a reload.
    page.evaluate("window.__notReloaded = true")
    patch(
        page.context,
        csrf,
        {"confirm_moves": False, "dice_style": "numerals", "theme": "dark", "hints_open": True,
         "sounds": True},
    )  # fmt: skip
    expect(page.locator(".bz-box.bz-quick").first).to_be_visible()
    expect(page.get_by_role("button", name=re.compile(r"^Confirm"))).to_have_count(0)
    expect(page.locator("#hint-panel")).to_have_attribute("open", "")
    assert page.evaluate("window.__notReloaded") is True
    dice = page.locator(".bz-dice .die")
    drawn = dice.evaluate_all(
        "els => els.map(e => [e.dataset.face, getComputedStyle(e, '::before').content])"
    )
    assert len(drawn) == 5 and all(content == f'"{face}"' for face, content in drawn), drawn
    still(page)
    shoot(page, "board-boatzee-dark-numerals")

    # One click scores a box (each shows its points), and my next turn rings.
    box = page.locator(".bz-box.bz-quick").first
    assert box.inner_text().isdigit()
    box.click()
    score_and_wait_for_my_turn(page, rival, rival_csrf, game_id)
    game = page.context.request.get(f"/api/v1/games/{game_id}").json()
    assert sum(v is not None for v in game["view"]["sheets"][0]["boxes"][0]) == 2
    try:
        page.wait_for_function("Number(document.body.dataset.beeps ?? 0) >= 1")
    except PlaywrightTimeout:
        # body[data-sound] says why no beep was heard.
        raise AssertionError(page.evaluate("({...document.body.dataset})")) from None

    page.set_viewport_size({"width": 390, "height": 800})
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    still(page)
    shoot(page, "board-boatzee-dark-numerals-phone")
    # Back to confirming: two clicks again.
    page.set_viewport_size({"width": 1100, "height": 900})
    patch(page.context, csrf, {"confirm_moves": True})
    expect(page.locator(".bz-box.bz-quick")).to_have_count(0)
    seen = version(page)
    page.locator(".bz-box").first.click()
    expect(page.get_by_role("button", name=re.compile(r"^Confirm "))).to_be_enabled()
    assert version(page) == seen


def test_every_board_draws_the_chosen_dice_and_size(page: Page) -> None:
    """Dice come from one drawing function for every game: large pips draw as many pips as
    the face; a large board is scaled; the hints panel opens with hints_open."""
    csrf = signup_api(page.context, "bigpips")
    patch(
        page.context,
        csrf,
        {"dice_style": "large", "board_size": "large", "theme": "high-contrast",
         "hints_open": True},
    )  # fmt: skip
    game_id = create_game_api(page.context, csrf, "tenthousand", ["me", "bot:random"])
    page.goto(f"/games/{game_id}")
    expect(page.locator("#board")).to_have_attribute("data-your-turn", "true")
    expect(page.locator("#hint-panel")).to_have_attribute("open", "")
    expect(page.locator(".tt-dice .die")).to_have_count(6)
    pips = page.locator(".tt-dice .die").evaluate_all(
        "els => els.map(e => [Number(e.dataset.face),"
        " getComputedStyle(e, '::before').backgroundImage.split('radial-gradient').length - 1,"
        " getComputedStyle(e).webkitTextFillColor])"
    )
    assert all(face == count and fill == "rgba(0, 0, 0, 0)" for face, count, fill in pips), pips
    assert page.evaluate("getComputedStyle(document.getElementById('board')).zoom") == "1.2"
    still(page)
    shoot(page, "board-tenthousand-high-contrast-large")
