"""The board's chat in Chromium: two players talk live, a preset is one click, markup posted
shows as text and runs nothing, a closed panel marks unread lines (and the status page
too), and a spectator writes to a channel the players do not read during the game."""

from __future__ import annotations

from datetime import timedelta

from playwright.sync_api import Browser, BrowserContext, Page, expect
from sqlalchemy import select, update

from dicehall.server.core.clock import aware
from dicehall.server.core.db import make_engine
from dicehall.server.core.models import ChatLine, User
from dicehall.server.domain.people.chat import SECONDS_APART
from tests.live import LiveServer
from tests.web.conftest import accept_game_api, create_game_api, shoot, signup_api

MARKUP = '<img src=x onerror="window.__pwned = 1"><b>bold?</b>'


def _context(browser: Browser, site: LiveServer, width: int = 1100) -> BrowserContext:
    made = browser.new_context(
        base_url=site.base, viewport={"width": width, "height": 900}, bypass_csp=True
    )
    made.set_default_timeout(15_000)
    return made


def _errors(page: Page) -> list[str]:
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return errors


def _open_board(page: Page, game_id: int) -> None:
    page.goto(f"/games/{game_id}")
    page.wait_for_function("document.getElementById('board').dataset.version !== undefined")
    page.wait_for_function("document.body.dataset.live === 'on'")
    # The chat has read its first page (and knows its channel).
    page.wait_for_function("document.getElementById('chat-panel').dataset.channel")


def _write(page: Page, text: str) -> None:
    field = page.locator("#chat-body")
    field.fill(text)
    field.press("Enter")
    expect(field).to_have_value("")


def _pace(site: LiveServer, user_id: str) -> None:
    """Let ``user_id`` write again at once: the site takes one chat line a second from a
    writer, so their lines are moved a second into the past. (The site runs in another
    process, whose clock the test cannot move; to the pace check, lines written a second
    earlier are the same as a clock a second later.)"""
    engine = make_engine(site.db_url).execution_options(sqlite_begin="IMMEDIATE")
    try:
        with engine.begin() as conn:
            lines = conn.execute(
                select(ChatLine.id, ChatLine.created_at)
                .join(User, User.id == ChatLine.user_pk)
                .where(User.user_id == user_id)
            ).all()
            assert lines, f"{user_id} has written nothing"
            for line_id, written in lines:
                earlier = aware(written) - timedelta(seconds=SECONDS_APART)
                conn.execute(
                    update(ChatLine).where(ChatLine.id == line_id).values(created_at=earlier)
                )
    finally:
        engine.dispose()


def _texts(page: Page) -> list[str]:
    return page.locator("#chat-lines .chat-text").all_inner_texts()


