"""A spectator in Chromium: signed out, they watch two people's game read-only, see it move
on live and "1 watching", and are told when it is over; the players' boards count them; a
private game is a 404 page."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.live import LiveServer
from tests.web.conftest import accept_game_api, create_game_api, shoot, signup_api


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


def _version(page: Page) -> int:
    return int(page.locator("#board").get_attribute("data-version") or "0")


def _score_chance(context: BrowserContext, csrf: str, game_id: int) -> Any:
    """Score the Chance box through the API, as the context's player (it is their turn)."""
    game = context.request.get(f"/api/v1/games/{game_id}").json()
    action = next(a for a in game["legal"] if a["type"] == "score" and a["box"] == "chance")
    answer = context.request.post(
        f"/api/v1/games/{game_id}/actions",
        data={"action": action, "expected_version": game["version"]},
        headers={"X-CSRF-Token": csrf},
    )
    assert answer.ok, answer.text()
    return answer.json()


def test_a_signed_out_spectator_watches_live(
    browser: Browser, site: LiveServer, context: BrowserContext
) -> None:
    bella_context = _context(browser, site)
    visitor = _context(browser, site, width=390)  # a phone, signed out
    try:
        csrf = signup_api(context, "alma")
        bella_csrf = signup_api(bella_context, "bella")
        game_id = create_game_api(context, csrf, "boatzee", ["me", "user:bella"])
        accept_game_api(bella_context, bella_csrf, game_id)
        alma = context.new_page()
        _open_board(alma, game_id)
        # Nobody watches yet: the players' board says nothing about it.
        expect(alma.locator("#board-watching")).to_be_hidden()

        spectator = visitor.new_page()
        errors = _errors(spectator)
        _open_board(spectator, game_id)
        expect(spectator.get_by_test_id("watching")).to_have_text("1 watching")
        expect(spectator.get_by_test_id("spectator")).to_contain_text("moves on as its players")
        expect(spectator.get_by_test_id("turn")).to_contain_text("Waiting for alma")
        # Read-only: not one control on the board to move with.
        expect(spectator.locator("#board button:not([disabled])")).to_have_count(0)
        # The player's board counts the spectator (and not itself).
        expect(alma.get_by_test_id("watching")).to_have_text("1 watching")
        expect(alma.get_by_test_id("spectator")).to_have_count(0)

        start = _version(spectator)
        moved = _score_chance(context, csrf, game_id)
        spectator.wait_for_function(
            f"Number(document.getElementById('board').dataset.version) >= {moved['version']}"
        )
        assert _version(spectator) > start
        expect(spectator.get_by_test_id("turn")).to_contain_text("Waiting for bella")
        expect(spectator.get_by_test_id("total-0")).not_to_have_text("0")
        expect(spectator.locator("#board button:not([disabled])")).to_have_count(0)
        shoot(spectator, "board-spectator-phone")
        # bella resigns: the game is over, and the spectator is told so (not that it moves on).
        game = bella_context.request.get(f"/api/v1/games/{game_id}").json()
        resigned = bella_context.request.post(
            f"/api/v1/games/{game_id}/resign",
            data={"expected_version": game["version"]},
            headers={"X-CSRF-Token": bella_csrf},
        )
        assert resigned.ok, resigned.text()
        expect(spectator.get_by_test_id("spectator")).to_have_text(
            "You are watching this game: it is over."
        )

        # The spectator leaves: the count goes back down on the player's board.
        spectator.close()
        expect(alma.locator("#board-watching")).to_be_hidden()
        assert alma.locator("#board").get_attribute("data-watching") == "0"
        assert errors == []
    finally:
        visitor.close()
        bella_context.close()


def test_a_private_game_is_not_found_by_a_visitor(
    browser: Browser, site: LiveServer, context: BrowserContext
) -> None:
    csrf = signup_api(context, "cleo")
    answer = context.request.post(
        "/api/v1/games",
        data={"game": "boatzee", "seats": ["me", "bot:random"], "private": True},
        headers={"X-CSRF-Token": csrf},
    )
    assert answer.ok, answer.text()
    game_id = answer.json()["id"]
    visitor = _context(browser, site)
    try:
        page = visitor.new_page()
        response = page.goto(f"/games/{game_id}")
        assert response is not None and response.status == 404
        expect(page.get_by_text(f"There is no game {game_id}.")).to_be_visible()
        # Its player sees the board, and nobody watching.
        own = context.new_page()
        _open_board(own, game_id)
        expect(own.locator("#board-watching")).to_be_hidden()
    finally:
        visitor.close()
