"""The Boss Dice board in Chromium: the Boss's two calls, the opponent's keep under the cup
rule, the two-pair ban, and the showdown in the history."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page, expect

from dicehall.engine import codec
from dicehall.games.boss.rules import GAME, BossState
from tests.web.boards import COUNT_FETCHES
from tests.web.boards import click_and_wait as _click_and_wait
from tests.web.boards import game_json as _game
from tests.web.boards import settle as _settle
from tests.web.conftest import create_game_api, shoot, signup_api


def test_boss_hand_with_both_calls(page: Page) -> None:
    csrf = signup_api(page.context, "bossy")
    game_id = create_game_api(page.context, csrf, "boss", ["me", "bot:heuristic"], {"horses": 9})
    page.add_init_script(COUNT_FETCHES)
    page.goto(f"/games/{game_id}")
    page.wait_for_function("document.getElementById('board').dataset.version !== undefined")

    picked = came_up = kept = False
    for _ in range(40):
        game = _game(page, game_id)
        assert game["status"] == "active", "the match ended before both calls were seen"
        view = game["view"]
        expect(page.locator("#board")).to_have_attribute("data-version", str(game["version"]))
        if view["phase"] == "call":
            assert view["boss"] == game["my_seat"]
            expect(page.get_by_test_id("boss-seat")).to_contain_text("(you)")
            # the Boss sees his own concealed dice, never a cup
            concealed = page.get_by_test_id("concealed")
            expect(concealed.locator(".boss-cup")).to_have_count(0)
            expect(concealed.locator(".die")).to_have_count(5 - len(view["boss_kept"]))
            if not picked:
                # the odds panel, closed by default, shows the odds once opened
                page.get_by_text("Odds and hints", exact=True).click()
                expect(page.locator("#hint-body")).to_contain_text("a fresh hand is worth")
                shoot(page, "board-boss-call")
                hands, before = view["hands"], len(view["history"])
                _click_and_wait(page, "pick_up")
                after = _game(page, game_id)["view"]
                # my pick-up is recorded; the bot may have picked up a later hand at once too
                assert after["hands"] >= hands + 1
                assert after["history"][before]["type"] == "picked_up"
                assert after["history"][before]["boss"] == game["my_seat"]
                picked = True
            else:
                horses = sum(view["horses"])
                before = len(view["history"])
                _click_and_wait(page, "come_up")
                came_up = True
                after = _game(page, game_id)["view"]
                # the bot kept and rolled: the hand was shown down (a push is replayed)
                last = after["history"][before]
                assert last["type"] == "showdown" and last["boss"] == game["my_seat"]
                assert sum(after["horses"]) == horses + (last["winner"] is not None)
                item = page.get_by_test_id("showdown").first
                expect(item).to_contain_text("Boss, kept")
                expect(item.locator(".die")).to_have_count(10)
                shoot(page, "board-boss-showdown")
        elif view["phase"] == "keep":
            # I am the opponent: the Boss's concealed dice are cups, their faces unknown
            assert view["concealed"] is None
            cups = page.locator("#board .boss-cup")
            expect(cups).to_have_count(5 - len(view["boss_kept"]))
            if len(view["boss_kept"]) < 5:
                expect(cups.first).to_have_attribute(
                    "aria-label", "concealed die 1 under the Boss's cup"
                )
            if not kept:
                shoot(page, "board-boss-opponent-cup")
            # keep the dice of the highest face, by clicking them
            roll = view["first_rolls"][game["my_seat"]]
            best = max(roll, key=lambda f: (roll.count(f), f))
            _settle(page)
            for i, face in enumerate(roll):
                if face == best:
                    page.get_by_role("button", name=f"die {i + 1} showing {face}").click()
            expect(page.get_by_test_id("keep-summary")).to_contain_text("Keeping")
            _click_and_wait(page, "keep")
            kept = True
        if picked and came_up and kept:
            break
    assert picked and came_up and kept
    _two_pair_keep_is_refused_with_the_reason(page)


FAKE = """
async ([game]) => {
  const core = await import('/static/js/board-core.js');
  const board = await import('/static/js/boards/boss.js');
  const css = document.createElement('link');
  css.rel = 'stylesheet';
  css.href = '/static/css/boards/boss.css';
  await new Promise((done) => { css.onload = done; document.head.append(css); });
  const root = document.getElementById('board');
  root.replaceChildren();
  const posted = [];
  window.__posted = posted;
  board.render(root, game, {h: core.h, die: core.die, seatName: core.seatName,
    post: (a) => { posted.push(a); }, say: () => {}});
}
"""


def _keeping(roll: tuple[int, ...]) -> dict[str, Any]:
    """A made-up position, as the API would send it: seat 2 keeps from ``roll`` against
    the Boss's 6 6 6 (view and legal actions from the rules, through the codec)."""
    state = BossState(2, None, (0, 0), "keep", ((6, 6, 6, 2, 1), roll), boss=0, concealed=(3, 4))
    return {
        "id": 999,
        "version": 5,
        "status": "active",
        "my_seat": 1,
        "to_act": 1,
        "your_turn": True,
        "seats": [{"seat": 0, "user": "boss", "bot": None}, {"seat": 1, "user": "me", "bot": None}],
        "legal": [codec.encode(a) for a in GAME.legal(state, 1)],
        "result": None,
        "view": codec.encode(GAME.view(state, 1)),
    }


def _two_pair_keep_is_refused_with_the_reason(page: Page) -> None:
    """The keep controls on a made-up position (one site start serves both checks)."""
    page.goto("/")
    page.evaluate(
        "() => { const d = document.createElement('div'); d.id = 'board';"
        " document.querySelector('main').replaceChildren(d); }"
    )
    page.evaluate(FAKE, [_keeping((2, 2, 5, 5, 3))])
    for i in (1, 2, 3, 4):
        page.get_by_role("button", name=f"die {i} showing").click()
    keep = page.get_by_test_id("keep")
    expect(keep).to_be_disabled()
    expect(page.get_by_test_id("keep-summary")).to_contain_text(
        "You may not keep two pairs (5 5 and 2 2)"
    )
    shoot(page, "board-boss-two-pair-ban")
    # dropping a 2 leaves one pair: allowed, and the button works from the keyboard
    page.get_by_role("button", name="die 1 showing").click()
    expect(keep).to_be_enabled()
    expect(page.get_by_test_id("keep-summary")).to_contain_text("Keeping 5 5 2; rolling 2 dice")
    keep.press("Enter")
    assert page.evaluate("window.__posted") == [{"type": "keep", "dice": [2, 5, 5]}]