def test_two_players_chat_live_and_markup_stays_text(
    browser: Browser, site: LiveServer, context: BrowserContext
) -> None:
    bella_context = _context(browser, site)
    carol_context = _context(browser, site)
    try:
        csrf = signup_api(context, "alma")
        bella_csrf = signup_api(bella_context, "bella")
        signup_api(carol_context, "carol")
        game_id = create_game_api(context, csrf, "boatzee", ["me", "user:bella"])
        accept_game_api(bella_context, bella_csrf, game_id)
        alma, bella = context.new_page(), bella_context.new_page()
        errors = _errors(alma) + _errors(bella)
        _open_board(alma, game_id)
        _open_board(bella, game_id)
        expect(alma.locator("#chat-label")).to_have_text("Message to the players")
        expect(alma.locator("#chat-empty")).to_be_visible()

        # Alma writes from the keyboard: Bella's board shows it without a reload.
        _write(alma, "hello bella")
        expect(bella.locator("#chat-lines .chat-line")).to_have_count(1)
        expect(bella.locator("#chat-lines .chat-who")).to_have_text("alma")
        assert _texts(bella) == ["hello bella"]

        # One click on a preset.
        bella.get_by_role("button", name="Good luck").click()
        expect(alma.locator("#chat-lines .chat-text").last).to_have_text("Good luck")
        expect(bella.locator("#chat-lines .chat-text").last).to_have_text("Good luck")

        # A spectator writes to the spectators: the players do not read it during the game.
        carol = carol_context.new_page()
        _open_board(carol, game_id)
        expect(carol.locator("#chat-label")).to_have_text("Message to the spectators")
        assert _texts(carol) == ["hello bella", "Good luck"]
        _write(carol, "nice opening")
        expect(carol.locator("#chat-lines .chat-spectators")).to_have_count(1)
        expect(carol.locator(".chat-spectators .chat-tag")).to_have_text("spectator")

        # Markup is shown as text; nothing in it runs (the test browser ignores the CSP).
        _pace(site, "alma")
        _write(alma, MARKUP)
        expect(bella.locator("#chat-lines .chat-text").last).to_have_text(MARKUP)
        assert bella.locator("#chat-lines img, #chat-lines b").count() == 0
        assert alma.locator("#chat-lines img, #chat-lines b").count() == 0
        assert bella.evaluate("window.__pwned") is None
        assert alma.evaluate("window.__pwned") is None
        expect(carol.locator("#chat-lines .chat-text").last).to_have_text(MARKUP)
        assert _texts(alma) == ["hello bella", "Good luck", MARKUP]
        assert _texts(bella) == ["hello bella", "Good luck", MARKUP]
        shoot(bella, "board-chat-wide")

        # Bella closes the panel: a new line marks it, opening it clears the mark.
        bella.locator("#chat-panel summary").click()
        expect(bella.locator("#chat-lines")).to_be_hidden()
        _pace(site, "alma")
        alma.get_by_role("button", name="Good game").click()
        expect(bella.get_by_test_id("chat-unread")).to_have_text("1 new")
        # Her status page marks the game too.
        status = bella_context.new_page()
        status.goto("/status")
        expect(status.get_by_test_id(f"chat-unread-{game_id}")).to_have_text("1 new in chat")
        # Its push socket is open (and so subscribed) before the read it must hear of.
        expect(status.locator("body")).to_have_attribute("data-live", "on")
        bella.locator("#chat-panel summary").click()
        expect(bella.get_by_test_id("chat-unread")).to_be_hidden()
        expect(bella.locator("#chat-lines .chat-text").last).to_have_text("Good game")
        # Read on the board: the status page drops its mark without a reload.
        expect(status.get_by_test_id(f"chat-unread-{game_id}")).to_have_count(0)
        assert errors == []
    finally:
        carol_context.close()
        bella_context.close()


def test_chat_at_phone_width_keeps_the_board_whole(
    browser: Browser, site: LiveServer, context: BrowserContext
) -> None:
    phone = _context(browser, site, width=390)
    try:
        csrf = signup_api(context, "dora")
        eve_csrf = signup_api(phone, "eve")
        game_id = create_game_api(context, csrf, "boatzee", ["me", "user:eve"])
        accept_game_api(phone, eve_csrf, game_id)
        dora = context.new_page()
        _open_board(dora, game_id)
        _write(dora, "a long line that has to wrap on a phone " * 4)
        eve = phone.new_page()
        _open_board(eve, game_id)
        # Closed at phone width until opened; then under the board, and nothing scrolls sideways.
        expect(eve.locator("#chat-lines")).to_be_hidden()
        expect(eve.get_by_test_id("chat-unread")).to_have_text("1 new")
        eve.locator("#chat-panel summary").click()
        expect(eve.locator("#chat-lines .chat-line")).to_have_count(1)
        eve.get_by_role("button", name="Good luck").click()
        expect(eve.locator("#chat-lines .chat-line")).to_have_count(2)
        board = eve.locator("#board").bounding_box()
        panel = eve.locator("#chat-panel").bounding_box()
        assert board is not None and panel is not None
        assert panel["y"] >= board["y"] + board["height"], (board, panel)
        width = eve.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"the board scrolls sideways at 390 px ({width}px)"
        eve.locator("#chat-body").focus()
        shoot(eve, "board-chat-phone")
    finally:
        phone.close()
