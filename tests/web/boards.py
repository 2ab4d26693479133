"""What the board tests share: waiting for a settled board, reading the game, clicking a move."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page

#: Counts the page's fetches in flight, so a test clicks only once the board is settled.
COUNT_FETCHES = """
(() => {
  const original = window.fetch;
  window.__inflight = 0;
  window.fetch = (...args) => {
    window.__inflight += 1;
    return original(...args).finally(() => { window.__inflight -= 1; });
  };
})();
"""


def settle(page: Page) -> None:
    """Wait until no fetch is in flight: a push may re-render the board under a click."""
    page.wait_for_function("window.__inflight === 0")


def game_json(page: Page, game_id: int) -> dict[str, Any]:
    """The game as the page's user sees it, through the API."""
    response = page.context.request.get(f"/api/v1/games/{game_id}")
    assert response.ok
    data: dict[str, Any] = response.json()
    return data


def wait_version(page: Page, old: str) -> None:
    """Wait until the board shows a version other than ``old``."""
    page.wait_for_function(
        "old => { const b = document.getElementById('board');"
        " return b.dataset.version !== undefined && b.dataset.version !== old; }",
        arg=old,
    )


def click_and_wait(page: Page, test_id: str) -> None:
    """Click the control ``test_id`` on a settled board and wait for the next version."""
    settle(page)
    old = page.locator("#board").get_attribute("data-version") or ""
    page.get_by_test_id(test_id).click()
    wait_version(page, old)


def settled_game(page: Page, game_id: int, seconds: float = 60) -> dict[str, Any]:
    """The game once no bot (nor the dice) has the turn, and the board showing it.

    Bots move after a person's move, in the background: a board first says a bot is
    thinking (its controls off), then shows the bot's move when it lands.
    """
    import time

    deadline = time.monotonic() + seconds
    while True:
        game = game_json(page, game_id)
        if game["bot_turn"] is None:
            break
        assert time.monotonic() < deadline, f"the bot never moved: {game['bot_turn']}"
        page.wait_for_timeout(100)
    page.wait_for_function(
        "v => Number(document.getElementById('board').dataset.version) >= v",
        arg=game["version"],
        timeout=seconds * 1000,
    )
    settle(page)
    return game_json(page, game_id)
