"""Players' seeds from the browser: a seated player's board sends one, kept in the browser,
for a game that has none from them yet: a game the player just made, or one they were
invited to (before they accept)."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import Browser, Page, expect
from sqlalchemy import create_engine, select

from dicehall.server.core.models import GameSeed
from tests.live import LiveServer
from tests.waiting import wait_until
from tests.web.conftest import signup_api

SEED = "c0ffee" * 10 + "0123"


def _seeds(db_url: str, game_id: int) -> list[Any]:
    engine = create_engine(db_url)
    try:
        with engine.connect() as conn:
            return list(conn.execute(select(GameSeed).where(GameSeed.game_id == game_id)).all())
    finally:
        engine.dispose()


def _kept(page: Page, game_id: int) -> Any:
    """The seed the page's browser kept for ``game_id``, once it has."""
    script = f"localStorage.getItem('dicehall-seed:{game_id}')"
    return wait_until(lambda: page.evaluate(script), timeout=20, what="the kept seed")


def test_the_browser_seeds_a_game_it_creates_and_one_it_was_invited_to(
    page: Page, browser: Browser, site: LiveServer
) -> None:
    signup_api(page.context, "alice")
    page.goto("/new/boatzee")
    page.get_by_label("Opponent 1", exact=True).select_option("bot:greedy")
    page.get_by_role("button", name="Start the game").click()
    expect(page).to_have_url(re.compile(r".*/games/\d+$"))
    made = int(page.url.rsplit("/", 1)[1])
    # The board sends it once the game (and its deck, bound before) exists.
    (row,) = wait_until(lambda: _seeds(site.db_url, made) or None, timeout=20, what="a seed")
    assert row.seat == 0 and len(row.seed) == 64 and row.from_key >= 1
    kept = _kept(page, made)  # the answer reaches the page just after the row commits
    assert kept == row.seed
    # An invitation: bob's board sends his seed once he looks at it.
    other = browser.new_context(base_url=site.base, bypass_csp=True)
    try:
        signup_api(other, "bob")
        alice = page.evaluate("document.querySelector('meta[name=\"csrf-token\"]').content")
        created = page.context.request.post(
            "/api/v1/games",
            data={"game": "boatzee", "seats": ["me", "bob"]},
            headers={"X-CSRF-Token": alice},
        )
        assert created.ok, created.text()
        invited = created.json()["id"]
        board = other.new_page()
        board.goto(f"/games/{invited}")
        found = wait_until(
            lambda: _seeds(site.db_url, invited) or None, timeout=20, what="bob's seed"
        )
        assert [(r.seat, len(r.seed)) for r in found] == [(1, 64)]
        stored = _kept(board, invited)
        assert stored == found[0].seed
    finally:
        other.close()
