"""Players' seeds from the browser: the new-game form sends the creator's, so it enters the
first roll; a seated player's board sends one for a game that has none from them yet."""

from __future__ import annotations

import re
from typing import Any

from fastapi.testclient import TestClient
from playwright.sync_api import Browser, Page, expect
from sqlalchemy import create_engine, select

from dicehall.server.core.models import GameSeed
from dicehall.server.domain.services import Services
from tests.live import LiveServer
from tests.waiting import wait_until
from tests.web.conftest import signup_api
from tests.web.test_pages_forms import _new_game_id, _signup

SEED = "c0ffee" * 10 + "0123"


def _seeds(db_url: str, game_id: int) -> list[Any]:
    engine = create_engine(db_url)
    try:
        with engine.connect() as conn:
            return list(conn.execute(select(GameSeed).where(GameSeed.game_id == game_id)).all())
    finally:
        engine.dispose()


def test_the_form_sends_the_creators_seed_and_refuses_a_bad_one(
    web: TestClient, services: Services
) -> None:
    csrf = _signup(web, "ada")
    data = {"csrf_token": csrf, "opt_columns": "1", "opt_ruleset": "boatzee", "opp1": "bot:greedy"}
    game_id = int(_new_game_id(web.post("/new/boatzee", data={**data, "seed": SEED})))
    (row,) = _seeds(services.settings.db_url, game_id)
    assert (row.seat, row.seed, row.from_key, row.from_shuffle) == (0, SEED, 0, 0)
    refused = web.post("/new/boatzee", data={**data, "seed": "not hex"})
    assert refused.status_code == 422 and "hexadecimal" in refused.text
    assert _seeds(services.settings.db_url, game_id + 1) == []


def test_the_browser_seeds_a_game_it_creates_and_one_it_was_invited_to(
    page: Page, browser: Browser, site: LiveServer
) -> None:
    signup_api(page.context, "alice")
    page.goto("/new/boatzee")
    page.get_by_label("Opponent 1", exact=True).select_option("bot:greedy")
    seed = page.locator("#f-seed").input_value()
    assert len(seed) == 64 and int(seed, 16) >= 0
    page.get_by_role("button", name="Start the game").click()
    expect(page).to_have_url(re.compile(r".*/games/\d+$"))
    made = int(page.url.rsplit("/", 1)[1])
    (row,) = _seeds(site.db_url, made)
    assert (row.seed, row.from_key) == (seed, 0)
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
        stored = board.evaluate(f"localStorage.getItem('dicehall-seed:{invited}')")
        assert stored == found[0].seed
    finally:
        other.close()
