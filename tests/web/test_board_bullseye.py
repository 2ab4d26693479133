"""The Bull's Eye board in Chromium, at phone width: a whole two-round game by clicking, as
the lead (setting the Bull's Eye) and as a thrower (throw on, stop), with bets checked next
to the field and the pot, banks and points on the board."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.web.boards import COUNT_FETCHES
from tests.web.boards import click_and_wait as _click_and_wait
from tests.web.boards import game_json as _game
from tests.web.conftest import create_game_api, shoot, signup_api


def test_bullseye_two_rounds_by_clicking_at_phone_width(page: Page) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    csrf = signup_api(page.context, "bully")
    game_id = create_game_api(
        page.context,
        csrf,
        "bullseye",
        ["me", "bot:heuristic"],
        {"rounds": 2, "allow_two_seats": True, "bet_limit": 5, "bank": 20},
    )
    page.add_init_script(COUNT_FETCHES)
    page.goto(f"/games/{game_id}")
    board = page.locator("#board")
    me = _game(page, game_id)["my_seat"]
    bets = 0
    led = stopped = checked = False
    for _ in range(20):
        game = _game(page, game_id)
        if game["status"] != "active":
            break
        expect(board).to_have_attribute("data-version", str(game["version"]))
        rnd = game["view"]["round"]
        assert game["your_turn"] and rnd["thrower"] == me
        expect(page.get_by_test_id("target")).to_have_text(str(rnd["target"]))
        expect(page.get_by_test_id("pot")).to_have_text(str(game["view"]["pot"]))
        bet = page.get_by_label("Bet into the pot")
        if not checked and rnd["lead"] != me:
            # bad bets are refused next to the field, and nothing is sent
            bet.fill("7")
            expect(page.locator("#be-bet-error")).to_have_text("The most you may bet is 5.")
            version = game["version"]
            page.locator(".be-controls button").first.click()
            expect(page.locator("#be-bet-error")).to_have_text("The most you may bet is 5.")
            expect(bet).to_have_attribute("aria-invalid", "true")
            assert _game(page, game_id)["version"] == version
            shoot(page, "board-bullseye-bad-bet-phone")
            checked = True
        throws = len(rnd["counted"][me])
        if rnd["lead"] == me:
            led = True
            kinds = {a["type"] for a in game["legal"]}
            # the lead does not bet: its moves carry no bet and the board offers no field
            assert {a["bet"] for a in game["legal"]} == {0}
            expect(bet).to_have_count(0)
            if throws == 3:
                assert kinds == {"stop"}
                expect(page.get_by_test_id("stop")).to_contain_text(
                    f"the Bull's Eye is {rnd['target']}"
                )
                _click_and_wait(page, "stop")
            else:
                assert kinds == {"throw_on"}
                _click_and_wait(page, "throw_on")
        elif throws == 1:
            expect(page.get_by_test_id("choice-note")).to_contain_text("Stopping now:")
            page.get_by_text("Odds and hints", exact=True).click()
            expect(page.locator("#hint-body")).to_contain_text(
                "If you throw on (and play on well):"
            )
            bet.fill("2")
            bets += 2
            _click_and_wait(page, "throw_on")
        else:
            # screenshot first: a full-page shot at phone width can swallow the next click
            shoot(page, "board-bullseye-phone")
            bet.fill("1")
            bets += 1
            _click_and_wait(page, "stop")
            stopped = True
    game = _game(page, game_id)
    assert game["status"] == "finished"
    assert led and stopped
    view = game["view"]
    assert view["banks"][me] == 20 - bets + sum(r["won"][me] for r in view["history"])
    for seat in (0, 1):
        expect(page.get_by_test_id(f"points-{seat}")).to_have_text(str(view["points"][seat]))
        expect(page.get_by_test_id(f"bank-{seat}")).to_have_text(str(view["banks"][seat]))
    expect(page.get_by_test_id("history").locator("tbody tr")).to_have_count(2)
    expect(page.get_by_test_id("turn")).to_contain_text("The game is over")
    page.set_viewport_size({"width": 1100, "height": 900})
    shoot(page, "board-bullseye-over")
