"""The waiting board in Chromium: a game that has not started shows its seats and a link to
share, never a page error; its creator calls it off; an invited player accepts and the board
turns into the game's own; the waiting room calls off my own open game."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.live import LiveServer
from tests.web.conftest import create_game_api, shoot, signup_api

GAMES = ["tenthousand", "boatzee", "boss", "holdem", "bullseye"]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One site for this module's tests (each uses its own users)."""
    folder = tmp_path_factory.mktemp("waiting")
    server = LiveServer(f"sqlite:///{folder}/web.sqlite3")
    server.start()
    try:
        yield server
    finally:
        server.stop()


def _errors(page: Page) -> list[str]:
    """The page's uncaught errors, collected as they happen."""
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return errors


def _other(browser: Browser, site: LiveServer) -> BrowserContext:
    made = browser.new_context(
        base_url=site.base, viewport={"width": 1100, "height": 900}, bypass_csp=True
    )
    made.set_default_timeout(15_000)
    return made


@pytest.mark.parametrize("game", GAMES)
def test_open_seat_shows_the_waiting_board(page: Page, game: str) -> None:
    errors = _errors(page)
    csrf = signup_api(page.context, f"wait{game}")
    game_id = create_game_api(page.context, csrf, game, ["me", "open"])
    page.goto(f"/games/{game_id}")
    board = page.locator("#board")
    expect(board).to_have_attribute("data-status", "waiting")
    expect(board.get_by_role("heading", name="Waiting for players")).to_be_visible()
    seats = board.locator(".waiting-seats li")
    expect(seats).to_have_count(2)
    expect(seats.nth(0)).to_contain_text(f"wait{game} (you)")
    expect(seats.nth(1)).to_contain_text("open")
    link = page.get_by_label("Link to this board")
    expect(link).to_have_value(re.compile(f"/games/{game_id}$"))
    expect(board.get_by_role("button", name="Call off this game")).to_be_visible()
    if game == "boss":
        # The copy button works from the keyboard, and says so in the live region.
        copy = board.get_by_role("button", name="Copy link")
        copy.focus()
        page.keyboard.press("Enter")
        expect(page.locator("#board-status")).to_have_text(re.compile("copy|copied", re.I))
        shoot(page, "board-waiting")
        page.set_viewport_size({"width": 375, "height": 800})
        expect(board.get_by_role("heading", name="Waiting for players")).to_be_visible()
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 375, f"the waiting board scrolls sideways at phone width ({width}px)"
        shoot(page, "board-waiting-phone")
    assert errors == []


def test_creator_calls_the_game_off_from_the_board(page: Page) -> None:
    errors = _errors(page)
    csrf = signup_api(page.context, "caller")
    game_id = create_game_api(page.context, csrf, "boatzee", ["me", "open"])
    page.goto(f"/games/{game_id}")
    board = page.locator("#board")
    board.get_by_role("button", name="Call off this game").click()
    expect(board.get_by_role("heading", name="This game was called off")).to_be_visible()
    expect(board).to_have_attribute("data-status", "cancelled")
    expect(page.locator("#board-status")).to_have_text("You called the game off.")
    expect(board.get_by_role("heading", name="This game was called off")).to_be_focused()
    assert page.context.request.get(f"/api/v1/games/{game_id}").json()["status"] == "cancelled"
    # A called-off game's board, loaded afresh, says so too.
    page.reload()
    expect(board.get_by_role("heading", name="This game was called off")).to_be_visible()
    assert errors == []


def test_invited_player_accepts_and_the_board_turns_into_the_game(
    page: Page, browser: Browser, site: LiveServer
) -> None:
    host_errors = _errors(page)
    token = signup_api(page.context, "host")
    guest_context = _other(browser, site)
    try:
        signup_api(guest_context, "wren")
        game_id = create_game_api(page.context, token, "boss", ["me", "user:wren"])
        page.goto(f"/games/{game_id}")
        board = page.locator("#board")
        invited = board.locator(".waiting-seats li").nth(1)
        expect(invited).to_contain_text("wren, invited, has not answered yet")
        # The creator sees no Accept button; the invited player sees both answers.
        expect(board.get_by_role("button", name="Accept the invitation")).to_have_count(0)

        guest = guest_context.new_page()
        guest_errors = _errors(guest)
        guest.goto(f"/games/{game_id}")
        mine = guest.locator("#board")
        expect(mine.get_by_role("heading", name="You are invited")).to_be_visible()
        expect(mine.get_by_role("button", name="Decline the invitation")).to_be_visible()
        expect(mine.get_by_role("button", name="Call off this game")).to_have_count(0)
        mine.get_by_role("button", name="Accept the invitation").click()
        expect(mine).to_have_attribute("data-status", "active")
        expect(mine.get_by_role("heading", name="Waiting for players")).to_have_count(0)
        # The creator's board follows (a push, or the periodic look) without a reload.
        expect(board).to_have_attribute("data-status", "active")
        expect(board.locator(".waiting-board")).to_have_count(0)
        assert guest_errors == []
    finally:
        guest_context.close()
    assert host_errors == []


def test_waiting_room_calls_off_my_own_game(page: Page, browser: Browser, site: LiveServer) -> None:
    csrf = signup_api(page.context, "owner")
    game_id = create_game_api(page.context, csrf, "tenthousand", ["me", "open"])
    other = _other(browser, site)
    try:
        # Someone else's open game offers Join, never Call off.
        their_csrf = signup_api(other, "stranger")
        theirs = create_game_api(other, their_csrf, "boatzee", ["me", "open"])
    finally:
        other.close()
    page.goto("/waiting")
    expect(page.get_by_role("link", name="You are seated; open the board")).to_be_visible()
    expect(page.get_by_role("button", name=f"Call off Boatzee game {theirs}")).to_have_count(0)
    expect(page.get_by_role("button", name=f"Join Boatzee game {theirs}")).to_be_visible()
    page.get_by_role("button", name=f"Call off Ten Thousand game {game_id}").click()
    expect(page).to_have_url(re.compile("/waiting$"))
    expect(page.get_by_role("button", name=f"Call off Ten Thousand game {game_id}")).to_have_count(
        0
    )
    assert page.context.request.get(f"/api/v1/games/{game_id}").json()["status"] == "cancelled"
